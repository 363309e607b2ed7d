"""Real TRL `GRPOTrainer` steps on the CPU with `environment_factory`, through `scripts/train_grpo.py`.

The model and tokenizer are built here by `scripts/tiny_model.py`, nothing downloaded, and
`tiny_lm.py` scripts the model's sampling. These tests need the training stack (`pip install -r
requirements-train.txt`) and run with `make test-train`; without it they are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="the training stack is not installed: pip install -r requirements-train.txt")

import measure_prompt
import torch
import train_grpo
from datasets import Dataset
from tiny_lm import load_scripted
from tiny_model import save_tiny_model
from transformers import PreTrainedTokenizerFast

from openenv_bug_triage.tools import EVAL_FIRST_SEED, BugTriageToolEnv, eval_rows, train_rows

pytestmark = pytest.mark.train

MIXED = ["bug_triage_easy", "generated_easy"]  # a fixed task first: its rows once had no `split` column


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("tiny-qwen2"))


def cpu_args(model: Path, output_dir: Path, *extra: str) -> list[str]:
    return [
        "--model", str(model), "--cpu", "--tasks", *MIXED, "--output-dir", str(output_dir),
        "--train-episodes", "2", "--eval-episodes", "1", "--num-generations", "2",
        "--per-device-batch-size", "2", "--gradient-accumulation-steps", "1",
        "--max-completion-length", "256", "--max-tool-calls", "2", *extra,
    ]  # fmt: skip


class Spy:
    """Records every reset row and every action the trainer's environments receive, with the episode's opening."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.resets: list[dict[str, Any]] = []
        self.actions: list[tuple[str, dict[str, Any]]] = []
        self.results: list[str] = []
        openings: dict[int, str] = {}
        reset, act = BugTriageToolEnv.reset, BugTriageToolEnv._act

        def spy_reset(env: BugTriageToolEnv, **row: Any) -> str:
            self.resets.append({k: row.get(k) for k in ("task_id", "seed", "split")})
            openings[id(env)] = reset(env, **row)
            return openings[id(env)]

        def spy_act(env: BugTriageToolEnv, action: dict[str, Any]) -> str:
            self.actions.append((openings[id(env)], action))
            self.results.append(act(env, action))
            return self.results[-1]

        monkeypatch.setattr(BugTriageToolEnv, "reset", spy_reset)
        monkeypatch.setattr(BugTriageToolEnv, "_act", spy_act)


def second_ticket(opening: str) -> str:
    queue = opening.split("<<<QUEUE>>>\n", 1)[1].splitlines()
    return queue[1].split(" | ", 1)[0]


def test_a_dataset_of_mixed_rows_keeps_split_and_no_evaluation_row_plays_a_training_instance() -> None:
    train, evaluation = Dataset.from_list(train_rows(MIXED, 2)), Dataset.from_list(eval_rows(MIXED, 2))
    assert train.column_names == evaluation.column_names == ["task_id", "seed", "split", "prompt"]
    assert [(r["task_id"], r["seed"], r["split"]) for r in evaluation] == [
        ("bug_triage_easy", EVAL_FIRST_SEED, None),
        ("generated_easy", 0, "validation"),
        ("bug_triage_easy", EVAL_FIRST_SEED + 1, None),
        ("generated_easy", 1, "validation"),
    ]
    env = BugTriageToolEnv()
    trained = {env.reset(**row) for row in train}
    for row in evaluation:  # the instance the row names, and none that training plays
        opening = env.reset(**row)
        named = {"task_id": row["task_id"], "seed": row["seed"]} | ({"split": row["split"]} if row["split"] else {})
        assert opening == env.reset(**named)
        assert opening not in trained


def test_two_grpo_steps_on_cpu_log_the_environment_reward_and_reach_the_environment(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(monkeypatch)
    args = train_grpo.parse_args(
        cpu_args(tiny_model, tmp_path, "--max-steps", "2", "--reward", "dense", "--learning-rate", "0.01")
    )
    model = load_scripted(tiny_model)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    trainer = train_grpo.build_trainer(args, model=model)
    assert trainer.args.use_cpu and not trainer.args.bf16 and trainer.args.report_to == []
    trainer.train()

    logs = trainer.state.log_history
    steps = [log for log in logs if "rewards/DenseRewardToolEnv/mean" in log]
    assert [log["step"] for log in steps] == [1, 2]
    for log in steps:  # one member of each group called next_ticket (-0.01, a ticket switch), the other no tool
        assert log["tools/call_frequency"] == 0.5 and log["tools/failure_frequency"] == 0.0
        assert log["rewards/DenseRewardToolEnv/mean"] == pytest.approx(-0.005)
        assert log["reward_std"] > 0 and log["grad_norm"] > 0
    assert any(not torch.equal(before[name], p) for name, p in model.named_parameters())
    (evaluation,) = [log for log in logs if "eval_rewards/DenseRewardToolEnv/mean" in log]  # after the last step
    assert evaluation["eval_tools/call_frequency"] == 0.5

    assert len(spy.actions) == 4  # two training steps and one evaluation of two rows, half of the rollouts calling
    for opening, action in spy.actions:  # the call the script read off the queue, with its argument
        assert action == {"action_type": "next_ticket", "ticket_id": second_ticket(opening)}
    # the prompt scripts/measure_prompt.py measures is the one the trainer tokenized: the first step's tokens are
    # two such prompts, two completions of at most --max-completion-length (256) each, and the one tool result
    # (the newly focused ticket in full, which the completion length does not cap)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(tiny_model)
    train, evaluated = train_rows(MIXED, 2), eval_rows(MIXED, 1)
    (row,) = [r for r in train if {k: r[k] for k in spy.resets[0]} == spy.resets[0]]
    prompt_tokens = len(tokenizer(measure_prompt.render(tokenizer, BugTriageToolEnv(), row))["input_ids"])
    tool_tokens = len(tokenizer(spy.results[0])["input_ids"])
    assert 2 * prompt_tokens < steps[0]["num_tokens"] <= 2 * (prompt_tokens + 256) + tool_tokens

    played = {(r["task_id"], r["seed"], r["split"]) for r in spy.resets}
    train_named, eval_named = ({(r["task_id"], r["seed"], r["split"]) for r in rows} for rows in (train, evaluated))
    assert eval_named == {("bug_triage_easy", EVAL_FIRST_SEED, None), ("generated_easy", 0, "validation")}
    assert played & eval_named == eval_named  # evaluation played the instances its rows name
    assert played - eval_named and played - eval_named <= train_named  # training played only training rows


def test_the_script_trains_a_model_given_by_path_on_cpu_and_saves_it(tiny_model: Path, tmp_path: Path) -> None:
    options = ("--max-steps", "1", "--max-completion-length", "16", "--eval-episodes", "0")
    assert train_grpo.main(cpu_args(tiny_model, tmp_path, *options)) == 0
    assert (tmp_path / "model.safetensors").is_file() and (tmp_path / "chat_template.jinja").is_file()
