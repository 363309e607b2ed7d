"""Train a model to triage with TRL's GRPO, the environment offered as tools (`BugTriageToolEnv`).

On a GPU machine (see the README's "Training with TRL" section):

    pip install "openenv-bug-triage[server,train]"
    python scripts/train_grpo.py --model Qwen/Qwen3-1.7B --tasks generated_easy generated_medium

`--cpu` trains on the CPU (in float32 unless `--bf16`): slow for a real model, and what
`make test-train` uses to run real trainer steps with a tiny model built locally
(`tests/test_train_cpu.py`). `--report-to` picks the loggers (`none` by default).

`--env-url URL` runs the episodes on a Bug Triage server over its WebSocket (set that server's
`MAX_SESSIONS` to at least the number of rollouts in flight). `--dry-run` builds the same dataset
rows and environment factory, then plays rows with a scripted policy (the oracle's moves) through the same
tool calls a model would make, and prints what a run would see: no torch, no TRL.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.sources import load_task
from openenv_bug_triage.tools import (
    ENV_URL_VARIABLE,
    BugTriageToolEnv,
    DenseRewardToolEnv,
    eval_rows,
    train_rows,
)

TASKS = ["generated_easy", "generated_medium", "generated_hard"]
"""Train on generated queues; the fixed `bug_triage_*` tasks are the benchmark to report on."""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="Qwen/Qwen3-1.7B", help="a chat model trained for tool calling")
    p.add_argument("--tasks", nargs="+", default=TASKS, help="task ids (fixed bug_triage_* or generated_*)")
    p.add_argument("--train-episodes", type=int, default=256, help="training rows per task")
    p.add_argument(
        "--eval-episodes", type=int, default=8, help="evaluation rows per task (never a training episode); 0: none"
    )
    p.add_argument("--eval-split", default="validation", help="generated tasks' evaluation split: validation or test")
    p.add_argument("--reward", choices=["score", "dense"], default="score", help="grader score, or summed step rewards")
    p.add_argument("--env-url", default=None, help=f"run episodes on this server (sets {ENV_URL_VARIABLE})")
    p.add_argument("--num-generations", type=int, default=8, help="rollouts per row (the GRPO group)")
    p.add_argument("--per-device-batch-size", type=int, default=8)
    p.add_argument("--gradient-accumulation-steps", type=int, default=4)
    p.add_argument("--max-completion-length", type=int, default=16384, help="tokens over all turns and tool results")
    p.add_argument("--max-tool-calls", type=int, default=64, help="tool-calling turns per rollout")
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--max-steps", type=int, default=500)
    p.add_argument("--output-dir", default="artifacts/grpo-bug-triage")
    p.add_argument("--eval-steps", type=int, default=50, help="evaluate every this many steps")
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (colocated)")
    p.add_argument("--cpu", action="store_true", help="train on the CPU even when a GPU is there")
    p.add_argument(
        "--bf16",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train in bfloat16 (default: on a GPU yes, with --cpu no)",
    )
    p.add_argument("--report-to", default="none", help="loggers for TRL: none, all, wandb, tensorboard, trackio, ...")
    p.add_argument(
        "--log-completions",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="print sampled completions and save them under OUTPUT_DIR/completions at each logging step",
    )
    p.add_argument("--dry-run", action="store_true", help="play the rows with a scripted policy; no torch, no TRL")
    p.add_argument("--dry-run-rows", type=int, default=6, help="rows the dry run plays")
    return p.parse_args(argv)


def environment_class(reward: str) -> type[BugTriageToolEnv]:
    """The factory TRL calls once per rollout slot."""
    return DenseRewardToolEnv if reward == "dense" else BugTriageToolEnv


def scripted_rollout(env: BugTriageToolEnv, row: dict[str, Any]) -> dict[str, Any]:
    """One rollout the way the trainer runs it: reset with the row, tool calls by name, errors as text, reward."""
    texts = [env.reset(**row)]
    errors = 0
    for action in oracle_actions(load_task(row["task_id"], row["seed"], row.get("split"))):
        args = {k: v for k, v in action.items() if k != "action_type"}
        try:
            texts.append(getattr(env, action["action_type"])(**args))
        except Exception as exc:  # the trainer shows the error to the model and goes on
            texts.append(f"error: {exc}")
            errors += 1
    return {"calls": len(texts) - 1, "errors": errors, "chars": sum(map(len, texts)), "reward": env.get_reward()}


def evaluation_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The evaluation rows the options ask for (none with `--eval-episodes 0`)."""
    return eval_rows(args.tasks, args.eval_episodes, args.eval_split) if args.eval_episodes else []


def dry_run(args: argparse.Namespace) -> int:
    factory = environment_class(args.reward)
    train = train_rows(args.tasks, args.train_episodes)
    evaluation = evaluation_rows(args)
    print(f"dataset: {len(train)} training rows, {len(evaluation)} evaluation rows, tasks {args.tasks}")
    where = os.environ.get(ENV_URL_VARIABLE) or "in-process"
    print(f"environment: {factory.__name__} ({where}), reward {args.reward}")
    env = factory()  # one instance reused across rows, as the trainer's pool does
    print(f"{'row':<30} {'calls':>5} {'errors':>6} {'chars':>7} {'reward':>7}")
    for row in (train + evaluation)[: args.dry_run_rows]:
        out = scripted_rollout(env, row)
        label = "/".join(str(row[k]) for k in ("task_id", "split", "seed") if row[k] is not None)
        print(f"{label:<30} {out['calls']:>5} {out['errors']:>6} {out['chars']:>7} {out['reward']:>7.3f}")
    return 0


def grpo_config(args: argparse.Namespace) -> Any:
    """TRL's `GRPOConfig` for the options (imports TRL)."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=args.output_dir,
        learning_rate=args.learning_rate,
        max_steps=args.max_steps,
        num_generations=args.num_generations,
        per_device_train_batch_size=args.per_device_batch_size,
        gradient_accumulation_steps=args.gradient_accumulation_steps,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.max_tool_calls,
        chat_template_kwargs={"enable_thinking": False},
        use_cpu=args.cpu,
        bf16=not args.cpu if args.bf16 is None else args.bf16,
        report_to=args.report_to,
        use_vllm=args.use_vllm,
        vllm_mode="colocate",
        log_completions=args.log_completions,
        eval_strategy="steps" if args.eval_episodes else "no",
        eval_steps=args.eval_steps,
        logging_steps=1,
    )


def build_trainer(args: argparse.Namespace, model: Any = None) -> Any:
    """`GRPOTrainer` over the options' rows and environment; `model` (a model object) replaces `--model`."""
    from datasets import Dataset
    from trl import GRPOTrainer

    evaluation = evaluation_rows(args)
    return GRPOTrainer(
        model=args.model if model is None else model,
        args=grpo_config(args),
        train_dataset=Dataset.from_list(train_rows(args.tasks, args.train_episodes)),
        eval_dataset=Dataset.from_list(evaluation) if evaluation else None,
        environment_factory=environment_class(args.reward),  # its get_reward() is the reward
    )


def train(args: argparse.Namespace) -> int:
    trainer = build_trainer(args)
    trainer.train()
    trainer.save_model(args.output_dir)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.env_url:
        os.environ[ENV_URL_VARIABLE] = args.env_url
    return dry_run(args) if args.dry_run else train(args)


if __name__ == "__main__":
    raise SystemExit(main())
