"""Print how much structured fields alone give away: a decision tree's gain from non-causal fields, and a field-only policy.

    python scripts/surface_audit.py --instances 400

Trains on train-split tickets of every generated level and scores on test-split tickets.
"""

from __future__ import annotations

import argparse
import statistics
import time

from figures import run_writing

from openenv_bug_triage.generator import generate, load_levels
from openenv_bug_triage.policies import HeuristicPolicy, run_episode
from openenv_bug_triage.surface import TARGETS, fit_structured_policy, surface_report


def tickets(split: str, instances: int) -> list:
    pairs = []
    for level in load_levels().levels:
        for seed in range(instances):
            task = generate(level.task_id, seed, split).task
            pairs.extend((t, task.truth[t.ticket_id]) for t in task.tickets)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=400, help="instances per level and split (default 400)")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()
    start = time.perf_counter()
    train, test = tickets("train", args.instances), tickets("test", args.instances)
    print(f"{len(train)} train tickets, {len(test)} test tickets")
    print(f"{'target':<12}{'causal':>10}{'all fields':>12}{'gain':>8}")
    for name in TARGETS:
        r = surface_report(train, test, name)
        print(f"{name:<12}{r.causal:>10.3f}{r.all_fields:>12.3f}{r.gain:>+8.3f}")
    print(
        "\nscore on the test split (seeds 0-49): a policy fitted on train tickets' structured fields vs the heuristic"
    )
    fields_only = fit_structured_policy(train)
    for level in load_levels().levels:
        scores = {
            name: statistics.fmean(run_episode(policy, level.task_id, s, "test").grade.score for s in range(50))
            for name, policy in (("fields only", fields_only), ("heuristic", HeuristicPolicy()))
        }
        print(f"{level.task_id:<18}" + "".join(f"{k} {v:.3f}   " for k, v in scores.items()))
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    run_writing(main, "surface_audit", "surface_audit.py")
