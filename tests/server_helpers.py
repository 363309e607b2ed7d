"""Helpers for the server tests: apps served in-process or by real uvicorn servers on loopback, and
episodes played over HTTP.

`in_process` serves an app to an httpx client without a socket; `LiveServer` runs an app with
uvicorn on a thread (the fast tier shares one, the `server` fixture of `conftest.py`);
`ServerProcess` runs a command (the way users start the server) as a subprocess. Servers listen
on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.actions import ACTION_ADAPTER
from openenv_bug_triage.client import WebSocketEnv
from openenv_bug_triage.contract import EPISODE_SECRET_HEADER
from openenv_bug_triage.episode import Episode, EpisodeEnv, Policy, start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.models import GraderResult, StateModel, TicketProgress, TicketRecord, Truth
from server.app import UVICORN_WS_OPTIONS

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
TRAINER_TOKEN = "test-trainer-token-0123456789"
TRAINER = {"Authorization": f"Bearer {TRAINER_TOKEN}"}
"""Servers built with `Settings(trainer_token=TRAINER_TOKEN)` give the full grade to requests with these headers."""


def _public_names() -> set[str]:
    names = set(StateModel.model_fields) | set(TicketProgress.model_fields) | set(GraderResult.model_fields)
    for schema in ACTION_ADAPTER.json_schema()["$defs"].values():
        names |= set(schema.get("properties", {}))
    return names


TRUTH_FIELD_NAMES: frozenset[str] = frozenset((set(Truth.model_fields) | {"truth"}) - _public_names())
"""Field names that exist only in hidden truth (`duplicate_of` is also an action field, so it is left out)."""
assert {"true_severity", "disposition", "should_escalate", "truth"} <= TRUTH_FIELD_NAMES
assert "truth" in TicketRecord.model_fields


def truth_names_in(text: str) -> list[str]:
    """Hidden-truth field names that occur in `text` as a name: quoted (JSON) or in backticks (Markdown)."""
    return sorted(name for name in TRUTH_FIELD_NAMES if f'"{name}"' in text or f"`{name}`" in text)


def secret_header(reset_reply: httpx.Response) -> dict[str, str]:
    """The header that reaches the episode a `POST /reset` reply made."""
    return {EPISODE_SECRET_HEADER: reset_reply.json()["episode_secret"]}


def reset_holding_secret(http: httpx.Client, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """`POST /reset` with `body`; `http` then sends the new episode's secret on every request. Returns the reply."""
    reply = http.post("/reset", json=body or {})
    assert reply.status_code == 200, reply.text
    http.headers.update(secret_header(reply))
    return reply.json()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def in_process(app: FastAPI) -> TestClient:
    """An httpx client that serves `app` in this process, no socket: a server error is a 500 reply, as on the wire.

    Use it as a context manager (it runs the app's start-up and shut-down); its base URL is `http://testserver`.
    """
    return TestClient(app, raise_server_exceptions=False, follow_redirects=False)


class LiveServer:
    """`app` served by uvicorn on a thread, on a free 127.0.0.1 port."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say so (else 40 ms delayed ACKs).
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5, **UVICORN_WS_OPTIONS)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=15)
        self._sock.close()


class ServerProcess:
    """A server command run as a subprocess with `PORT` set; its output is kept for failure messages."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.argv = argv
        self.env = {**os.environ, "PORT": str(self.port), "HOST": "127.0.0.1", **(env or {})}
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed by stop()
        self.proc: subprocess.Popen | None = None

    def start(self) -> ServerProcess:
        """Start the process without waiting for it."""
        self.proc = subprocess.Popen(self.argv, cwd=REPO, env=self.env, stdout=self._log, stderr=subprocess.STDOUT)
        return self

    def wait_healthy(self, timeout_s: float = 300.0) -> ServerProcess:
        """Block until GET /health answers; fail with the server's output if it dies or times out."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.argv} exited with {self.proc.returncode}:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"{self.argv} did not become healthy in {timeout_s} s:\n{self.output()}")

    def output(self) -> str:
        """Everything the process printed so far (last 4,000 characters)."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        """Terminate the process and wait for it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> ServerProcess:
        return self.start().wait_healthy()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass(frozen=True)
class HttpPlay:
    """One episode played over HTTP: the episode, the grade `GET /grader` gave and every raw reply."""

    episode_id: str
    episode_secret: str
    episode: Episode
    grade: GraderResult
    responses: list[httpx.Response]
    """The replies to `POST /reset` and to every `POST /step`, in order."""

    @property
    def secret_header(self) -> dict[str, str]:
        """The header that reaches this episode."""
        return {EPISODE_SECRET_HEADER: self.episode_secret}

    @property
    def rewards(self) -> tuple[float, ...]:
        """Every step's reward."""
        return self.episode.rewards

    @property
    def final_info(self) -> dict[str, Any]:
        """The last step's `info`."""
        return self.episode.info


TRANSPORTS = ("in-process", "http", "websocket")
"""Where `open_env` runs an episode."""


@contextmanager
def open_env(transport: str, url: str) -> Iterator[EpisodeEnv]:
    """A fresh environment: in this process, or on the server at `url` over HTTP or its WebSocket."""
    if transport == "in-process":
        yield BugTriageEnv()
    elif transport == "http":
        with closing(HttpEnvClient(url)) as http_env:
            yield http_env
    elif transport == "websocket":
        with closing(WebSocketEnv(url)) as ws_env:
            yield ws_env
    else:
        raise ValueError(f"unknown transport {transport!r}; choose one of {TRANSPORTS}")


def play_http(
    http: httpx.Client,
    policy: Policy,
    task_id: str,
    seed: int,
    episode_id: str | None = None,
    trainer_token: str | None = None,
) -> HttpPlay:
    """Play one whole episode over HTTP with `policy` (through `HttpEnvClient` on `http`).

    The grade is what `GET /grader` answers: the full grade with `trainer_token`, else the agent's copy.
    """
    env = HttpEnvClient(http=http, trainer_token=trainer_token)
    episode = start(env, policy, task_id, seed, episode_id=episode_id)
    responses = [last_reply(env)]
    for _ in episode:
        responses.append(last_reply(env))
    assert env.episode_id is not None and env.episode_secret is not None
    return HttpPlay(env.episode_id, env.episode_secret, episode, env.grade(), responses)


def last_reply(env: HttpEnvClient) -> httpx.Response:
    """The raw response to `env`'s latest request."""
    assert env.last_response is not None
    return env.last_response
