"""Three server replicas behind HAProxy on loopback, configured by the repository's `deploy/haproxy.cfg`.

    python scripts/replicas.py [--port 8080]    # serve until Ctrl-C; prints where everything listens

`ReplicaSet` starts the replicas (`python -m server.app`, each on a free 127.0.0.1 port) and HAProxy
(its `LB_BIND`, `REPLICA_1..3` and `STATS_BIND` pointed at them), waits until HAProxy counts every
replica up, and stops them all on exit. `ReplicaSet(processes=1)` points all three `REPLICA_n` at one
process: HAProxy's cost without more processes. The replica tests and `scripts/bench_replicas.py` use it.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx

REPO = Path(__file__).resolve().parent.parent
HAPROXY_CONFIG = REPO / "deploy" / "haproxy.cfg"
SLOTS = 3
"""`server` lines in `deploy/haproxy.cfg` (`REPLICA_1` to `REPLICA_3`)."""
HAPROXY_HINT = "HAProxy 2.6 or later is needed: apt-get install haproxy"


def haproxy_binary() -> str | None:
    """Where the `haproxy` executable is, or None (Debian installs it in /usr/sbin, often not on PATH)."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _max_connections() -> int:
    """HAProxy's `maxconn` within this process's file descriptor limit (two descriptors per connection)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 8000 if hard == resource.RLIM_INFINITY else max(100, min(8000, (hard - 200) // 2))


class Process:
    """A subprocess whose output goes to a temporary file, kept for failure messages."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        self.name = name
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed by stop()
        self.proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc.poll() is None

    def output(self) -> str:
        """What the process printed (last 4,000 characters)."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def kill(self) -> None:
        """Stop at once, as a crash would (SIGKILL): open connections are reset, nothing is flushed."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """Terminate and wait (kill after 15 s); close the log."""
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


class ReplicaSet:
    """`processes` server processes behind one HAProxy, all on free 127.0.0.1 ports."""

    def __init__(
        self, processes: int = SLOTS, port: int | None = None, server_env: dict[str, str] | None = None
    ) -> None:
        if not 1 <= processes <= SLOTS:
            raise ValueError(f"deploy/haproxy.cfg has {SLOTS} replica slots; processes must be 1 to {SLOTS}")
        self.processes = processes
        self.ports = [free_port() for _ in range(processes)]
        self.lb_port = port or free_port()
        self.stats_port = free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}"
        self.replica_urls = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.server_env = server_env or {}
        self.replicas: list[Process] = []
        self.haproxy: Process | None = None

    def slot_names(self) -> list[str]:
        """The `server` names HAProxy gives the replicas (its `X-Served-By` header), one per process."""
        return [f"replica-{i + 1}" for i in range(self.processes)]

    def start(self, timeout_s: float = 120.0) -> ReplicaSet:
        """Start the replicas and HAProxy; return once HAProxy counts every replica up."""
        binary = haproxy_binary()
        if binary is None:
            raise RuntimeError(HAPROXY_HINT)
        for i, port in enumerate(self.ports):
            env = {**os.environ, **self.server_env, "PORT": str(port), "HOST": "127.0.0.1"}
            self.replicas.append(Process(f"replica-{i + 1}", [sys.executable, "-m", "server.app"], env))
        slots = {f"REPLICA_{i + 1}": f"127.0.0.1:{self.ports[i % self.processes]}" for i in range(SLOTS)}
        lb_env = {
            **os.environ,
            **slots,
            "LB_BIND": f"127.0.0.1:{self.lb_port}",
            "STATS_BIND": f"127.0.0.1:{self.stats_port}",
            "LB_MAXCONN": str(_max_connections()),
        }
        self.haproxy = Process("haproxy", [binary, "-db", "-f", str(HAPROXY_CONFIG)], lb_env)
        self._wait_until_up(timeout_s)
        return self

    def servers_up(self) -> dict[str, bool]:
        """HAProxy's view of each `server` slot: up or not (from its stats page)."""
        reply = httpx.get(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=2)
        rows = csv.DictReader(io.StringIO(reply.text.lstrip("# ")))
        return {row["svname"]: row["status"] == "UP" for row in rows if row["svname"].startswith("replica-")}

    def kill(self, index: int) -> None:
        """Stop replica `index` (0-based) as a crash would."""
        self.replicas[index].kill()

    def close(self) -> None:
        """Stop HAProxy and every replica."""
        if self.haproxy is not None:
            self.haproxy.stop()
        for replica in self.replicas:
            replica.stop()

    def __enter__(self) -> ReplicaSet:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _wait_until_up(self, timeout_s: float) -> None:
        assert self.haproxy is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for process in [*self.replicas, self.haproxy]:
                if not process.alive():
                    raise RuntimeError(f"{process.name} exited with {process.proc.returncode}:\n{process.output()}")
            try:
                up = self.servers_up()
            except httpx.HTTPError:
                up = {}
            if len(up) == SLOTS and all(up.values()):
                return
            time.sleep(0.25)
        logs = "\n".join(f"--- {p.name}\n{p.output()}" for p in [*self.replicas, self.haproxy])
        raise RuntimeError(f"HAProxy did not count every replica up within {timeout_s:g} s:\n{logs}")


def main() -> None:
    """Serve three replicas behind HAProxy until interrupted."""
    parser = argparse.ArgumentParser(description="Three server replicas behind HAProxy on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8080, help="where HAProxy listens (default 8080)")
    args = parser.parse_args()
    with ReplicaSet(port=args.port) as replicas:
        print(f"HAProxy: {replicas.url}  (stats: http://127.0.0.1:{replicas.stats_port}/stats)")
        for name, url in zip(replicas.slot_names(), replicas.replica_urls, strict=True):
            print(f"{name}: {url}")
        try:
            while all(p.alive() for p in replicas.replicas):
                time.sleep(1)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
