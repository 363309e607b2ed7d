"""Print what the queue generator produces: speed, held-out overlap, duplicates, traps, variety.

    python scripts/generator_stats.py --instances 200

Every figure is measured on instances generated in this run (seeds 0 to N-1 of each split).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections import Counter

from figures import run_writing

from openenv_bug_triage.generator import GeneratedTask, generate, load_levels
from openenv_bug_triage.tasks import load_task_file
from openenv_bug_triage.world import DATA_DIR


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def timing(task_id: str, runs: int = 60) -> float:
    """Median CPU milliseconds to generate one instance (each seed is new, so nothing is cached).

    CPU time of this process, not wall time, so that other work on the machine does not count.
    """
    times = []
    for seed in range(10_000, 10_000 + runs):
        start = time.process_time()
        generate(task_id, seed, "train")
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def reference_timing(runs: int = 60) -> float:
    """Median CPU milliseconds to parse, check and build the fixed hard task from its JSON file."""
    path = DATA_DIR / "tasks" / "bug_triage_hard.json"
    times = []
    for _ in range(runs):
        start = time.process_time()
        load_task_file(path)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=200, help="instances per level and split (default 200)")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()
    levels = [lv.task_id for lv in load_levels().levels]

    print("generation time, median CPU ms of 60 instances")
    for task_id in levels:
        print(f"  {task_id:<18}{timing(task_id):>8.2f}")
    print(f"  {'reference':<18}{reference_timing():>8.2f}  (load and check the fixed 25-ticket hard fixture)")

    made: dict[str, list[GeneratedTask]] = {
        split: [generate(t, s, split) for t in levels for s in range(min(args.instances, 200))]
        for split in ("train", "validation", "test")
    }
    train_evidence = {s for m in made["train"] for f in m.facts.values() for _, s in f.evidence}
    train_titles = {t.title.lower() for m in made["train"] for t in m.task.tickets}
    train_scenarios = {f.scenario for m in made["train"] for f in m.facts.values()}
    print("\nheld-out overlap with the train split (share of tickets)")
    for split in ("validation", "test"):
        tickets = [(m, t) for m in made[split] for t in m.task.tickets]
        evidence = sum(any(s in train_evidence for _, s in m.facts[t.ticket_id].evidence) for m, t in tickets)
        titles = sum(t.title.lower() in train_titles for _, t in tickets)
        scenarios = sum(m.facts[t.ticket_id].scenario in train_scenarios for m, t in tickets)
        n = len(tickets)
        print(
            f"  {split:<11} {n} tickets: deciding sentence seen in train {evidence / n:.4f}, "
            f"title {titles / n:.4f}, scenario {scenarios / n:.4f}"
        )

    print("\nduplicates and traps per level (train split)")
    for task_id in levels:
        instances = [m for m in made["train"] if m.task.task_id == task_id]
        tickets = [t for m in instances for t in m.task.tickets]
        dups, unlike, traps = 0, 0, Counter()
        for m in instances:
            for t in m.task.tickets:
                traps.update(m.facts[t.ticket_id].traps)
                original = m.task.truth[t.ticket_id].duplicate_of
                if original:
                    dups += 1
                    o = m.task.by_id[original]
                    unlike += jaccard(words(t.title), words(o.title)) < 0.2
        rates = ", ".join(f"{k} {v / len(tickets):.2f}" for k, v in sorted(traps.items()))
        print(
            f"  {task_id:<18} duplicates {dups / len(tickets):.2f} (of them titled unlike their original {unlike / max(dups, 1):.2f})"
        )
        print(f"  {'':<18} traps per ticket: {rates or 'none'}")

    descriptions = [t.description for m in made["train"] for t in m.task.tickets][:1000]
    shared = sum(n for n in Counter(descriptions).values() if n > 1)
    print(f"\n{len(descriptions)} train tickets: {shared / len(descriptions):.4f} share a description with another")


if __name__ == "__main__":
    run_writing(main, "generator_stats", "generator_stats.py")
