"""The HTTP contract, through a real uvicorn server on a loopback port."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from server_helpers import TRAINER_TOKEN, LiveServer, play_http, reset_holding_secret

from openenv_bug_triage import BugTriageEnv, ObservationModel, StateModel
from openenv_bug_triage.actions import ACTION_TYPES
from openenv_bug_triage.models import GraderResult, RewardModel
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy, run_episode
from openenv_bug_triage.sources import load_task, task_infos
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.world import load_handbook


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def test_health_and_metadata(client: httpx.Client) -> None:
    assert client.get("/health").json() == {"status": "healthy"}
    meta = client.get("/metadata").json()
    assert meta["name"] == "bug_triage" and meta["description"] and meta["version"] == "0.1.0"


def test_reset_with_an_empty_body_starts_the_default_task(client: httpx.Client) -> None:
    for kwargs in ({}, {"content": b""}, {"json": {}}):
        reply = client.post("/reset", **kwargs)
        assert reply.status_code == 200, reply.text
        data = reply.json()
        assert list(data) == [
            "observation",
            "reward",
            "done",
            "episode_id",
            "episode_secret",
            "sealed",
            "seed",
            "split",
        ]
        assert (data["seed"], data["split"], data["sealed"]) == (42, None, False)
        assert data["reward"] is None and data["done"] is False
        assert len(data["episode_id"]) == 32
        expected = BugTriageEnv().reset()
        assert ObservationModel.model_validate(data["observation"]) == expected


def test_reset_honours_task_seed_and_episode_id(client: httpx.Client) -> None:
    reply = reset_holding_secret(client, {"task_id": "bug_triage_medium", "seed": 5, "episode_id": "my-run.1"})
    assert reply["episode_id"] == "my-run.1"
    assert ObservationModel.model_validate(reply["observation"]) == BugTriageEnv().reset("bug_triage_medium", 5)
    state = client.get("/state", params={"episode_id": "my-run.1"}).json()
    assert (state["task_id"], state["seed"], state["episode_id"]) == ("bug_triage_medium", 5, "my-run.1")


def test_step_returns_reward_done_info_and_episode_id(client: httpx.Client) -> None:
    episode_id = reset_holding_secret(client, {"seed": 3})["episode_id"]
    reply = client.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": episode_id})
    assert reply.status_code == 200
    data = reply.json()
    assert list(data) == ["observation", "reward", "done", "info", "episode_id"]
    env = BugTriageEnv()
    env.reset(seed=3)
    obs, reward, done, info = env.step({"action_type": "next_ticket"})
    assert ObservationModel.model_validate(data["observation"]) == obs
    assert data["reward"] == reward.value and data["done"] is done
    assert RewardModel.model_validate(data["info"]["reward"]) == reward
    assert data["info"] == {**info, "grader": None}
    assert data["episode_id"] == episode_id


def test_an_action_that_fails_the_schema_is_penalised_not_refused(client: httpx.Client) -> None:
    episode_id = reset_holding_secret(client, {})["episode_id"]
    for action in ({}, {"action_type": "fly"}, {"action_type": "classify", "severity": "sev9"}, {"x": [1, {}]}):
        data = client.post("/step", json={"action": action, "episode_id": episode_id}).json()
        assert data["info"]["action_valid"] is False
        assert data["info"]["reward"]["components"] == {"invalid_action": -0.05}
        assert data["observation"]["last_action_result"]["status"] == "error"


def test_state_is_the_state_model(client: httpx.Client) -> None:
    episode_id = reset_holding_secret(client, {"task_id": "bug_triage_easy", "seed": 1})["episode_id"]
    state = StateModel.model_validate(client.get("/state", params={"episode_id": episode_id}).json())
    env = BugTriageEnv()
    env.reset("bug_triage_easy", 1, episode_id=episode_id)
    assert state == env.state()


def test_tasks_list_every_task(client: httpx.Client) -> None:
    tasks = client.get("/tasks").json()["tasks"]
    assert [t["task_id"] for t in tasks] == [info.task_id for info in task_infos()]
    assert [t["task_id"] for t in tasks if t["source"] == "fixed"] == list(TASK_IDS)
    for entry in tasks:
        fixed = entry["source"] == "fixed"
        task = load_task(entry["task_id"]) if fixed else load_task(entry["task_id"], seed=0)
        assert entry == {
            "task_id": task.task_id,
            "difficulty": task.difficulty,
            "source": entry["source"],
            "ticket_count": len(task.tickets),
            "step_budget": task.step_budget,
            "description": task.description,
            "splits": None if fixed else {"train": None, "validation": 200, "test": 1000},
            **({"dynamics": ["replies", "history", "arrivals"]} if task.live is not None else {}),
        }


def test_handbook_is_the_agents_handbook(client: httpx.Client) -> None:
    reply = client.get("/handbook")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/markdown")
    assert reply.text == load_handbook()


def test_schema_is_the_real_action_union_and_models(client: httpx.Client) -> None:
    schema = client.get("/schema").json()
    assert set(schema) >= {"action", "observation", "state", "reward", "grader"}
    mapping = schema["action"]["discriminator"]["mapping"]
    assert sorted(mapping) == sorted(ACTION_TYPES)
    assert schema["observation"] == ObservationModel.model_json_schema()
    assert schema["state"] == StateModel.model_json_schema()
    assert schema["grader"] == GraderResult.model_json_schema()


def test_grader_is_409_until_done_then_the_grade(client: httpx.Client) -> None:
    episode_id = reset_holding_secret(client, {"task_id": "bug_triage_easy"})["episode_id"]
    early = client.get("/grader", params={"episode_id": episode_id})
    assert early.status_code == 409
    assert "once the episode ends" in early.json()["error"]["message"]
    result = play_http(client, OraclePolicy(), "bug_triage_easy", 42, trainer_token=TRAINER_TOKEN)
    assert result.grade == run_episode(OraclePolicy(), "bug_triage_easy", 42).grade


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_oracle_scores_over_http_exactly_what_it_scores_in_process(client: httpx.Client, task_id: str) -> None:
    over_http = play_http(client, OraclePolicy(), task_id, 42, trainer_token=TRAINER_TOKEN)
    in_process = run_episode(OraclePolicy(), task_id, 42)
    assert over_http.grade == in_process.grade
    assert over_http.rewards == in_process.rewards
    assert over_http.final_info["grader"] == in_process.agent_grade.model_dump()


def test_step_after_done_is_409(client: httpx.Client) -> None:
    played = play_http(client, OraclePolicy(), "bug_triage_easy", 1)
    action = {"action_type": "next_ticket"}
    reply = client.post("/step", json={"action": action, "episode_id": played.episode_id}, headers=played.secret_header)
    assert reply.status_code == 409
    assert reply.json()["error"]["type"] == "episode_done"


def test_same_task_seed_and_actions_give_the_same_bytes(client: httpx.Client) -> None:
    runs = [play_http(client, RandomPolicy(), "bug_triage_medium", 11) for _ in range(2)]
    first, second = (
        [
            r.content.replace(run.episode_id.encode(), b"ID").replace(run.episode_secret.encode(), b"S")
            for r in run.responses
        ]
        for run in runs
    )
    assert first == second
    assert json.loads(first[-1])["done"] is True


def test_reset_of_a_live_episode_id_restarts_that_episode(client: httpx.Client) -> None:
    episode_id = reset_holding_secret(client, {"seed": 2})["episode_id"]
    client.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": episode_id})
    again = client.post("/reset", json={"seed": 2, "episode_id": episode_id}).json()
    assert again["episode_id"] == episode_id
    assert client.get("/state", params={"episode_id": episode_id}).json()["step_count"] == 0


def test_heuristic_over_http_equals_in_process(client: httpx.Client) -> None:
    over_http = play_http(client, HeuristicPolicy(), "bug_triage_hard", 3, trainer_token=TRAINER_TOKEN)
    assert over_http.grade == run_episode(HeuristicPolicy(), "bug_triage_hard", 3).grade
    agent_copy = client.get(
        "/grader", params={"episode_id": over_http.episode_id}, headers=over_http.secret_header
    ).json()
    assert agent_copy == run_episode(HeuristicPolicy(), "bug_triage_hard", 3).agent_grade.model_dump()
