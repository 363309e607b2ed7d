"""Benchmark the server on loopback and print a table; figures only, no pass/fail.

    python scripts/bench_server.py [--steps 3000] [--clients 8] [--sessions 1000]

Measures: steps per second in-process (`BugTriageEnv.step` alone); HTTP and WebSocket step
latency (p50, p99) and throughput, one client and `--clients` at once, for this server, for a
minimal echo environment built with openenv-core, and for that echo environment sending our
observations (`echo+obs`: the same bytes with no environment work behind them), all served
by the same uvicorn settings in a subprocess; and the server's resident memory with
`--sessions` open sessions. Targets: within 1.2x of echo+obs on every row (the framework
sending a 4-5 KB observation is itself 1.3-1.4x slower than echo's 0.1 KB one), >= 5,000
in-process steps/s, <= +100 MB for 1,000 sessions.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from figures import run_writing  # noqa: E402

from openenv_bug_triage.errors import EnvServerError  # noqa: E402
from openenv_bug_triage.http_client import HttpEnvClient  # noqa: E402

# --------------------------------------------------------------------------- the apps


def echo_app(payloads: list[dict[str, Any]] | None = None) -> Any:
    """A minimal openenv-core environment, as `openenv init` makes one.

    With `payloads`, each step's observation also carries the next of them (in turn): the
    same framework sending the same bytes as ours, with no environment work behind them.
    """
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State

    cycle = itertools.cycle(payloads or [{}])

    class EchoAction(Action):
        message: str

    class EchoObservation(Observation):
        echoed_message: str = ""
        payload: dict[str, Any] | None = None

    class EchoEnvironment(Environment):
        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            super().__init__()
            self._state = State(step_count=0)

        def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> EchoObservation:
            self._state = State(episode_id=episode_id, step_count=0)
            return EchoObservation(echoed_message="ready", reward=0.0)

        def step(self, action: EchoAction, timeout_s: float | None = None, **kwargs: Any) -> EchoObservation:  # type: ignore[override]
            self._state.step_count += 1
            payload = next(cycle) if payloads else None
            return EchoObservation(echoed_message=action.message, payload=payload, reward=0.1)

        @property
        def state(self) -> State:
            return self._state

    return create_app(EchoEnvironment, EchoAction, EchoObservation, max_concurrent_envs=64)


def our_observations(task_id: str = "bug_triage_medium", seed: int = 1) -> list[dict[str, Any]]:
    """What our `/ws` sends as the observation at each step of one heuristic episode (as JSON values)."""
    from server.adapter import BugTriageEnvironment

    env = BugTriageEnvironment()
    env.reset(task_id=task_id, seed=seed, episode_id="0" * 32)
    wire = [env.step(action) for action in heuristic_actions(task_id, seed)]
    return [obs.model_dump(mode="json", exclude={"reward", "done", "metadata"}) for obs in wire]


def ours_app() -> Any:
    """This server, allowing enough sessions for the memory measurement."""
    from server.app import build_app
    from server.config import Settings

    return build_app(Settings(max_sessions=2000))


def serve(name: str, port: int) -> None:
    """Serve one app the way both are served here (same uvicorn settings)."""
    import uvicorn

    from server.app import UVICORN_WS_OPTIONS

    apps = {"echo": echo_app, "echo+obs": lambda: echo_app(our_observations()), "ours": ours_app}
    app = apps[name]()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, **UVICORN_WS_OPTIONS)


class Served:
    """An app served in a subprocess on a free port."""

    def __init__(self, name: str) -> None:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        argv = [sys.executable, __file__, "--serve", name, "--port", str(self.port)]
        self.proc = subprocess.Popen(argv, cwd=REPO)
        deadline = time.monotonic() + 90
        with contextlib.closing(HttpEnvClient(f"http://127.0.0.1:{self.port}", timeout=2)) as probe:
            while time.monotonic() < deadline:
                try:
                    probe.get("/health")
                    return
                except EnvServerError:
                    time.sleep(0.2)
        raise RuntimeError(f"{name} server did not start")

    def rss_mb(self) -> float:
        """Resident memory of the server process."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        """CPU seconds the server process has used (user + system): a figure other load on the machine barely moves."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


# --------------------------------------------------------------------------- clients


