"""OpenEnv's WebSocket path: the typed client and the generic `EnvClient` play whole episodes."""

from __future__ import annotations

import asyncio
import json
from contextlib import closing

import httpx
import pytest
from openenv.core.generic_client import GenericEnvClient
from server_helpers import LiveServer, in_process, reset_holding_secret
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from openenv_bug_triage import BugTriageEnv, ObservationModel
from openenv_bug_triage.actions import ClassifyAction
from openenv_bug_triage.client import BugTriageAction, BugTriageClient, BugTriageObservation, WebSocketEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, run_episode
from openenv_bug_triage.tasks import TASK_IDS
from server.app import build_app
from server.config import Settings


def ws_url(server: LiveServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_typed_client_plays_a_whole_oracle_episode(server: LiveServer, task_id: str) -> None:
    with closing(WebSocketEnv(server.url)) as env:
        episode = start(env, OraclePolicy(), task_id, 42)
        assert isinstance(episode.first, BugTriageObservation) and episode.first.info is None
        final = episode.play().observation
        state = env.state()
    expected = run_episode(OraclePolicy(), task_id, 42)
    assert tuple(step.observation.reward for step in episode.steps) == expected.rewards
    assert isinstance(final, BugTriageObservation) and final.done
    assert final.info is not None and final.info.grader == expected.agent_grade
    assert state.done and state.task_id == task_id and state.step_count == len(episode.steps)


def test_reset_honours_task_id_seed_and_episode_id(server: LiveServer) -> None:
    with BugTriageClient(base_url=server.url).sync() as env:
        result = env.reset(task_id="bug_triage_medium", seed=7, episode_id="ws-run-1")
        state = env.state()
    local = BugTriageEnv()
    expected = local.reset("bug_triage_medium", 7, episode_id="ws-run-1")
    assert (
        ObservationModel.model_validate(result.observation.model_dump(include=set(ObservationModel.model_fields)))
        == expected
    )
    assert result.observation.episode_id == "ws-run-1"
    assert state.model_dump() == local.state().model_dump()


def test_typed_actions_and_invalid_actions(server: LiveServer) -> None:
    with BugTriageClient(base_url=server.url).sync() as env:
        first = env.reset(seed=1).observation
        assert first.current_ticket is not None
        action = ClassifyAction(severity="sev2", priority="p2", component=first.current_ticket.component_candidates[0])
        typed = env.step(action).observation
        assert typed.info is not None and typed.info.action_valid
        flat = env.step(BugTriageAction(action_type="next_ticket")).observation
        assert flat.info is not None and flat.info.action_valid
        bad = env.step({"action_type": "classify", "severity": "sev9", "surprise": 1}).observation
        assert bad.info is not None and not bad.info.action_valid
        assert bad.info.reward.components == {"invalid_action": -0.05}
        with pytest.raises(RuntimeError, match="unknown task_id"):
            env.reset(task_id="nope")
        with pytest.raises(RuntimeError, match="unknown reset parameter"):
            env.reset(taskid="bug_triage_easy")
        assert env.reset(seed=2).observation.steps_used == 0  # the session survives errors


def test_an_action_is_judged_as_in_process_and_over_http(server: LiveServer) -> None:
    """No transport reshapes an action: text where a list belongs is refused alike everywhere."""
    action = {"action_type": "request_info", "missing": "repro", "question": "Which build?"}
    local = BugTriageEnv()
    local.reset("bug_triage_easy", 5)
    _, _, _, expected = local.step(action)
    assert not expected["action_valid"]
    with BugTriageClient(base_url=server.url).sync() as env:
        env.reset(task_id="bug_triage_easy", seed=5)
        info = env.step(action).observation.info
    with httpx.Client(base_url=server.url) as http:
        episode = reset_holding_secret(http, {"task_id": "bug_triage_easy", "seed": 5})["episode_id"]
        over_http = http.post("/step", json={"action": action, "episode_id": episode}).json()["info"]
    assert info is not None and (info.action_valid, info.error) == (False, expected["error"])
    assert (over_http["action_valid"], over_http["error"]) == (False, expected["error"])


def test_async_client_and_step_after_done(server: LiveServer) -> None:
    async def play() -> None:
        policy = HeuristicPolicy()
        policy.reset("bug_triage_easy", 3)
        async with BugTriageClient(base_url=server.url) as env:
            result = await env.reset(task_id="bug_triage_easy", seed=3)
            while not result.done:
                result = await env.step(policy.act(result.observation))
            assert result.observation.info.grader == run_episode(HeuristicPolicy(), "bug_triage_easy", 3).agent_grade
            with pytest.raises(RuntimeError, match="episode has ended"):
                await env.step({"action_type": "next_ticket"})

    asyncio.run(play())


def test_generic_env_client_plays_with_plain_dicts(server: LiveServer) -> None:
    policy = OraclePolicy()
    policy.reset("bug_triage_easy", 5)
    with GenericEnvClient(base_url=server.url).sync() as env:
        result = env.reset(task_id="bug_triage_easy", seed=5)
        while not result.done:
            result = env.step(policy.act(ObservationModel.model_validate(_observation_fields(result.observation))))
    assert (
        result.observation["info"]["grader"]
        == run_episode(OraclePolicy(), "bug_triage_easy", 5).agent_grade.model_dump()
    )


def _observation_fields(data: dict) -> dict:
    return {k: v for k, v in data.items() if k in ObservationModel.model_fields}


def test_malformed_messages_get_error_replies_and_the_server_stays_up(server: LiveServer) -> None:
    messages = [
        "not json",
        json.dumps({"type": "dance"}),
        json.dumps({"type": "step", "data": "not an object"}),
        json.dumps({"type": "step", "data": {"action_type": "next_ticket"}}),  # before reset
        json.dumps({"type": "state"}),  # before reset
        json.dumps({"type": "reset", "data": {"seed": -1}}),
        json.dumps({"type": "reset", "data": {"seed": 1e308}}),
        json.dumps({"type": "reset", "data": {"task_id": ["x"]}}),
        '{"type": "reset", "data": {"task_id": "\\ud800"}}',
        json.dumps({"type": "reset", "data": {"episode_id": "bad id"}}),
        '{"type": "step", "data": {"action_type": "classify", "component": "\\ud800"}}',
        '{"type": "reset", "data": {"seed": NaN}}',
    ]
    with connect(ws_url(server)) as ws:
        for message in messages:
            ws.send(message)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "error", (message, reply)
        ws.send(json.dumps({"type": "reset", "data": {"seed": 4}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"
        ws.send('{"type": "step", "data": {"action_type": "assign", "ticket_id": "\\ud800", "team": "x"}}')
        refused = json.loads(ws.recv(timeout=10))  # not strict JSON, as over HTTP (422 there)
        assert refused["type"] == "error" and refused["data"]["code"] == "INVALID_JSON"
        ws.send('{"type": "step", "data": {"action_type": "assign", "ticket_id": "BT-000", "team": "x"}}')
        penalised = json.loads(ws.recv(timeout=10))["data"]["observation"]["info"]
        assert penalised["action_valid"] is False and "BT-000" in penalised["error"]
    assert httpx.get(f"{server.url}/health").status_code == 200


def test_a_reset_error_names_the_range_of_the_split_the_seed_is_for_as_over_http() -> None:
    cases = [
        (
            {"task_id": "generated_easy", "split": "validation", "seed": -5},
            "seed for the validation split must be an integer from 0 to 199, got -5",
        ),
        (
            {"task_id": "generated_easy", "seed": 10**300},
            "seed for the train split must be an integer from 0 to 2147483647, got an integer of more than 10 digits",
        ),
        ({"seed": 2**63}, "seed must be an integer from 0 to 9223372036854775807, got 9223372036854775808"),
    ]
    with in_process(build_app(Settings())) as http, http.websocket_connect("/ws") as ws:
        for body, message in cases:
            ws.send_text(json.dumps({"type": "reset", "data": body}))
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error" and reply["data"]["message"] == message
            assert http.post("/reset", json=body).json()["error"]["message"] == message


def test_websocket_sessions_are_capped() -> None:
    with in_process(build_app(Settings(max_sessions=1))) as http, http.websocket_connect("/ws") as first:
        first.send_text(json.dumps({"type": "reset", "data": {}}))
        assert json.loads(first.receive_text())["type"] == "observation"
        with http.websocket_connect("/ws") as second:
            reply = json.loads(second.receive_text())
            assert reply["type"] == "error" and reply["data"]["code"] == "CAPACITY_REACHED"


def test_messages_over_64_kib_close_the_socket_not_the_server(server: LiveServer) -> None:
    with connect(ws_url(server)) as ws:
        ws.send(json.dumps({"type": "step", "data": {"action_type": "defer", "reason": "x" * 70_000}}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
    assert httpx.get(f"{server.url}/health").status_code == 200


@pytest.mark.parametrize(
    "frame",
    [
        "[]",
        "null",
        "1",
        '"x"',
        b"\x00\x01binary",
        "[" * 3000 + "]" * 3000,
        '{"type": "step", "data": {"action_type": "next_ticket", "n": ' + "9" * 4400 + "}}",
        '{"type": "step", "data": {"action_type": "next_ticket", "\\ud800": 1}}',
        '{"type": "step", "data": {"action_type": "next_ticket", "severity": NaN}}',
        "not json",
    ],
    ids=["array", "null", "number", "string", "binary", "deep", "huge-int", "surrogate-key", "nan", "text"],
)
def test_a_malformed_frame_gets_an_error_and_the_episode_goes_on(server: LiveServer, frame: str | bytes) -> None:
    with connect(ws_url(server)) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "bug_triage_easy", "seed": 4}}))
        json.loads(ws.recv())
        ws.send(json.dumps({"type": "step", "data": {"action_type": "next_ticket"}}))
        assert json.loads(ws.recv())["data"]["observation"]["steps_used"] == 1
        ws.send(frame)
        error = json.loads(ws.recv())
        assert error["type"] == "error" and error["data"]["code"] == "INVALID_JSON", error
        ws.send(json.dumps({"type": "step", "data": {"action_type": "next_ticket"}}))
        assert json.loads(ws.recv())["data"]["observation"]["steps_used"] == 2
