"""How the app is built: OpenEnv's routes by allowlist, ours for everything else, each path served once.

In-process (FastAPI's TestClient, no socket); the same checks against a server running on openenv 0.10
are in tests/test_openenv10.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from importlib.metadata import version

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from openenv.core.env_server.types import ConcurrencyConfig
from pydantic import ValidationError
from server_helpers import in_process
from starlette.websockets import WebSocketDisconnect

from openenv_bug_triage import task_api
from openenv_bug_triage.protocol import BugTriageAction, BugTriageObservation
from server import openenv_compat
from server.adapter import ENV_NAME, BugTriageEnvironment
from server.app import build_app
from server.config import Settings
from server.openenv_compat import OPENENV_ROUTES, installed_line, mount_openenv, route_keys

TASK_API_PATHS = {f"/{ENV_NAME}/{name}" for name in ("splits", "tasks", "num_tasks", "task", "task_range")}


@pytest.fixture(scope="module")
def app() -> FastAPI:
    return build_app(Settings(max_sessions=2))


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as http:
        yield http


def test_openenv_routes_are_exactly_the_allowlist(app: FastAPI) -> None:
    served = [
        key
        for route in app.router.routes
        if getattr(getattr(route, "endpoint", None), "__module__", "").startswith("openenv.")
        for key in route_keys(route)
    ]
    assert sorted(served) == sorted(OPENENV_ROUTES)  # each once
    assert len(app.router.on_startup) == 1  # OpenEnv's idle-session reaper, started with the app


def test_every_path_is_ours_or_openenvs_and_the_task_api_is_ours(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not [path for path in paths if "{" in path]  # no framework route such as /{env_name}/splits
    assert TASK_API_PATHS | {"/list_environments", "/reset", "/step", "/state", "/schema", "/mcp"} <= set(paths)
    assert client.get("/list_environments").json() == [ENV_NAME]
    assert client.get(f"/{ENV_NAME}/splits").json() == task_api.list_splits()
    reply = client.post(f"/{ENV_NAME}/task", json={"split": "test", "index": 10**9})
    assert reply.status_code == 400 and reply.json()["error"]["type"] == "invalid_task_index"
    assert client.post("/reset", json={}).json()["episode_id"]  # the session-aware /reset, not OpenEnv's stateless one


def test_mounting_fails_loudly_when_openenv_lacks_a_route(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openenv_compat, "OPENENV_ROUTES", OPENENV_ROUTES | {("/session", "GET")})
    with pytest.raises(RuntimeError, match=r"lacks routes this server needs: \[\('/session', 'GET'\)\]"):
        mount_openenv(FastAPI(), BugTriageEnvironment, BugTriageAction, BugTriageObservation, ConcurrencyConfig())


def test_the_installed_line_is_the_one_openenv_is_imported_from() -> None:
    line = installed_line()
    assert line.distribution in openenv_compat.DISTRIBUTIONS and line.version == version(line.distribution)


def test_an_observation_never_carries_metadata() -> None:
    """openenv 0.10 sends `metadata` over the wire: the wire observation refuses any."""
    obs = BugTriageEnvironment().reset(task_id="bug_triage_easy", seed=1)
    assert obs.metadata == {}
    with pytest.raises(ValidationError, match="metadata must stay empty"):
        BugTriageObservation.model_validate({**obs.model_dump(), "metadata": {"expected_team": "payments"}})


def test_openenvs_idle_reaper_runs_in_our_app() -> None:
    """An idle WebSocket session gives up its slot after SESSION_TTL_S (OpenEnv's reaper looks every 5 s)."""
    app = build_app(Settings(max_sessions=1, session_ttl_s=0.5))
    with in_process(app) as http, http.websocket_connect("/ws") as idle:
        idle.send_text(json.dumps({"type": "reset", "data": {}}))
        assert json.loads(idle.receive_text())["type"] == "observation"
        assert not starts_an_episode(http)  # the only slot is held
        deadline = time.monotonic() + 15
        while not starts_an_episode(http):
            assert time.monotonic() < deadline, "the idle session still holds the only slot"
            time.sleep(0.5)


def starts_an_episode(http: TestClient) -> bool:
    """Whether a new WebSocket session on `http`'s app gets a slot and starts an episode.

    A refused session may be closed before the test client has finished connecting, which the
    client reports as a closed stream or an unexpected ASGI message rather than a disconnect.
    """
    try:
        with http.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "reset", "data": {}}))
            return bool(json.loads(ws.receive_text())["type"] == "observation")
    except (WebSocketDisconnect, anyio.ClosedResourceError, RuntimeError):
        return False