class HttpPlayer:
    """Steps over one keep-alive `HttpEnvClient`; `ours` plays heuristic episodes, resetting between them.

    Both servers' steps are the client's raw `post`, so each timed step costs the client the same.
    """

    def __init__(self, port: int, ours: bool, task_id: str = "bug_triage_medium") -> None:
        self.client = HttpEnvClient(f"http://127.0.0.1:{port}")
        self.ours, self.task_id, self.seed = ours, task_id, 0
        self.actions: list[dict[str, Any]] = []

    def prepare(self) -> None:
        """Untimed: start a new episode when needed."""
        if self.ours and not self.actions:
            self.seed += 1
            self.client.reset(task_id=self.task_id, seed=self.seed)
            self.actions = list(heuristic_actions(self.task_id, self.seed))

    def close(self) -> None:
        self.client.close()

    def step(self) -> None:
        """One timed step."""
        if self.ours:
            body = {"action": self.actions.pop(0), "episode_id": self.client.episode_id}
            if self.client.post("/step", body)["done"]:
                self.actions = []
        else:
            self.client.post("/step", {"action": {"message": "hello"}})


class WsPlayer:
    """Steps over one WebSocket; the same episodes as `HttpPlayer`."""

    def __init__(self, port: int, ours: bool, task_id: str = "bug_triage_medium") -> None:
        from websockets.sync.client import connect

        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws", max_size=2**22))
        self.ours, self.task_id, self.seed = ours, task_id, 0
        self.actions: list[dict] = []
        self.started = False

    def _send(self, message: dict) -> dict:
        self.ws.send(json.dumps(message))
        reply = json.loads(self.ws.recv(timeout=30))
        if reply["type"] == "error":
            raise RuntimeError(reply)
        return reply["data"]

    def prepare(self) -> None:
        if self.ours and not self.actions:
            self.seed += 1
            self._send({"type": "reset", "data": {"task_id": self.task_id, "seed": self.seed}})
            self.actions = list(heuristic_actions(self.task_id, self.seed))
        elif not self.ours and not self.started:
            self._send({"type": "reset", "data": {}})
            self.started = True

    def close(self) -> None:
        """Ask the server to close, and let it (openenv-core logs a traceback when the client closes first)."""
        from websockets.exceptions import ConnectionClosed

        self.ws.send(json.dumps({"type": "close"}))
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            self.ws.recv(timeout=5)
        self._stack.close()

    def step(self) -> None:
        if self.ours:
            if self._send({"type": "step", "data": self.actions.pop(0)})["done"]:
                self.actions = []
        else:
            self._send({"type": "step", "data": {"message": "hello"}})


_ACTIONS: dict[tuple[str, int], tuple[dict[str, Any], ...]] = {}


def heuristic_actions(task_id: str, seed: int) -> tuple[dict[str, Any], ...]:
    """The heuristic policy's whole episode, recorded in-process once."""
    if (task_id, seed) not in _ACTIONS:
        from openenv_bug_triage import BugTriageEnv
        from openenv_bug_triage.episode import start
        from openenv_bug_triage.policies import HeuristicPolicy

        _ACTIONS[task_id, seed] = tuple(start(BugTriageEnv(), HeuristicPolicy(), task_id, seed).play().actions)
    return _ACTIONS[task_id, seed]


WARMUP_STEPS = 50
"""Untimed steps before each latency run."""


def latencies(player: Any, steps: int) -> list[float]:
    """Seconds per step, one client, after a short warm-up."""
    try:
        return _timed(player, steps)
    finally:
        player.close()


def _timed(player: Any, steps: int) -> list[float]:
    for _ in range(WARMUP_STEPS):
        player.prepare()
        player.step()
    times = []
    for _ in range(steps):
        player.prepare()
        started = time.perf_counter()
        player.step()
        times.append(time.perf_counter() - started)
    return times


def throughput(make: Callable[[], Any], clients: int, steps_each: int) -> float:
    """Steps per second with `clients` players at once (threads, one connection each)."""
    players = [make() for _ in range(clients)]
    for p in players:
        p.prepare()
    barrier = threading.Barrier(clients + 1)

    def run(i: int) -> None:
        barrier.wait()
        for _ in range(steps_each):
            players[i].prepare()
            players[i].step()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    started = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    for p in players:
        p.close()
    return clients * steps_each / elapsed


# --------------------------------------------------------------------------- measurements


def in_process_rate(seconds: float = 3.0) -> float:
    """`BugTriageEnv.step` calls per second, replaying heuristic episodes of every task."""
    from openenv_bug_triage import BugTriageEnv
    from openenv_bug_triage.tasks import TASK_IDS

    env, steps, spent, seed = BugTriageEnv(), 0, 0.0, 0
    while spent < seconds:
        seed += 1
        for task_id in TASK_IDS:
            actions = heuristic_actions(task_id, seed)
            env.reset(task_id, seed)
            started = time.perf_counter()
            for action in actions:
                env.step(action)
            spent += time.perf_counter() - started
            steps += len(actions)
    return steps / spent


