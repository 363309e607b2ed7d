"""Sealed mode on a real server on a loopback port: a test-split episode tells the agent only whether each
action was valid, over HTTP, WebSocket and a Task API reset; the trainer token still sees everything.

The proof is a truth swap: the same actions on the same visible queue with the tickets' truths
scrambled give the agent byte-identical replies until the episode ends, while a trainer's replies
(the unsealed feedback) differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import httpx
import pytest
from server_helpers import TRAINER, TRAINER_TOKEN, LiveServer, reset_holding_secret
from test_leaks import scrambled
from websockets.sync.client import connect

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage import contract as contract_module
from openenv_bug_triage.episode import start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy, run_episode
from openenv_bug_triage.sources import LoadedTask, load_task
from openenv_bug_triage.tasks import Task
from server.app import build_app
from server.config import Settings

TASK, SEED = "generated_easy", 3
NEXT = {"action_type": "next_ticket"}


@pytest.fixture(scope="module")
def sealed() -> Iterator[LiveServer]:
    with LiveServer(build_app(Settings(sealed=True, trainer_token=TRAINER_TOKEN))) as live:
        yield live


def actions_of(policy: Any, split: str = "test") -> list[dict[str, Any]]:
    return start(BugTriageEnv(), policy, TASK, SEED, split).play().actions


def serve(task: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every reset on the in-process servers plays `task` as the test split's instance SEED."""
    monkeypatch.setattr(contract_module, "resolve", lambda *_args: LoadedTask(task, SEED, "test"))


def play_http(url: str, actions: list[dict[str, Any]], headers: dict[str, str]) -> list[bytes]:
    """Reset, then per action the step reply and the state, then the grade: every reply's bytes, ids blanked."""
    with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
        body = {"task_id": TASK, "seed": SEED, "split": "test"}
        reset = reset_holding_secret(http, body)
        episode_id, secret = reset["episode_id"], reset["episode_secret"]
        params = {"episode_id": episode_id}
        replies = [http.post("/reset", json={**body, "episode_id": episode_id})]  # a replay of the same episode
        for action in actions:
            replies.append(http.post("/step", json={"action": action, "episode_id": episode_id}))
            replies.append(http.get("/state", params=params))
            if replies[-2].json()["done"]:
                break
        replies.append(http.get("/grader", params=params))
    for reply in replies:
        assert reply.status_code == 200, reply.text
    return [r.content.replace(episode_id.encode(), b"ID").replace(secret.encode(), b"SECRET") for r in replies]


def until_done(replies: list[bytes]) -> list[bytes]:
    """The replies before the step that ended the episode."""
    ended = next(i for i, r in enumerate(replies) if b'"done":true' in r)
    return replies[:ended]


@pytest.mark.parametrize("policy_cls", [OraclePolicy, HeuristicPolicy, RandomPolicy])
def test_over_http_a_truth_swap_changes_nothing_the_agent_sees_until_the_end(
    sealed: LiveServer, monkeypatch: pytest.MonkeyPatch, policy_cls: type
) -> None:
    task = load_task(TASK, SEED, "test")
    actions = actions_of(policy_cls())
    runs = {}
    for name, played in (("real", task), ("swapped", scrambled(task))):
        serve(played, monkeypatch)
        runs[name] = {"agent": play_http(sealed.url, actions, {}), "trainer": play_http(sealed.url, actions, TRAINER)}
    assert until_done(runs["real"]["agent"]) == until_done(runs["swapped"]["agent"])
    assert until_done(runs["real"]["trainer"]) != until_done(runs["swapped"]["trainer"]), "the swap must show unsealed"
    for reply in runs["real"]["agent"]:
        data = json.loads(reply)
        if "info" in data and not data["done"]:
            assert set(data["info"]["reward"]["components"]) <= {"invalid_action"}
            assert data["reward"] in (0.0, -0.05)


def test_a_sealed_episode_ends_with_its_score_and_a_grade_without_ticket_lines(sealed: LiveServer) -> None:
    actions = actions_of(HeuristicPolicy())
    expected = run_episode(HeuristicPolicy(), TASK, SEED, "test")
    agent = [json.loads(r) for r in play_http(sealed.url, actions, {})]
    trainer = [json.loads(r) for r in play_http(sealed.url, actions, TRAINER)]
    last_step, grade = agent[-3], agent[-1]
    assert last_step["done"] and last_step["info"]["reward"]["components"]["episode_score"] == expected.grade.score
    invalid = sum(-0.05 for step in agent if "info" in step and not step["info"]["action_valid"])
    assert last_step["info"]["reward"]["cumulative"] == pytest.approx(invalid + expected.grade.score)
    for agent_grade in (last_step["info"]["grader"], grade):
        assert agent_grade == {**expected.grade.model_dump(), "mistakes": []}
    assert expected.grade.mistakes, "the probe must make mistakes for their absence to mean something"
    assert trainer[-1] == expected.grade.model_dump()  # the trainer's /grader: everything
    assert tuple(s["reward"] for s in trainer if "info" in s) == expected.rewards


