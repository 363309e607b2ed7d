"""In-process steps per second of two git revisions, side by side, measured in one run.

    python scripts/bench_step.py                       # 6b00a8f against HEAD
    python scripts/bench_step.py --old main --new .    # main against the working tree
    python scripts/bench_step.py --profile .           # where the working tree's time goes (cProfile)

Each revision is checked out with `git worktree add` in a temporary directory (`.` is the working
tree itself) and imported from there by a child process of this interpreter. A pass plays heuristic
episodes of the three fixed tasks at seeds 1 to 3, reset included; a sample is the CPU time
(`time.process_time`) of `--repeat` passes after one warm-up pass. With `--env-only` a pass replays
the episodes' recorded actions, so only reset and step are timed (`step_result` where there is one). Rounds alternate the revisions
(old, new, then new, old, ...) so that load on the machine falls on both alike; the figure is the
best of `--rounds` samples.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TASKS = ("bug_triage_easy", "bug_triage_medium", "bug_triage_hard")
SEEDS = (1, 2, 3)

CHILD = f"""
import json, sys, time
import openenv_bug_triage
from openenv_bug_triage.policies import HeuristicPolicy, run_episode
from openenv_bug_triage.world import DATA_DIR

tree, repeat, env_only = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "env"
assert openenv_bug_triage.__file__.startswith(tree) and str(DATA_DIR).startswith(tree), (tree, DATA_DIR)


def one_pass():
    return sum(run_episode(HeuristicPolicy(), task, seed).steps for task in TASKS for seed in SEEDS)


def recorded():
    # each episode's heuristic actions, played once
    from openenv_bug_triage.env import BugTriageEnv

    out = []
    for task in TASKS:
        for seed in SEEDS:
            env, policy, done, actions = BugTriageEnv(), HeuristicPolicy(), False, []
            obs = env.reset(task_id=task, seed=seed)
            policy.reset(task, seed)
            while not done:
                actions.append(policy.act(obs))
                obs, _, done, _ = env.step(actions[-1])
            out.append((task, seed, actions))
    return out


def replay_pass():
    from openenv_bug_triage.env import BugTriageEnv

    steps = 0
    for task, seed, actions in EPISODES:
        env = BugTriageEnv()
        env.reset(task_id=task, seed=seed)
        step = getattr(env, "step_result", env.step)  # the typed step where the revision has one
        for action in actions:
            step(action)
        steps += len(actions)
    return steps


TASKS, SEEDS = {TASKS!r}, {SEEDS!r}
EPISODES = recorded() if env_only else []
timed = replay_pass if env_only else one_pass
timed()  # warm-up: fixtures loaded and cached, imports done
start = time.process_time()
steps = sum(timed() for _ in range(repeat))
print(json.dumps({{"steps": steps, "cpu_s": time.process_time() - start}}))
"""

PROFILE = """
import cProfile, pstats, sys
from openenv_bug_triage.policies import HeuristicPolicy, run_episode

def passes():
    for _ in range({repeat}):
        for task in {tasks!r}:
            for seed in {seeds!r}:
                run_episode(HeuristicPolicy(), task, seed)

passes()
profiler = cProfile.Profile()
profiler.runcall(passes)
stats = pstats.Stats(profiler)
stats.sort_stats("tottime").print_stats(20)
stats.sort_stats("cumulative").print_stats(30)
"""


@contextmanager
def checkout(rev: str, tmp: Path) -> Iterator[Path]:
    """The source tree of `rev`: the working tree for `.`, else a detached `git worktree` under `tmp`."""
    if rev == ".":
        yield ROOT
        return
    path = tmp / rev.replace("/", "_")
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=True)


def child_env(tree: Path) -> dict[str, str]:
    """The environment of a child that imports the package and reads the data of `tree` (an editable
    install of this interpreter's environment would otherwise map the data to another checkout)."""
    return {**os.environ, "PYTHONPATH": str(tree), "BUG_TRIAGE_DATA_DIR": str(tree / "data")}


def child_json(tree: Path, code: str, *args: str) -> Any:
    """Run Python `code` with `args` in the checkout at `tree` and parse the JSON of its last output line."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(tree), *args], cwd=tree, env=child_env(tree), capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"the benchmark failed in {tree}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def sample(tree: Path, repeat: int, env_only: bool) -> float:
    """Steps per CPU second of `repeat` passes of the revision checked out at `tree`."""
    got = child_json(tree, CHILD, str(repeat), "env" if env_only else "episodes")
    return float(got["steps"] / got["cpu_s"])


def compare(old: str, new: str, rounds: int, repeat: int, env_only: bool) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        checkout(old, Path(tmp)) as old_tree,
        checkout(new, Path(tmp)) as new_tree,
    ):
        trees = {old: old_tree, new: new_tree}
        samples: dict[str, list[float]] = {old: [], new: []}
        for i in range(rounds):
            order = (old, new) if i % 2 == 0 else (new, old)
            for rev in order:
                samples[rev].append(sample(trees[rev], repeat, env_only))
            print(f"round {i + 1}: " + "  ".join(f"{rev} {samples[rev][-1]:,.0f}" for rev in (old, new)), flush=True)
    best = {rev: max(s) for rev, s in samples.items()}
    what = "their recorded actions replayed, env only" if env_only else "policy included"
    print(f"\nheuristic episodes of {', '.join(TASKS)} at seeds {SEEDS} ({what}), reset included; steps per CPU second")
    print(f"{'revision':<12} {'best':>9} {'median':>9}")
    for rev in (old, new):
        print(f"{rev:<12} {best[rev]:>9,.0f} {statistics.median(samples[rev]):>9,.0f}")
    print(f"{new} / {old}: {best[new] / best[old]:.3f} (best of {rounds})")


def run_at(rev: str, code: str) -> None:
    """Run Python `code` in a throwaway checkout of revision `rev`, importing the package from there."""
    with tempfile.TemporaryDirectory() as tmp, checkout(rev, Path(tmp)) as tree:
        subprocess.run([sys.executable, "-c", code], cwd=tree, env=child_env(tree), check=True)


def profile(rev: str, repeat: int) -> None:
    run_at(rev, PROFILE.format(repeat=repeat, tasks=TASKS, seeds=SEEDS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", default="6b00a8f", help="the reference revision (default 6b00a8f)")
    parser.add_argument("--new", default="HEAD", help="the revision measured against it; `.` is the working tree")
    parser.add_argument("--rounds", type=int, default=5, help="samples per revision; the best counts (default 5)")
    parser.add_argument("--repeat", type=int, default=10, help="passes per sample (default 10)")
    parser.add_argument("--env-only", action="store_true", help="time the env alone, replaying recorded actions")
    parser.add_argument("--profile", metavar="REV", help="instead: cProfile one revision's passes")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.repeat)
    else:
        compare(args.old, args.new, args.rounds, args.repeat, args.env_only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