def memory(sessions: int) -> tuple[float, float]:
    """RSS (MB) of a fresh server after one episode, and after `sessions` more open sessions."""
    served = Served("ours")
    try:
        player = HttpPlayer(served.port, ours=True)
        player.prepare()
        player.step()
        before = served.rss_mb()
        for i in range(sessions):
            player.client.reset(task_id="bug_triage_hard", seed=i)
            player.client.step({"action_type": "next_ticket"})
        time.sleep(0.5)
        after = served.rss_mb()
        player.close()
        return before, after
    finally:
        served.stop()


def pct(values: list[float], q: float) -> float:
    """The q-th percentile, in milliseconds."""
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


SERVERS = ("ours", "echo", "echo+obs")
"""This server; openenv-core's echo environment; and echo sending our observations (the same bytes, no work)."""


def measure_servers(steps: int, clients: int, rounds: int) -> dict[str, dict[str, float]]:
    """Latency and throughput for every server, alternating them `rounds` times so drift hits all alike."""
    served = {name: Served(name) for name in SERVERS}
    times: dict[tuple[str, str], list[float]] = {}
    rates: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], float] = {}
    try:
        for _ in range(rounds):
            for name, server in served.items():
                for transport, player in (("HTTP", HttpPlayer), ("WS", WsPlayer)):
                    key = (name, transport)
                    used = server.cpu_s()
                    times.setdefault(key, []).extend(latencies(player(server.port, name == "ours"), steps // rounds))
                    cpu[key] = cpu.get(key, 0.0) + server.cpu_s() - used
                    make = lambda p=player, s=server, n=name: p(s.port, n == "ours")  # noqa: E731
                    rates.setdefault(key, []).append(throughput(make, clients, steps // rounds // clients))
    finally:
        for server in served.values():
            server.stop()
    rows: dict[str, dict[str, float]] = {}
    for name in served:
        rows[name] = {}
        for transport in ("HTTP", "WS"):
            sample = times[name, transport]
            rows[name][f"{transport} step p50 (ms)"] = pct(sample, 50)
            rows[name][f"{transport} step p99 (ms)"] = pct(sample, 99)
            rows[name][f"{transport} steps/s, 1 client"] = len(sample) / sum(sample)
            rows[name][f"{transport} steps/s, {clients} clients"] = statistics.median(rates[name, transport])
            rows[name][f"{transport} server CPU/step (ms)"] = (
                cpu[name, transport] / (len(sample) + WARMUP_STEPS * rounds) * 1000
            )
    return rows


def main() -> None:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser(description="Benchmark the server; prints a table.")
    parser.add_argument("--steps", type=int, default=3000, help="timed steps per latency run")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients for throughput")
    parser.add_argument("--sessions", type=int, default=1000, help="open sessions for the memory figure")
    parser.add_argument("--rounds", type=int, default=3, help="alternate ours and echo this many times")
    parser.add_argument("--serve", choices=["echo", "echo+obs", "ours"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return

    rate = in_process_rate()
    rows = measure_servers(args.steps, args.clients, args.rounds)
    before, after = memory(args.sessions)

    print(f"\nBug Triage OpenEnv server benchmark: loopback, Python {platform.python_version()}, {_cores()} cores")
    print(f"{'measure':<28}{'ours':>10}{'echo':>10}{'echo+obs':>10}{'vs echo':>10}{'vs echo+obs':>13}")
    for key in rows["ours"]:
        ours_v = rows["ours"][key]
        fmt = "{:>10.3f}" if "CPU" in key else "{:>10.2f}" if "(ms)" in key else "{:>10,.0f}"
        line = f"{key:<28}" + "".join(fmt.format(rows[name][key]) for name in SERVERS)
        for ref, width in (("echo", 10), ("echo+obs", 13)):
            slower = ours_v / rows[ref][key] if "(ms)" in key else rows[ref][key] / ours_v
            line += f"{slower:>{width - 1}.2f}x"
        print(line)
    print(
        "(how many times slower ours is than each reference. echo+obs is the echo environment sending our\n"
        " observations, so `vs echo+obs` is the cost of our environment, `vs echo` also that of the bytes)"
    )
    print(f"{'in-process steps/s':<28}{rate:>10,.0f}{'':>20}{'target >= 5,000':>23}")
    print(
        f"{'RSS, 1 session (MB)':<28}{before:>10.1f}\n"
        f"{f'RSS, +{args.sessions:,} sessions (MB)':<28}{after:>10.1f}"
        f"{'':>20}{f'+{after - before:.1f} MB':>23}  (target <= +100 MB)"
    )


def _cores() -> int:
    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    run_writing(main, "bench_server", "bench_server.py")