def test_over_websocket_a_truth_swap_changes_nothing_the_agent_sees_and_a_trainer_sees_all(
    sealed: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task(TASK, SEED, "test")
    actions = actions_of(OraclePolicy())
    unsealed = run_episode(OraclePolicy(), TASK, SEED, "test").rewards

    def play_ws(headers: dict[str, str]) -> list[str]:
        with connect(f"ws://127.0.0.1:{sealed.port}/ws", additional_headers=headers) as ws:
            ws.send(json.dumps({"type": "reset", "data": {"task_id": TASK, "seed": SEED, "split": "test"}}))
            messages = [ws.recv(timeout=10)]
            for action in actions:
                ws.send(json.dumps({"type": "step", "data": action}))
                messages.append(ws.recv(timeout=10))
                ws.send(json.dumps({"type": "state"}))
                messages.append(ws.recv(timeout=10))
                if json.loads(messages[-2])["data"]["done"]:
                    break
        episode_id = json.loads(messages[0])["data"]["observation"]["episode_id"]
        return [m.replace(episode_id, "ID") for m in messages]

    runs = {}
    for name, played in (("real", task), ("swapped", scrambled(task))):
        serve(played, monkeypatch)
        runs[name] = (play_ws({}), play_ws(TRAINER))
    (agent, trainer), (agent_swapped, trainer_swapped) = runs["real"], runs["swapped"]
    assert [json.loads(m)["type"] for m in agent].count("error") == 0
    assert until_done([m.encode() for m in agent]) == until_done([m.encode() for m in agent_swapped])
    assert until_done([m.encode() for m in trainer]) != until_done([m.encode() for m in trainer_swapped])
    assert json.loads(agent[1])["data"]["reward"] == 0.0
    assert json.loads(trainer[1])["data"]["reward"] == unsealed[0]


def test_a_task_api_reset_of_the_test_split_is_sealed(sealed: LiveServer) -> None:
    with httpx.Client(base_url=sealed.url, timeout=30) as http:
        reset = reset_holding_secret(http, {"split": "test", "index": 5})
        assert reset["sealed"] is True and reset["split"] == "test"
        step = http.post("/step", json={"action": NEXT, "episode_id": reset["episode_id"]}).json()
        assert step["info"]["reward"] == {"value": 0.0, "components": {}, "cumulative": 0.0}


@pytest.mark.parametrize(
    ("body", "policy_cls"),
    [
        ({"task_id": "bug_triage_medium", "seed": 4}, OraclePolicy),
        ({"task_id": TASK, "seed": SEED, "split": "validation"}, HeuristicPolicy),
        ({"task_id": TASK, "seed": SEED, "split": "train"}, HeuristicPolicy),
    ],
)
def test_fixed_tasks_and_training_splits_are_never_sealed(
    sealed: LiveServer, body: dict[str, Any], policy_cls: type
) -> None:
    expected = start(BugTriageEnv(), policy_cls(), body["task_id"], body["seed"], body.get("split")).play()
    with httpx.Client(base_url=sealed.url, timeout=30) as http:
        reset = reset_holding_secret(http, body)
        assert reset["sealed"] is False
        rewards = []
        for action in expected.actions:
            reply = http.post("/step", json={"action": action, "episode_id": reset["episode_id"]}).json()
            rewards.append(reply["reward"])
        grade = http.get("/grader", params={"episode_id": reset["episode_id"]}).json()
    assert tuple(rewards) == expected.rewards
    assert grade == expected.agent_grade.model_dump()


def test_an_unsealed_server_does_not_seal_the_test_split(server: LiveServer) -> None:
    expected = start(BugTriageEnv(), HeuristicPolicy(), TASK, SEED, "test").play()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        reset = reset_holding_secret(http, {"task_id": TASK, "seed": SEED, "split": "test"})
        assert reset["sealed"] is False
        rewards = [
            http.post("/step", json={"action": action, "episode_id": reset["episode_id"]}).json()["reward"]
            for action in expected.actions
        ]
    assert tuple(rewards) == expected.rewards


def test_the_http_client_sends_the_trainer_token_on_every_call(sealed: LiveServer) -> None:
    expected = start(BugTriageEnv(), HeuristicPolicy(), TASK, SEED, "test").play()
    with closing(HttpEnvClient(sealed.url, trainer_token=TRAINER_TOKEN)) as trainer:
        assert start(trainer, HeuristicPolicy(), TASK, SEED, "test").play().rewards == expected.rewards
        assert trainer.grade().mistakes, "the trainer's grade names the mistakes"
    with closing(HttpEnvClient(sealed.url)) as agent:
        rewards = start(agent, HeuristicPolicy(), TASK, SEED, "test").play().rewards
        assert set(rewards[:-1]) <= {0.0, -0.05} and agent.grade().mistakes == []
