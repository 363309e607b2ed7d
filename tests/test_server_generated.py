"""Generated tasks over the wire: reset by split and seed or by Task API index, over HTTP and WebSocket."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from server_helpers import LiveServer, last_reply, reset_holding_secret, truth_names_in

from openenv_bug_triage import BugTriageEnv, ObservationModel, task_api
from openenv_bug_triage.client import BugTriageClient
from openenv_bug_triage.episode import start
from openenv_bug_triage.generator import load_levels
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import OraclePolicy, ReplayPolicy, run_episode

TASK_API = ("splits", "tasks", "num_tasks", "task", "task_range")


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def test_reset_by_task_split_and_seed_matches_in_process(client: httpx.Client) -> None:
    data = reset_holding_secret(client, {"task_id": "generated_hard", "seed": 17, "split": "test"})
    assert (data["seed"], data["split"]) == (17, "test")
    expected = BugTriageEnv().reset(task_id="generated_hard", seed=17, split="test")
    assert ObservationModel.model_validate(data["observation"]) == expected
    state = client.get("/state", params={"episode_id": data["episode_id"]}).json()
    assert (state["task_id"], state["seed"], state["split"]) == ("generated_hard", 17, "test")


def test_reset_without_a_seed_reports_the_drawn_one(client: httpx.Client) -> None:
    first = client.post("/reset", json={"task_id": "generated_easy"}).json()
    second = client.post("/reset", json={"task_id": "generated_easy"}).json()
    assert first["split"] == "train" and first["seed"] != second["seed"]
    replay = BugTriageEnv().reset(task_id="generated_easy", seed=first["seed"])
    assert ObservationModel.model_validate(first["observation"]) == replay


def test_reset_by_task_api_index_is_the_same_instance(client: httpx.Client) -> None:
    spec = client.post("/bug_triage/task", json={"split": "validation", "index": 6}).json()["task"]
    assert spec == task_api.get_task("validation", 6).model_dump()
    by_index = client.post("/reset", json={"split": "validation", "index": 6}).json()
    by_seed = client.post(
        "/reset", json={"task_id": spec["task_id"], "seed": spec["seed"], "split": "validation"}
    ).json()
    assert by_index["observation"] == by_seed["observation"]
    assert (by_index["seed"], by_index["split"]) == (spec["seed"], "validation")


def test_an_oracle_episode_over_http_scores_one(client: httpx.Client) -> None:
    episode = start(HttpEnvClient(http=client), OraclePolicy(), "generated_medium", 4, "test").play()
    assert episode.info["grader"]["score"] == 1.0
    assert run_episode(OraclePolicy(), "generated_medium", 4, "test").grade.score == 1.0


@pytest.mark.parametrize(
    ("body", "status", "error_type"),
    [
        ({"task_id": "generated_easy", "split": "dev"}, 422, "invalid_split"),
        ({"task_id": "generated_easy", "split": "test", "seed": 1000}, 422, "invalid_seed"),
        ({"task_id": "bug_triage_easy", "split": "test"}, 422, "invalid_split"),
        ({"split": "test", "index": 1000 * len(load_levels().levels)}, 400, "invalid_task_index"),
        ({"split": "test", "index": 1, "task_id": "generated_hard"}, 422, "invalid_seed"),
        ({"task_id": "generated_easy", "split": 3}, 422, "invalid_request"),
    ],
)
def test_bad_generated_resets_are_clear_errors_and_leave_no_session(
    server: LiveServer, client: httpx.Client, body: dict, status: int, error_type: str
) -> None:
    before = len(server.app.state.sessions)
    reply = client.post("/reset", json=body)
    assert reply.status_code == status, reply.text
    assert reply.json()["error"]["type"] == error_type
    assert len(server.app.state.sessions) == before


def test_a_failed_reset_keeps_an_existing_episode(client: httpx.Client) -> None:
    reset_holding_secret(client, {"task_id": "generated_easy", "seed": 3, "episode_id": "keep-me"})
    client.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": "keep-me"})
    bad = client.post(
        "/reset", json={"task_id": "generated_easy", "seed": 999999, "split": "test", "episode_id": "keep-me"}
    )
    assert bad.status_code == 422
    state = client.get("/state", params={"episode_id": "keep-me"}).json()
    assert (state["seed"], state["step_count"]) == (3, 1)


def test_tasks_lists_generated_tasks_with_split_sizes(client: httpx.Client) -> None:
    generated = [t for t in client.get("/tasks").json()["tasks"] if t["source"] == "generated"]
    assert [t["task_id"] for t in generated] == [
        "generated_easy",
        "generated_medium",
        "generated_hard",
        "generated_expert",
        "generated_live_hard",
        "generated_live_expert",
    ]
    assert {t["ticket_count"] for t in generated} == {8, 15, 25, 50}
    assert [t.get("dynamics", []) for t in generated] == [[]] * 4 + [["replies", "history", "arrivals"]] * 2
    assert all(t["splits"] == {"train": None, "validation": 200, "test": 1000} for t in generated)


def test_task_api_routes_answer_with_openenv_shapes(client: httpx.Client) -> None:
    assert client.get("/bug_triage/splits").json() == [
        {"name": "train", "type": "train"},
        {"name": "validation", "type": "validation"},
        {"name": "test", "type": "test"},
    ]
    levels = [level.task_id for level in load_levels().levels]
    assert len(levels) == 6
    assert client.post("/bug_triage/num_tasks", json={"split": "test"}).json() == {"num_tasks": 6000}
    assert client.post("/bug_triage/num_tasks", json={"split": "train"}).json() == {"num_tasks": 6 * 2**31}
    listed = client.post("/bug_triage/tasks", json={"split": "validation"}).json()
    assert listed["env_name"] == "bug_triage" and len(listed["tasks"]) == 1000  # the preview's bound (of 1,200)
    ranged = client.post("/bug_triage/task_range", json={"split": "test", "start": 12, "stop": 18}).json()["tasks"]
    assert [t["index"] for t in ranged] == list(range(12, 18))
    assert [t["seed"] for t in ranged] == [2] * 6
    assert [t["task_id"] for t in ranged] == levels
    assert [t.get("dynamics", []) for t in ranged] == [[]] * 4 + [["replies", "history", "arrivals"]] * 2
    train = client.post("/bug_triage/tasks", json={"split": "train"}).json()["tasks"]
    assert len(train) == task_api.PREVIEW_LIMIT


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/bug_triage/task", {"split": "test", "index": 6000}, 400),
        ("/bug_triage/task", {"split": "test", "index": -1}, 400),
        ("/bug_triage/task", {"split": "holdout", "index": 0}, 400),
        ("/bug_triage/num_tasks", {"split": "holdout"}, 400),
        ("/bug_triage/task", {"split": "test"}, 422),
        ("/bug_triage/task_range", {"split": "test", "start": "a"}, 422),
        ("/bug_triage/tasks", [], 422),
    ],
)
def test_task_api_refuses_bad_input_with_4xx(client: httpx.Client, path: str, body: object, status: int) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == status, reply.text
    assert reply.json()["error"]["message"]


def test_no_task_api_answer_carries_truth(client: httpx.Client) -> None:
    answers = [
        client.get("/bug_triage/splits").text,
        client.post("/bug_triage/tasks", json={"split": "test"}).text,
        client.post("/bug_triage/task", json={"split": "train", "index": 5}).text,
        client.post("/bug_triage/task_range", json={"split": "validation"}).text,
        client.get("/tasks").text,
    ]
    for text in answers:
        assert truth_names_in(text) == []
        assert "disposition" not in text and "scenario" not in text and "evidence" not in text


def test_no_step_of_a_generated_episode_carries_truth_before_the_end(client: httpx.Client) -> None:
    env = HttpEnvClient(http=client)
    episode = start(env, ReplayPolicy(), "generated_hard", 9, "validation")  # next_ticket on every step
    assert truth_names_in(last_reply(env).text) == []
    for step in episode:
        if not step.done:
            assert truth_names_in(last_reply(env).text) == []


def test_websocket_client_resets_generated_tasks_by_split(server: LiveServer) -> None:
    with BugTriageClient(base_url=server.url).sync() as env:
        result = env.reset(task_id="generated_medium", seed=11, split="validation")
        state = env.state()
        by_index = env.reset(split="test", index=5)
        state_2 = env.state()
    expected = BugTriageEnv().reset(task_id="generated_medium", seed=11, split="validation")
    fields = set(ObservationModel.model_fields)
    assert ObservationModel.model_validate(result.observation.model_dump(include=fields)) == expected
    assert (state.split, state.seed) == ("validation", 11)
    spec = task_api.get_task("test", 5)
    assert (state_2.task_id, state_2.seed, state_2.split) == (spec.task_id, spec.seed, "test")
    assert by_index.observation.task_id == spec.task_id
