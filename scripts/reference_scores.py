"""Print the reference policies' scores per task: mean and standard deviation over episodes.

    python scripts/reference_scores.py                                   # fixed tasks, seed 42
    python scripts/reference_scores.py --seeds 1 2 3 4 5 6 7 8 9 10     # fixed tasks, ten shuffles
    python scripts/reference_scores.py --tasks generated --split test --episodes 200

Fixed tasks use the seeds given (default 42). Generated tasks play `--episodes` instances of
`--split`, seeds 0 to N-1 (the same instances every run), so a held-out score reproduces.
`--tasks` takes task ids, or `fixed`, `generated` or `all`.
"""

from __future__ import annotations

import argparse
import statistics

from openenv_bug_triage.policies import POLICIES, run_episode
from openenv_bug_triage.sources import is_generated, task_infos


def pick_tasks(names: list[str]) -> list[str]:
    """Expand `fixed`, `generated` and `all` into task ids, keeping order."""
    infos = task_infos()
    groups = {
        "fixed": [i.task_id for i in infos if i.splits is None],
        "generated": [i.task_id for i in infos if i.splits is not None],
        "all": [i.task_id for i in infos],
    }
    out: list[str] = []
    for name in names:
        out.extend(groups.get(name, [name]))
    return list(dict.fromkeys(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["fixed"], help="task ids, or fixed / generated / all")
    parser.add_argument("--seeds", type=int, nargs="+", default=[42], help="fixed tasks: seeds to average over")
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"], help="generated tasks")
    parser.add_argument("--episodes", type=int, default=50, help="generated tasks: instances (seeds 0..N-1)")
    args = parser.parse_args()
    tasks = pick_tasks(args.tasks)
    header = f"{'policy':<10}" + "".join(f"{t:>22}" for t in tasks)
    print(header)
    print("-" * len(header))
    for name, policy_cls in POLICIES.items():
        cells = []
        for task_id in tasks:
            if is_generated(task_id):
                runs = [(s, args.split) for s in range(args.episodes)]
            else:
                runs = [(s, None) for s in args.seeds]
            scores = [run_episode(policy_cls(), task_id, seed, split).grade.score for seed, split in runs]
            sd = statistics.pstdev(scores) if len(scores) > 1 else 0.0
            cells.append(f"{statistics.fmean(scores):.3f} ± {sd:.3f}")
        print(f"{name:<10}" + "".join(f"{c:>22}" for c in cells))


if __name__ == "__main__":
    main()
