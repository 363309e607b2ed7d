"""Throughput of one server process against three behind HAProxy, side by side in one run; figures only.

    python scripts/bench_replicas.py [--clients 16] [--seconds 8] [--rounds 2] [--write]

Three set-ups, measured in turn `--rounds` times so that drift on a shared machine hits them alike:
one process reached directly; the same process behind HAProxy (`deploy/haproxy.cfg` with all three
slots on it: the balancer's own cost); three processes behind HAProxy (`scripts/replicas.py`).
In each, `--clients` clients at once (threads in `--client-procs` processes, so the load generator is
not held to one core by the GIL) play heuristic `bug_triage_medium` episodes over HTTP, then over the
WebSocket, resetting between episodes. Reported: steps per second (resets take wall time too) and
per-step latency percentiles. The clients run on the same cores as the servers and HAProxy.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import platform
import statistics
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the repository root, for `openenv_bug_triage` when it is not installed

from figures import run_writing  # noqa: E402
from replicas import ReplicaSet  # noqa: E402

TASK_ID = "bug_triage_medium"
SEEDS = 8
"""Episodes cycle through this many seeds (their actions recorded in-process once per client process)."""
TRANSPORTS = ("HTTP", "WS")
WARMUP_S = 1.0


@dataclass
class Load:
    """What the clients of one run did inside the measured window."""

    steps: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def add(self, other: Load) -> None:
        self.steps += other.steps
        self.seconds = max(self.seconds, other.seconds)
        self.latencies += other.latencies


def heuristic_actions() -> list[list[dict[str, Any]]]:
    """The heuristic policy's actions for each seed of `TASK_ID`."""
    from openenv_bug_triage import BugTriageEnv
    from openenv_bug_triage.episode import start
    from openenv_bug_triage.policies import HeuristicPolicy

    return [start(BugTriageEnv(), HeuristicPolicy(), TASK_ID, seed).play().actions for seed in range(SEEDS)]


def make_env(url: str, transport: str) -> Any:
    """A fresh client of `url` over `transport`."""
    if transport == "HTTP":
        from openenv_bug_triage.http_client import HttpEnvClient

        return HttpEnvClient(url)
    from openenv_bug_triage.client import WebSocketEnv

    return WebSocketEnv(url)


def client_process(url: str, transport: str, threads: int, seconds: float, first: int) -> Load:
    """`threads` clients in this process, stepping for `WARMUP_S + seconds`; the steps of the last `seconds`."""
    actions = heuristic_actions()
    envs = [make_env(url, transport) for _ in range(threads)]
    barrier = threading.Barrier(threads)
    loads = [Load() for _ in range(threads)]

    def run(i: int) -> None:
        env, load, n = envs[i], loads[i], first + i
        barrier.wait()
        begin = time.perf_counter() + WARMUP_S
        end = begin + seconds
        while True:
            seed = n % SEEDS
            n += threads
            env.reset(task_id=TASK_ID, seed=seed)
            for action in actions[seed]:
                started = time.perf_counter()
                env.step(action)
                now = time.perf_counter()
                if now >= end:
                    return
                if started >= begin:
                    load.steps += 1
                    load.latencies.append(now - started)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for env in envs:
        with contextlib.suppress(Exception):
            env.close()
    total = Load(seconds=seconds)
    for load in loads:
        total.add(load)
    return total


def measure(pool: ProcessPoolExecutor, url: str, transport: str, clients: int, procs: int, seconds: float) -> Load:
    """`clients` clients of `url`, spread over `procs` processes."""
    shares = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    starts = [sum(shares[:i]) for i in range(procs)]
    futures = [
        pool.submit(client_process, url, transport, n, seconds, s) for n, s in zip(shares, starts, strict=True) if n
    ]
    total = Load()
    for future in futures:
        total.add(future.result())
    return total


def pct(values: list[float], q: int) -> float:
    """The q-th percentile, in milliseconds."""
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def main() -> None:
    """Measure the three set-ups and print the table."""
    parser = argparse.ArgumentParser(description="One server process against three behind HAProxy; prints a table.")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--client-procs", type=int, default=2, help="processes the clients run in (default 2)")
    parser.add_argument("--seconds", type=float, default=8.0, help="measured seconds per run (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="measure every set-up this many times (default 2)")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()

    context = multiprocessing.get_context("spawn")
    with ReplicaSet(processes=1) as one, ReplicaSet(processes=3) as three:
        setups: dict[str, str] = {
            "1 process": one.replica_urls[0],
            "1 process + HAProxy": one.url,
            "3 processes + HAProxy": three.url,
        }
        load_before = os.getloadavg()[0]
        results: dict[tuple[str, str], list[Load]] = {}
        with ProcessPoolExecutor(max_workers=args.client_procs, mp_context=context) as pool:
            for _ in range(args.rounds):
                for name, url in setups.items():
                    for transport in TRANSPORTS:
                        load = measure(pool, url, transport, args.clients, args.client_procs, args.seconds)
                        results.setdefault((name, transport), []).append(load)

    print(
        f"\nOne server process against three behind HAProxy: loopback, Python {platform.python_version()}, "
        f"{len(os.sched_getaffinity(0))} cores (shared: load average {load_before:.1f} before the run), "
        f"{args.clients} clients in {args.client_procs} processes, {args.rounds} x {args.seconds:g} s per cell"
    )
    print(row("", list(setups)))
    for transport in TRANSPORTS:
        runs = {name: results[name, transport] for name in setups}
        rates = [statistics.median(r.steps / r.seconds for r in loads) for loads in runs.values()]
        pooled = [[x for r in loads for x in r.latencies] for loads in runs.values()]
        print(row(f"{transport} steps/s", [f"{v:,.0f}" for v in rates]))
        print(row(f"{transport} step p50 (ms)", [f"{pct(v, 50):.2f}" for v in pooled]))
        print(row(f"{transport} step p95 (ms)", [f"{pct(v, 95):.2f}" for v in pooled]))
    print(
        "(steps/s: the median over rounds; latencies pooled over rounds. Clients, servers and HAProxy share\n"
        " the same cores, so more processes than cores add parallelism only where a core was idle.)"
    )


def row(label: str, cells: list[str]) -> str:
    """One line of the table."""
    return f"{label:<26}" + "".join(f"{c:>24}" for c in cells)


if __name__ == "__main__":
    run_writing(main, "bench_replicas", "bench_replicas.py")
