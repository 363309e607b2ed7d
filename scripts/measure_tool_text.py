"""Bytes an agent reads: the tool environment's text against the full observation, over one oracle episode.

    python scripts/measure_tool_text.py [--tasks bug_triage_easy bug_triage_medium bug_triage_hard] [--seed 42]

The full observation is `ObservationModel` as JSON (what `/step` and the WebSocket send); the
tool text is what `BugTriageToolEnv.reset` and its tools return. Both are counted in UTF-8 bytes,
for the opening (reset) and per step. `--write` puts a summary table of the three fixed tasks into
the docs' `<!-- figures:tool_text -->` block.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass

from figures import replace_blocks, report_written

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.tools import BugTriageToolEnv


@dataclass(frozen=True)
class Sizes:
    """UTF-8 bytes of the opening and of each step's text."""

    opening: int
    steps: tuple[int, ...]

    @property
    def episode(self) -> int:
        return self.opening + sum(self.steps)


def observation_sizes(task_id: str, seed: int) -> Sizes:
    env = BugTriageEnv()
    opening = len(env.reset(task_id=task_id, seed=seed).model_dump_json().encode())
    steps = [len(env.step(action)[0].model_dump_json().encode()) for action in oracle_actions(task_id)]
    return Sizes(opening, tuple(steps))


def tool_sizes(task_id: str, seed: int) -> Sizes:
    env = BugTriageToolEnv()
    opening = len(env.reset(task_id=task_id, seed=seed).encode())
    steps = []
    for action in oracle_actions(task_id):
        args = {k: v for k, v in action.items() if k != "action_type"}
        steps.append(len(getattr(env, action["action_type"])(**args).encode()))
    return Sizes(opening, tuple(steps))


def table(task_ids: list[str], seed: int) -> str:
    """The figure block: per task, mean step and episode bytes of both texts and their ratio (a Markdown table)."""
    lines = [
        f"`python scripts/measure_tool_text.py --seed {seed}` (oracle episode, UTF-8 bytes, the opening included):",
        "",
        "| task | steps | full observation: mean step / episode | tool text: mean step / episode | ratio |",
        "|---|---|---|---|---|",
    ]
    for task_id in task_ids:
        full, tools = observation_sizes(task_id, seed), tool_sizes(task_id, seed)
        lines.append(
            f"| `{task_id}` | {len(full.steps)} | {statistics.mean(full.steps):,.0f} / {full.episode:,}"
            f" | {statistics.mean(tools.steps):,.0f} / {tools.episode:,} | {tools.episode / full.episode:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=list(TASK_IDS), help="default: the three fixed tasks")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--write", action="store_true", help="write the summary table into the docs' figure block")
    args = parser.parse_args()
    for task_id in args.tasks:
        full, tools = observation_sizes(task_id, args.seed), tool_sizes(task_id, args.seed)
        print(f"{task_id}, seed {args.seed}, oracle episode of {len(full.steps)} steps (bytes)")
        print(f"{'':<22}{'opening':>10}{'mean step':>11}{'max step':>10}{'episode':>10}")
        for name, s in (("full observation", full), ("tool text", tools)):
            print(f"{name:<22}{s.opening:>10}{statistics.mean(s.steps):>11.0f}{max(s.steps):>10}{s.episode:>10}")
        print(f"tool text / full observation over the episode: {tools.episode / full.episode:.3f}\n")

    if args.write:
        report_written("tool_text", replace_blocks("tool_text", table(list(TASK_IDS), args.seed)))


if __name__ == "__main__":
    main()
