"""The prompt a trainer sends for a row, in characters and tokens: instructions and handbook, tool schemas, opening.

    python scripts/measure_prompt.py [--tokenizer NAME_OR_PATH] [--tasks generated_easy ...] [--write]

TRL's `GRPOTrainer` appends the opening text `reset(**row)` returns to the row's user message and
renders the messages, with one JSON schema per tool, through the model's chat template. This
renders the first training row of each task the same way. Without `--tokenizer` the tokenizer is
the tiny one of `scripts/tiny_model.py` (byte-level BPE, about 2,000 tokens trained on this
environment's text, with TRL's Qwen 2.5 template); a hub tokenizer such as `Qwen/Qwen3-1.7B`
needs network access. `--write` puts the table into the docs' `<!-- figures:prompt_size -->` block.
Needs the training stack (`pip install -r requirements-train.txt`).
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from figures import run_writing
from transformers.utils import get_json_schema

from openenv_bug_triage.sources import task_infos
from openenv_bug_triage.tools import BugTriageToolEnv, train_rows


def tool_methods(env: BugTriageToolEnv) -> list[Callable[..., str]]:
    """The methods TRL offers as tools: the class's public functions other than `reset` and `get_reward`."""
    names = [n for n, _ in inspect.getmembers(type(env), inspect.isfunction) if not n.startswith("_")]
    return [getattr(env, n) for n in names if n not in ("reset", "get_reward")]


def prompt_messages(env: BugTriageToolEnv, row: dict[str, Any]) -> list[dict[str, str]]:
    """The row's messages with the opening text appended to the user message, as TRL sends them."""
    *before, user = (dict(m) for m in row["prompt"])
    return [*before, {**user, "content": user["content"] + env.reset(**row)}]


def render(tokenizer: Any, env: BugTriageToolEnv, row: dict[str, Any]) -> str:
    """The prompt text the model reads, up to and including the assistant's header."""
    text: str = tokenizer.apply_chat_template(
        prompt_messages(env, row),
        tools=tool_methods(env),
        tokenize=False,
        add_generation_prompt=True,
        enable_thinking=False,  # what scripts/train_grpo.py passes
    )
    return text


@dataclass(frozen=True)
class PromptSize:
    """One task's prompt, in characters by part and in total, and in tokens."""

    task_id: str
    system: int
    tools: int
    opening: int
    rendered: int
    tokens: int


def measure(tokenizer: Any, task_id: str) -> PromptSize:
    env = BugTriageToolEnv()
    (row,) = train_rows([task_id], 1)
    messages = prompt_messages(env, row)
    text = render(tokenizer, env, row)
    return PromptSize(
        task_id=task_id,
        system=len(messages[0]["content"]),
        tools=sum(len(json.dumps(get_json_schema(tool))) for tool in tool_methods(env)),
        opening=len(messages[-1]["content"]) - len(row["prompt"][-1]["content"]),
        rendered=len(text),
        tokens=len(tokenizer(text, add_special_tokens=False)["input_ids"]),
    )


def table(sizes: list[PromptSize]) -> str:
    lines = [
        "| task | instructions and handbook | tool schemas | opening | rendered | tokens |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.task_id} | {s.system:,} | {s.tools:,} | {s.opening:,} | {s.rendered:,} | {s.tokens:,} |" for s in sizes
    ]
    return "\n".join(lines)


def load_tokenizer(name: str | None) -> Any:
    if name is None:
        from tiny_model import build_tokenizer

        return build_tokenizer()
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokenizer", default=None, help="a tokenizer's hub name or path (default: the tiny test one)")
    p.add_argument("--tasks", nargs="+", default=[info.task_id for info in task_infos()])
    p.add_argument("--write", action="store_true", help="write the table into the docs' figure block")
    args = p.parse_args(argv)
    tokenizer = load_tokenizer(args.tokenizer)
    which = args.tokenizer or f"the tiny test tokenizer ({len(tokenizer):,} tokens)"
    print(f"Characters by part of the prompt, then the rendered prompt in characters and in tokens of {which}:\n")
    print(table([measure(tokenizer, task_id) for task_id in args.tasks]))
    return 0


if __name__ == "__main__":
    run_writing(main, "prompt_size", "measure_prompt.py")
