# `make test` and `make serve` are all the set-up there is: each creates .venv on first use.
# `make test` is the fast tier (offline, in-process, a few minutes); `make test-all` adds the `slow` tests
# (wheel builds, installs, validators, browsers, servers in processes of their own, the 500-seed sweep).
# `make test-train` installs the training stack (requirements-train.txt: torch, TRL) and runs real GRPOTrainer
# steps on the CPU with a tiny model built locally; the other two leave those tests out.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TRAIN_STAMP := $(VENV)/.installed-train
# `make serve` listens on loopback unless HOST says otherwise (the Dockerfile sets HOST=0.0.0.0).
HOST ?= 127.0.0.1

.PHONY: test test-all test-train lint typecheck serve scores audit clean

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

$(TRAIN_STAMP): $(STAMP) requirements-train.txt
	$(BIN)/pip install --quiet -r requirements-train.txt
	touch $(TRAIN_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Lint, type check and tests, timed as one: the wall time is the last line printed.
test: $(STAMP)
	TIMEFORMAT='make test: %1R s wall'; time ($(BIN)/ruff check . && $(BIN)/mypy && $(BIN)/pytest -m "not slow and not train")

test-all: $(STAMP)
	TIMEFORMAT='make test-all: %1R s wall'; time ($(BIN)/ruff check . && $(BIN)/mypy && $(BIN)/pytest -m "not train")

# Two GRPO steps and an evaluation on the CPU, through scripts/train_grpo.py (tests/test_train_cpu.py).
test-train: $(TRAIN_STAMP)
	TIMEFORMAT='make test-train: %1R s wall'; time $(BIN)/pytest -m train tests/test_train_cpu.py

serve: $(STAMP)
	HOST=$(HOST) $(BIN)/python -m server.app

scores: $(STAMP)
	$(BIN)/python scripts/reference_scores.py

audit: $(STAMP)
	$(BIN)/python scripts/audit.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis artifacts
