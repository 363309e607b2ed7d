"""No endpoint and no WebSocket message carries a hidden-truth field name before its episode ends."""

from __future__ import annotations

import json

import httpx
import pytest
from server_helpers import TRUTH_FIELD_NAMES, LiveServer, last_reply, truth_names_in
from websockets.sync.client import connect

from openenv_bug_triage import ObservationModel
from openenv_bug_triage.contract import EPISODE_SECRET_HEADER
from openenv_bug_triage.episode import start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.world import DATA_DIR

STATIC_GETS = ["/health", "/metadata", "/schema", "/tasks", "/handbook", "/openapi.json", "/docs", "/redoc"]


def test_the_check_finds_truth_where_it_is() -> None:
    assert {"true_severity", "true_priority", "true_component", "true_assignee_team"} <= TRUTH_FIELD_NAMES
    fixture = (DATA_DIR / "tasks" / "bug_triage_easy.json").read_text()
    assert truth_names_in(fixture) == sorted(TRUTH_FIELD_NAMES)


@pytest.mark.parametrize("path", STATIC_GETS)
def test_static_endpoints_name_no_truth_field(server: LiveServer, path: str) -> None:
    reply = httpx.get(server.url + path)
    assert reply.status_code == 200
    assert truth_names_in(reply.text) == []


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("policy_cls", [RandomPolicy, HeuristicPolicy])
def test_no_http_response_names_truth_before_the_episode_ends(
    server: LiveServer, task_id: str, policy_cls: type
) -> None:
    with httpx.Client(base_url=server.url) as http:
        env = HttpEnvClient(http=http)
        episode = start(env, policy_cls(), task_id, 3)
        seen = [last_reply(env)]

        def ask_state_and_grade() -> None:
            for path in ("/state", "/grader"):
                headers = {EPISODE_SECRET_HEADER: str(env.episode_secret)}
                seen.append(http.get(path, params={"episode_id": env.episode_id}, headers=headers))

        ask_state_and_grade()
        for step in episode:
            if not step.done:
                seen.append(last_reply(env))
                ask_state_and_grade()
    for response in seen:
        assert truth_names_in(response.text) == [], (response.request.url, response.text[:200])
    assert any(r.status_code == 409 and "/grader" in str(r.request.url) for r in seen)


def test_no_websocket_message_names_truth_before_the_episode_ends(server: LiveServer) -> None:
    policy = RandomPolicy()
    policy.reset("bug_triage_hard", 8)
    with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "bug_triage_hard", "seed": 8}}))
        message = ws.recv(timeout=10)
        while True:
            assert truth_names_in(message) == [], message[:200]
            ws.send(json.dumps({"type": "state"}))
            assert truth_names_in(ws.recv(timeout=10)) == []
            data = json.loads(message)["data"]
            if data["done"]:
                break
            ws.send(json.dumps({"type": "step", "data": policy.act(ObservationModel.model_validate(fields(data)))}))
            message = ws.recv(timeout=10)
            if json.loads(message)["data"]["done"]:
                break


def fields(data: dict) -> dict:
    return {k: v for k, v in data["observation"].items() if k in ObservationModel.model_fields}
