"""Deployment: every way to start the server, `openenv validate` (local and --url), the container smoke test,
and the web playground. Slow processes start together in one fixture, so they share the two cores."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from server_helpers import REPO, VENV_BIN, ServerProcess, free_port, in_process, play_http

from openenv_bug_triage.policies import HeuristicPolicy, run_episode
from server.app import build_app
from server.config import DEFAULT_PORT, Settings, port_from_env


class Background:
    """A command started now and judged later, its output kept."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 -- closed by result()
        self.proc = subprocess.Popen(argv, cwd=REPO, stdout=self._out, stderr=subprocess.STDOUT)

    def result(self, timeout_s: float = 600) -> tuple[int, str]:
        """Exit status and output, once the command has finished."""
        code = self.proc.wait(timeout=timeout_s)
        self._out.seek(0)
        output = self._out.read().decode(errors="replace")
        self._out.close()
        return code, output


LAUNCHERS = {
    "python -m server.app": [sys.executable, "-m", "server.app"],
    "server script": [str(VENV_BIN / "server")],
    "uvicorn server.app:app": [str(VENV_BIN / "uvicorn"), "server.app:app", "--host", "127.0.0.1", "--port", "{port}"],
}


@pytest.fixture(scope="module")
def started() -> Iterator[dict[str, object]]:
    servers = {}
    for name, argv in LAUNCHERS.items():
        server = ServerProcess(argv)
        server.argv = [a.replace("{port}", str(server.port)) for a in argv]
        servers[name] = server.start()
    jobs = {
        "validate": Background([str(VENV_BIN / "openenv"), "validate", "--verbose"]),
        "smoke": Background([sys.executable, "scripts/container_smoke.py"]),
    }
    try:
        for server in servers.values():
            server.wait_healthy()
        yield {"servers": servers, "jobs": jobs}
    finally:
        for server in servers.values():
            server.stop()
        for job in jobs.values():
            if job.proc.poll() is None:
                job.proc.kill()


@pytest.mark.slow
@pytest.mark.parametrize("launcher", list(LAUNCHERS))
def test_each_launcher_serves_a_whole_episode(started: dict, launcher: str) -> None:
    server = started["servers"][launcher]
    with httpx.Client(base_url=server.url, timeout=10) as http:
        assert http.get("/health").json() == {"status": "healthy"}
        result = play_http(http, HeuristicPolicy(), "bug_triage_medium", 2)
    assert result.grade == run_episode(HeuristicPolicy(), "bug_triage_medium", 2).agent_grade


@pytest.mark.slow
def test_openenv_validate_passes_in_the_repo(started: dict) -> None:
    code, output = started["jobs"]["validate"].result()
    assert code == 0, output
    assert "[OK]" in output and "[YES] docker" in output


@pytest.mark.slow
def test_openenv_validate_url_passes_against_the_running_server(started: dict) -> None:
    server = started["servers"]["python -m server.app"]
    run = subprocess.run(
        [str(VENV_BIN / "openenv"), "validate", "--url", server.url], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["passed"] is True and report["mode"] == "simulation"
    assert report["summary"]["failed_criteria"] == []


@pytest.mark.slow
def test_container_smoke(started: dict) -> None:
    code, output = started["jobs"]["smoke"].result()
    assert code == 0, output
    assert "container smoke passed" in output


def test_port_defaults_to_7860_and_port_overrides() -> None:
    assert DEFAULT_PORT == 7860 == port_from_env({})
    assert port_from_env({"PORT": "8123"}) == 8123
    for bad in ("http", "-1", "70000"):
        with pytest.raises(ValueError, match="PORT"):
            port_from_env({"PORT": bad})
    assert Settings.from_env({"MAX_SESSIONS": "3", "SESSION_TTL_S": "2.5"}) == Settings(
        max_sessions=3, session_ttl_s=2.5
    )
    for env in ({"MAX_SESSIONS": "0"}, {"MAX_SESSIONS": "many"}, {"SESSION_TTL_S": "-1"}, {"SESSION_TTL_S": "nan"}):
        with pytest.raises(ValueError):
            Settings.from_env(env)


@pytest.fixture
def web_app(monkeypatch: pytest.MonkeyPatch) -> FastAPI:
    monkeypatch.setenv("ENABLE_WEB_INTERFACE", "true")
    return build_app(Settings())


def test_enable_web_interface_still_serves_our_playground(web_app: FastAPI) -> None:
    """openenv-core's generic playground (one environment for every visitor) is never mounted."""
    with in_process(web_app) as http:
        http.follow_redirects = True
        page = http.get("/web")
        assert page.status_code == 200 and "<title>Bug Triage OpenEnv playground</title>" in page.text
        for method, path in (
            ("POST", "/web/reset"),
            ("POST", "/web/step"),
            ("GET", "/web/state"),
            ("GET", "/web/metadata"),
        ):
            reply = http.request(method, path, json={})
            assert reply.status_code in (404, 405), (path, reply.status_code)
            assert "error" in reply.json()
        for content_type in ("multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "text/plain"):
            reply = http.post("/web/step", content=b'{"\\ud800": 1}', headers={"content-type": content_type})
            assert 400 <= reply.status_code < 500, reply.text
        assert http.post("/reset", json={}).status_code == 200  # the session-aware API is still there


@pytest.mark.parametrize(
    "bad", ["short", "has a space in the middle!", "tab\there-0123456789", "naïve-token-0123456789"]
)
def test_a_weak_or_unprintable_trainer_token_stops_the_server_naming_the_variable(bad: str) -> None:
    with pytest.raises(ValueError, match="BUG_TRIAGE_TRAINER_TOKEN") as caught:
        Settings.from_env({"BUG_TRIAGE_TRAINER_TOKEN": bad})
    assert bad not in str(caught.value)
    assert "secret" not in repr(Settings(trainer_token="a-secret-token-0123456789"))


def listening_hosts(port: int) -> set[str]:
    """The IPv4 addresses a socket listens on at `port`, from the kernel's table (`/proc/net/tcp`)."""
    hosts = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            hosts.add(socket.inet_ntoa(struct.pack("=I", int(address, 16))))
    return hosts


@pytest.mark.slow
@pytest.mark.parametrize(("host", "expected"), [(None, "127.0.0.1"), ("127.0.0.2", "127.0.0.2")])
def test_make_serve_listens_on_loopback_unless_host_says_otherwise(host: str | None, expected: str) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "HOST"} | {"PORT": str(port)} | ({"HOST": host} if host else {})
    # `-o`: take the venv as up to date; its own session, so stopping make also stops the server it started.
    argv = ["make", "--no-print-directory", "-o", ".venv/.installed", "serve"]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while not listening_hosts(port) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            log.seek(0)
            assert listening_hosts(port) == {expected}, log.read().decode(errors="replace")
            assert httpx.get(f"http://{expected}:{port}/health", timeout=10).json() == {"status": "healthy"}
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
