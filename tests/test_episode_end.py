"""How an episode ended: `terminated` (queue settled) and `truncated` (budget spent), in-process and on the wire."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from server_helpers import LiveServer

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.client import BugTriageClient
from openenv_bug_triage.policies import oracle_actions
from server.app import build_app
from server.config import Settings

NEXT = {"action_type": "next_ticket"}


def _oracle(task_id: str) -> list[dict[str, Any]]:
    return oracle_actions(task_id)


def _stall(task_id: str) -> list[dict[str, Any]]:
    env = BugTriageEnv()
    env.reset(task_id=task_id, seed=1)
    return [NEXT] * env.state().step_budget


ENDINGS = [("finished", _oracle, True, False), ("budget spent", _stall, False, True)]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(build_app(Settings(max_sessions=4))) as live:
        yield live


def _flags(info: dict[str, Any]) -> tuple[bool, bool]:
    return info["terminated"], info["truncated"]


@pytest.mark.parametrize(("name", "plan", "terminated", "truncated"), ENDINGS)
def test_in_process_info_says_how_the_episode_ended(name, plan, terminated, truncated) -> None:
    env = BugTriageEnv()
    env.reset(task_id="bug_triage_easy", seed=1)
    actions = plan("bug_triage_easy")
    for i, action in enumerate(actions):
        _, _, done, info = env.step(action)
        if i < len(actions) - 1:
            assert not done and _flags(info) == (False, False), (name, i)
    assert done and _flags(info) == (terminated, truncated)
    assert done == (info["terminated"] or info["truncated"])


@pytest.mark.parametrize(("name", "plan", "terminated", "truncated"), ENDINGS)
def test_http_step_reply_carries_both_flags(server: LiveServer, name, plan, terminated, truncated) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        episode = client.post("/reset", json={"task_id": "bug_triage_easy", "seed": 1}).json()["episode_id"]
        actions = plan("bug_triage_easy")
        for action in actions:
            data = client.post("/step", json={"action": action, "episode_id": episode}).json()
            if not data["done"]:
                assert _flags(data["info"]) == (False, False)
    assert data["done"] and _flags(data["info"]) == (terminated, truncated)


@pytest.mark.parametrize(("name", "plan", "terminated", "truncated"), ENDINGS)
def test_websocket_client_sees_both_flags(server: LiveServer, name, plan, terminated, truncated) -> None:
    with BugTriageClient(base_url=server.url).sync() as env:
        env.reset(task_id="bug_triage_easy", seed=1)
        for action in plan("bug_triage_easy"):
            result = env.step(action)
            info = result.observation.info
            assert info is not None
            if not result.done:
                assert (info.terminated, info.truncated) == (False, False)
    assert result.done and (info.terminated, info.truncated) == (terminated, truncated)


def test_schema_documents_the_flags(server: LiveServer) -> None:
    schema = httpx.get(f"{server.url}/schema").json()
    text = str(schema)
    assert "terminated" in text and "truncated" in text
