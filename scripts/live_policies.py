"""The live queues' reference table: does gathering information pay, and can it be farmed?

    python scripts/live_policies.py                      # 100 test instances of each live level
    python scripts/live_policies.py --episodes 20 --split validation
    python scripts/live_policies.py --write              # also into the `live_policies` figure block

Each policy plays the same instances of every level with dynamics (`TaskInfo.dynamics`):

- `never_ask`: the heuristic that never asks and never searches (a vague report is settled as a bug);
- `ask_all`: asks every reporter first, then plays the heuristic on what comes back;
- `search_always`: the heuristic with a tracker search before every action;
- `heuristic`: asks vague reporters, searches before settling a customer's report as a new bug;
- `random` and `oracle` (asks exactly what settles a vague report, searches before linking the history).

It prints each policy's mean score, the lowest and the share of instances the policy finished within the
budget, and exits with status 1 when the oracle misses 1.0 on any instance, when asking for everything
scores above the heuristic, or when never asking is not clearly (0.02) below the oracle.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable

from figures import run_writing

from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.episode import Policy, start
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy
from openenv_bug_triage.sources import task_infos

POLICIES: dict[str, Callable[[], Policy]] = {
    "never_ask": lambda: HeuristicPolicy(name="never_ask", asks="never", searches="never"),
    "ask_all": lambda: HeuristicPolicy(name="ask_all", asks="always"),
    "search_always": lambda: HeuristicPolicy(name="search_always", searches="always"),
    "heuristic": HeuristicPolicy,
    "random": RandomPolicy,
    "oracle": OraclePolicy,
}


def live_levels() -> list[str]:
    """Every task with dynamics, in the order the sources list them."""
    return [info.task_id for info in task_infos() if info.dynamics]


def play(make: Callable[[], Policy], task_id: str, seed: int, split: str) -> tuple[float, bool]:
    """One episode's score, and whether it ended with every ticket settled (not on the budget)."""
    env = BugTriageEnv()
    episode = start(env, make(), task_id, seed, split).play()
    return env.grade().score, bool(episode.steps[-1].result.info.terminated)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100, help="instances per level (seeds 0..N-1)")
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"])
    parser.add_argument("--write", action="store_true", help="also write the table into its figure block")
    args = parser.parse_args()
    levels = live_levels()
    problems: list[str] = []
    print(f"{args.episodes} {args.split} instances per level; mean score (lowest) and share finished in budget")
    print("| policy | " + " | ".join(levels) + " |")
    print("|---|" + "---|" * len(levels))
    means: dict[tuple[str, str], float] = {}
    for name, make in POLICIES.items():
        cells = []
        for task_id in levels:
            runs = [play(make, task_id, seed, args.split) for seed in range(args.episodes)]
            scores = [score for score, _ in runs]
            means[name, task_id] = statistics.mean(scores)
            finished = sum(done for _, done in runs) / len(runs)
            cells.append(f"{means[name, task_id]:.3f} ({min(scores):.3f}), {finished:.0%}")
            if name == "oracle" and min(scores) < 1.0:
                problems.append(f"the oracle scores {min(scores):.3f} on an instance of {task_id}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for task_id in levels:
        if means["ask_all", task_id] > means["heuristic", task_id]:
            problems.append(f"asking for everything beats the heuristic on {task_id}")
        if means["never_ask", task_id] > means["oracle", task_id] - 0.02:
            problems.append(f"never asking is not clearly below the oracle on {task_id}")
    print("PASS" if not problems else "FAIL: " + "; ".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    codes: list[int] = []
    run_writing(lambda: codes.append(main()), "live_policies", "live_policies.py")
    sys.exit(codes[0])
