"""How an episode ended: `terminated` (queue settled) and `truncated` (budget spent), in-process and on the wire."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_helpers import TRANSPORTS, LiveServer, open_env

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.policies import ReplayPolicy, oracle_actions

NEXT = {"action_type": "next_ticket"}


def _oracle(task_id: str) -> list[dict[str, Any]]:
    return oracle_actions(task_id)


def _stall(task_id: str) -> list[dict[str, Any]]:
    env = BugTriageEnv()
    env.reset(task_id=task_id, seed=1)
    return [NEXT] * env.state().step_budget


ENDINGS = [("finished", _oracle, True, False), ("budget spent", _stall, False, True)]


def _flags(info: dict[str, Any]) -> tuple[bool, bool]:
    return info["terminated"], info["truncated"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("name", "plan", "terminated", "truncated"), ENDINGS)
def test_info_says_how_the_episode_ended(server: LiveServer, transport, name, plan, terminated, truncated) -> None:
    actions = plan("bug_triage_easy")
    with open_env(transport, server.url) as env:
        episode = start(env, ReplayPolicy(actions), "bug_triage_easy", 1).play()
    assert len(episode.steps) == len(actions)
    for step in episode.steps[:-1]:
        assert not step.done and _flags(step.info) == (False, False), (name, step.number)
    assert episode.done and _flags(episode.info) == (terminated, truncated)
    assert episode.done == (episode.info["terminated"] or episode.info["truncated"])


def test_schema_documents_the_flags(server: LiveServer) -> None:
    schema = httpx.get(f"{server.url}/schema").json()
    text = str(schema)
    assert "terminated" in text and "truncated" in text
