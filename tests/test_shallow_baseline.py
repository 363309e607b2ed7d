"""The shallow learned reference runs end to end on a tiny configuration, and prints the same figures twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn", reason="scikit-learn is not installed: pip install -r requirements-dev.txt")

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--train-instances", "3", "--eval-instances", "2", "--episodes", "2"]
LEVELS = ["generated_easy", "generated_medium"]


def run(*extra: str) -> str:
    args = [sys.executable, str(ROOT / "scripts" / "shallow_baseline.py"), *TINY, "--levels", *LEVELS, *extra]
    return subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT).stdout


def test_shallow_baseline_prints_accuracy_per_label_and_scores_per_policy_level_and_split() -> None:
    out = run("--json")
    report = json.loads(out)
    splits = {"train", "validation", "test"}
    assert report["fitted_tickets"] == 3 * (8 + 15)
    assert set(report["accuracy"]) == {"severity", "component", "disposition"}
    for by_split in report["accuracy"].values():
        assert set(by_split) == splits and all(0.0 <= v <= 1.0 for v in by_split.values())
    assert set(report["scores"]) == {"random", "heuristic", "oracle", "shallow"}
    for by_split in report["scores"].values():
        assert set(by_split) == splits
        assert all(set(row) == set(LEVELS) and all(0.0 <= v <= 1.0 for v in row.values()) for row in by_split.values())
    assert all(v == 1.0 for row in report["scores"]["oracle"].values() for v in row.values())

    # the table of a second run: same shape, and the same figures (seeded), to the digits it prints
    table = run().splitlines()
    accuracy = {
        line.split()[0]: line.split()[1:] for line in table if line.strip().startswith(tuple(report["accuracy"]))
    }
    for label, by_split in report["accuracy"].items():
        assert accuracy[label] == [f"{by_split[s]:.3f}" for s in ("train", "validation", "test")]
    rows = [line.split() for line in table if line.strip().startswith(tuple(report["scores"]))]
    assert len(rows) == 4 * 3
    for name, split, *cells in rows:
        assert cells[:-1] == [f"{report['scores'][name][split][level]:.3f}" for level in LEVELS]
