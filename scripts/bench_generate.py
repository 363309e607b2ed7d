"""Median CPU milliseconds to generate one queue, two git revisions side by side in one run.

    python scripts/bench_generate.py                       # main against the working tree
    python scripts/bench_generate.py --old 9ae0d4b --new HEAD
    python scripts/bench_generate.py --profile .           # where the working tree's time goes (cProfile)

A sample is what `generator_stats.py` prints as "generate N tickets, median CPU ms": the median
`time.process_time` of generating seeds 10000 to 10000+`--runs` of the train split, each seed new,
after one warm-up instance (imports and loaded-once data). Each revision is checked out as in
`bench_step.py` and imported by a child process; rounds alternate the revisions so that load on the
machine falls on both alike, and the figure is the best of `--rounds` medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench_step import checkout, child_json, run_at

TASKS = ("generated_hard", "generated_expert")
"""The 25- and 50-ticket levels, whose targets are 5 and 10 ms."""

CHILD = """
import json, statistics, sys, time
import openenv_bug_triage
from openenv_bug_triage.generator import generate
from openenv_bug_triage.world import DATA_DIR

tree, runs, tasks = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
assert openenv_bug_triage.__file__.startswith(tree) and str(DATA_DIR).startswith(tree), (tree, DATA_DIR)
medians = {}
for task in tasks:
    generate(task, 9_999, "train")  # warm-up: imports done, loaded-once data read
    times = []
    for seed in range(10_000, 10_000 + runs):
        start = time.process_time()
        generate(task, seed, "train")
        times.append(time.process_time() - start)
    medians[task] = statistics.median(times) * 1000
print(json.dumps(medians))
"""

PROFILE = """
import cProfile, pstats
from openenv_bug_triage.generator import generate

def passes():
    for task in {tasks!r}:
        for seed in range(10_000, 10_000 + {runs}):
            generate(task, seed, "train")

generate("generated_hard", 9_999, "train")
profiler = cProfile.Profile()
profiler.runcall(passes)
stats = pstats.Stats(profiler)
stats.sort_stats("tottime").print_stats(30)
stats.sort_stats("cumulative").print_stats(40)
"""


def sample(tree: Path, runs: int) -> dict[str, float]:
    """Median CPU ms per task id of the revision checked out at `tree`."""
    return {task: float(ms) for task, ms in child_json(tree, CHILD, str(runs), *TASKS).items()}


def compare(old: str, new: str, rounds: int, runs: int) -> None:
    """Print each round's medians, then the best and the median of the rounds per revision and task."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        checkout(old, Path(tmp)) as old_tree,
        checkout(new, Path(tmp)) as new_tree,
    ):
        trees = {old: old_tree, new: new_tree}
        samples: dict[str, list[dict[str, float]]] = {old: [], new: []}
        for i in range(rounds):
            for rev in (old, new) if i % 2 == 0 else (new, old):
                samples[rev].append(sample(trees[rev], runs))
            cells = "  ".join(f"{rev} {task} {samples[rev][-1][task]:.2f}" for rev in (old, new) for task in TASKS)
            print(f"round {i + 1}: {cells}", flush=True)
    print(f"\nmedian CPU ms to generate one train instance ({runs} seeds a sample), best and median of {rounds} rounds")
    print(f"{'revision':<12} {'task':<18} {'best':>7} {'median':>7}")
    for task in TASKS:
        for rev in (old, new):
            values = [s[task] for s in samples[rev]]
            print(f"{rev:<12} {task:<18} {min(values):>7.2f} {statistics.median(values):>7.2f}")


def profile(rev: str, runs: int) -> None:
    """cProfile `runs` instances of each task at revision `rev`: by own time, then cumulative."""
    run_at(rev, PROFILE.format(tasks=TASKS, runs=runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", default="main", help="the reference revision (default main)")
    parser.add_argument("--new", default=".", help="the revision measured against it; `.` is the working tree")
    parser.add_argument("--rounds", type=int, default=3, help="samples per revision; the best counts (default 3)")
    parser.add_argument("--runs", type=int, default=40, help="seeds timed per task in a sample (default 40)")
    parser.add_argument("--profile", metavar="REV", help="instead: cProfile one revision's generation")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be at least 1")
    if args.profile:
        profile(args.profile, args.runs)
    else:
        compare(args.old, args.new, args.rounds, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
