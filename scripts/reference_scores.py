"""Print the reference policies' scores per task (the table in the README).

    python scripts/reference_scores.py [--seeds 42 43 44]

Scores are averaged over the seeds given; the default is seed 42 alone.
"""

from __future__ import annotations

import argparse
import statistics

from openenv_bug_triage.policies import POLICIES, run_episode
from openenv_bug_triage.tasks import TASK_IDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[42], help="seeds to average over")
    args = parser.parse_args()
    header = f"{'policy':<10}" + "".join(f"{t:>20}" for t in TASK_IDS) + f"{'mean':>8}"
    print(header)
    print("-" * len(header))
    for name, policy_cls in POLICIES.items():
        means = []
        for task_id in TASK_IDS:
            scores = [run_episode(policy_cls(), task_id, seed).grade.score for seed in args.seeds]
            means.append(statistics.fmean(scores))
        cells = "".join(f"{m:>20.3f}" for m in means)
        print(f"{name:<10}{cells}{statistics.fmean(means):>8.3f}")


if __name__ == "__main__":
    main()
