"""The tool environment as TRL uses it: tool discovery and schemas, scripted episodes, errors, remote mode."""

from __future__ import annotations

import inspect
import runpy
from pathlib import Path
from typing import Any

import pytest
from server_helpers import LiveServer
from transformers.utils import get_json_schema

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.actions import ACTION_ADAPTER, ACTION_MODELS, ACTION_TYPES
from openenv_bug_triage.episode import start
from openenv_bug_triage.errors import EpisodeDoneError, InvalidMoveError, ResetNeededError
from openenv_bug_triage.policies import OraclePolicy, oracle_actions
from openenv_bug_triage.sources import load_task, task_infos
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.tools import (
    ENV_URL_VARIABLE,
    EVAL_FIRST_SEED,
    BugTriageToolEnv,
    DenseRewardToolEnv,
    dataset_rows,
    eval_rows,
    tool_method,
    train_rows,
)
from server.app import build_app
from server.config import Settings


def trl_tools(env: object) -> dict[str, Any]:
    """The methods TRL's GRPOTrainer offers as tools: public bound methods other than reset and get_reward."""
    return {
        name: member
        for name, member in inspect.getmembers(env, predicate=inspect.ismethod)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def call(env: BugTriageToolEnv, action: dict[str, Any]) -> str:
    """Call the tool an action dict names, as TRL would with the model's arguments; an error becomes its text."""
    args = {k: v for k, v in action.items() if k != "action_type"}
    try:
        return getattr(env, action["action_type"])(**args)
    except Exception as exc:  # TRL shows str(exception) to the model
        return f"error: {exc}"


def play(env: BugTriageToolEnv, row: dict[str, Any], actions: list[dict[str, Any]]) -> list[str]:
    return [env.reset(**row), *(call(env, a) for a in actions)]


def test_the_tools_are_exactly_the_action_union() -> None:
    tools = trl_tools(BugTriageToolEnv())
    assert sorted(tools) == sorted(ACTION_TYPES)
    union = {d["properties"]["action_type"]["const"]: d for d in ACTION_ADAPTER.json_schema()["$defs"].values()}
    for model in ACTION_MODELS:
        name = model.model_fields["action_type"].default
        schema = get_json_schema(tools[name])["function"]
        wanted = union[name]
        assert schema["name"] == name
        assert schema["description"] == wanted["description"]
        params = schema["parameters"]
        assert set(params["properties"]) == set(wanted["properties"]) - {"action_type"}
        assert set(params.get("required", [])) == set(wanted.get("required", []))
        for field, spec in params["properties"].items():
            assert spec["description"] == model.model_fields[field].description
            enum = wanted["properties"][field].get("enum")
            if enum is not None:
                assert spec["enum"] == enum


def test_tool_signatures_read_like_the_actions() -> None:
    env = BugTriageToolEnv()
    assert str(inspect.signature(env.classify)) == (
        "(severity: Literal['sev0', 'sev1', 'sev2', 'sev3'], priority: Literal['p0', 'p1', 'p2', 'p3'], "
        "component: str, ticket_id: Optional[str] = None) -> str"
    )
    assert "Args:\n    team: " in env.assign.__doc__


ALL_TASKS = [info.task_id for info in task_infos()]


@pytest.mark.parametrize("task_id", ALL_TASKS)
def test_oracle_through_the_tools_scores_one(task_id: str) -> None:
    env = BugTriageToolEnv()
    (row,) = dataset_rows([task_id], [5], split="validation")
    assert (row["split"] is not None) == task_id.startswith("generated_")
    # the oracle's moves as it plays in process (on a live queue they follow arrivals and replies)
    moves = start(BugTriageEnv(), OraclePolicy(), task_id, 5, row["split"]).play().actions
    transcript = play(env, row, moves)
    assert not any(text.startswith("error") for text in transcript)
    assert "The episode is over: every ticket is settled. Score 1.000." in transcript[-1]
    assert env.get_reward() == 1.0


def test_dense_reward_is_the_sum_of_step_rewards() -> None:
    env, reference = DenseRewardToolEnv(), BugTriageEnv()
    env.reset(task_id="bug_triage_medium", seed=3)
    reference.reset(task_id="bug_triage_medium", seed=3)
    total = 0.0
    for action in oracle_actions("bug_triage_medium")[:10]:
        call(env, action)
        total = reference.step(action)[1].cumulative
    assert env.get_reward() == total != 0.0


def test_an_unfinished_rollout_scores_zero_and_a_spent_budget_says_so() -> None:
    env = BugTriageToolEnv()
    env.reset(task_id="bug_triage_easy", seed=1)
    for action in oracle_actions("bug_triage_easy")[:4]:
        call(env, action)
    assert env.get_reward() == 0.0
    env.reset(task_id="bug_triage_easy", seed=1)
    texts = [env.next_ticket() for _ in range(BugTriageEnv().reset(task_id="bug_triage_easy").steps_remaining)]
    assert "The episode is over: the step budget is spent. Score 0.000." in texts[-1]
    with pytest.raises(EpisodeDoneError, match="stop calling tools"):
        env.next_ticket()


def test_an_invalid_move_raises_with_the_environments_message_and_costs_a_step() -> None:
    env, reference = BugTriageToolEnv(), BugTriageEnv()
    env.reset(task_id="bug_triage_easy", seed=2)
    reference.reset(task_id="bug_triage_easy", seed=2)
    _, _, _, info = reference.step(
        {"action_type": "classify", "severity": "critical", "priority": "p1", "component": "sso"}
    )
    with pytest.raises(InvalidMoveError) as raised:
        env.classify(severity="critical", priority="p1", component="sso")
    message, rest = str(raised.value).split("\n")
    assert message == info["error"]
    assert "severity" in message and "critical" in message
    assert rest.startswith("Reward -0.05. Steps left: 20.")  # the rejected call used one of the 21 steps
    assert "Steps left: 19." in env.next_ticket()


def test_an_invalid_move_that_spends_the_budget_says_the_episode_is_over() -> None:
    env = BugTriageToolEnv()
    env.reset(task_id="bug_triage_easy", seed=2)
    for _ in range(20):
        env.next_ticket()
    with pytest.raises(InvalidMoveError) as raised:
        env.assign(team="sre", ticket_id="nope")
    assert "is not in the queue" in str(raised.value)
    assert "The episode is over: the step budget is spent. Score 0.000. Stop calling tools." in str(raised.value)
    assert env.get_reward() == 0.0
    with pytest.raises(EpisodeDoneError):
        env.next_ticket()


def test_calls_outside_an_episode_and_unknown_arguments_are_refused() -> None:
    env = BugTriageToolEnv()
    with pytest.raises(ResetNeededError, match="reset"):
        env.next_ticket()
    env.reset(task_id="bug_triage_easy")
    with pytest.raises(TypeError, match="colour"):
        env.assign(team="sre", colour="red")
    with pytest.raises(TypeError, match="team"):
        env.assign()
    assert "Steps left: 20." in env.next_ticket()  # neither refused call reached the environment


def test_the_queue_is_sent_once_then_only_changes() -> None:
    env = BugTriageToolEnv()
    opening = env.reset(task_id="bug_triage_hard", seed=42)
    ids = [line.split(" | ")[0] for line in opening.splitlines() if line.startswith("BT-") and " | " in line]
    assert len(ids) == 25
    text = call(env, {"action_type": "close", "ticket_id": ids[3], "reason": "invalid"})
    assert sum(tid in text for tid in ids) <= 2  # the ticket acted on, and a newly focused one at most


def test_remote_mode_gives_the_same_transcript(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = [
        {"action_type": "next_ticket"},
        {"action_type": "classify", "severity": "critical", "priority": "p1", "component": "sso"},
        {"action_type": "assign", "ticket_id": "BT-000", "team": "sre"},
        {"action_type": "request_info", "missing": "repro", "question": "Which build?"},  # text, not a list
        *oracle_actions("bug_triage_hard"),
        {"action_type": "next_ticket"},
    ]
    row = {"task_id": "bug_triage_hard", "seed": 9}
    local = BugTriageToolEnv()
    expected = play(local, row, moves)
    monkeypatch.setenv(ENV_URL_VARIABLE, server.url)
    remote = BugTriageToolEnv()
    assert type(remote._backend).__name__ == "RemoteBackend"
    assert play(remote, row, moves) == expected
    assert remote.get_reward() == local.get_reward()
    assert expected[2].startswith("error: classify: field `severity`") and expected[-1].startswith("error: The episode")
    assert expected[4].startswith("error: request_info: field `missing`")
    generated = {"task_id": "generated_medium", "seed": 3, "split": "validation"}
    moves = oracle_actions(load_task("generated_medium", 3, "validation"))
    assert play(remote, generated, moves) == play(local, generated, moves)
    assert remote.get_reward() == local.get_reward() == 1.0


@pytest.mark.slow  # a real server of its own, with room for one session only
def test_a_server_at_capacity_is_named_as_the_likely_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    with LiveServer(build_app(Settings(max_sessions=1))) as live:
        monkeypatch.setenv(ENV_URL_VARIABLE, live.url)
        first, second = BugTriageToolEnv(), BugTriageToolEnv()
        assert "Task bug_triage_easy" in first.reset(task_id="bug_triage_easy", seed=1)
        for _ in range(2):  # the refused socket is dead: the second reset opens a new one, refused alike
            with pytest.raises(ConnectionError, match="MAX_SESSIONS must cover every rollout in flight"):
                second.reset(task_id="bug_triage_easy", seed=1)
        first._backend.close()  # a slot frees up: the same instance plays again
        assert "Task bug_triage_easy" in second.reset(task_id="bug_triage_easy", seed=1)


def test_dataset_rows_feed_reset_and_keep_training_and_evaluation_apart() -> None:
    prompt = train_rows(["bug_triage_easy"], 1)[0]["prompt"]
    assert prompt[-1]["content"].endswith("tools.\n\n")  # the opening text TRL appends starts a new paragraph
    tasks = ["bug_triage_easy", "generated_hard"]
    train, evaluation = train_rows(tasks, 3), eval_rows(tasks, 2)
    assert [(r["task_id"], r["seed"], r["split"]) for r in train[:2]] == [
        ("bug_triage_easy", 0, None),
        ("generated_hard", 0, "train"),
    ]
    assert [(r["task_id"], r["seed"], r["split"]) for r in evaluation] == [
        ("bug_triage_easy", EVAL_FIRST_SEED, None),
        ("generated_hard", 0, "validation"),
        ("bug_triage_easy", EVAL_FIRST_SEED + 1, None),
        ("generated_hard", 1, "validation"),
    ]
    system, user = train[0]["prompt"]
    assert system["role"] == "system" and "Larkspur triage handbook" in system["content"]
    assert user["role"] == "user"
    env = BugTriageToolEnv()
    openings = {}
    for row in train + evaluation:
        openings[(row["task_id"], row["seed"], row["split"])] = env.reset(**row)
        assert openings[(row["task_id"], row["seed"], row["split"])].startswith(f"Task {row['task_id']}")
    assert openings[("generated_hard", 0, "train")] != openings[("generated_hard", 0, "validation")]
    assert dataset_rows(["generated_easy", "bug_triage_easy"], [1], split="test", prompt=False) == [
        {"task_id": "generated_easy", "seed": 1, "split": "test"},
        {"task_id": "bug_triage_easy", "seed": 1, "split": None},
    ]
    assert dataset_rows(["generated_easy"], [1], prompt=False) == [
        {"task_id": "generated_easy", "seed": 1, "split": "train"}
    ]
    with pytest.raises(ValueError, match="episodes_per_task"):
        train_rows(TASK_IDS, 0)
    with pytest.raises(ValueError, match="200 validation instances"):
        eval_rows(["generated_easy"], 201)
    with pytest.raises(ValueError, match="not train"):
        eval_rows(["generated_easy"], 1, split="train")


def first_row_columns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as `datasets.Dataset.from_list` keeps them: the first row's keys are every row's columns."""
    return [{key: row.get(key) for key in rows[0]} for row in rows]


@pytest.mark.parametrize("tasks", [["bug_triage_easy", "generated_easy"], ["generated_medium", "bug_triage_hard"]])
def test_rows_of_any_task_mix_survive_a_table_and_no_evaluation_row_replays_a_training_episode(
    tasks: list[str],
) -> None:
    train, evaluation = train_rows(tasks, 2), eval_rows(tasks, 2)
    assert {tuple(row) for row in train + evaluation} == {("task_id", "seed", "split", "prompt")}
    env = BugTriageToolEnv()

    def openings(rows: list[dict[str, Any]]) -> list[str]:
        return [env.reset(**row) for row in first_row_columns(rows)]

    trained, evaluated = openings(train), openings(evaluation)
    for row, opening in zip(evaluation, evaluated, strict=True):  # each row plays the instance it names
        named = {"task_id": row["task_id"], "seed": row["seed"]} | ({"split": row["split"]} if row["split"] else {})
        assert opening == env.reset(**named)
    assert not set(trained) & set(evaluated)
    assert len(set(trained)) == len(train) and len(set(evaluated)) == len(evaluation)


def test_tool_text_is_at_most_a_quarter_of_the_full_observation_over_a_hard_episode() -> None:
    measure = runpy.run_path(str(Path(__file__).resolve().parent.parent / "scripts" / "measure_tool_text.py"))
    full = measure["observation_sizes"]("bug_triage_hard", 42)
    tools = measure["tool_sizes"]("bug_triage_hard", 42)
    assert len(full.steps) == len(tools.steps) == 42
    assert tools.episode <= full.episode / 4
    assert max(tools.steps) < min(full.steps)  # even a step that shows a newly focused ticket


def test_an_action_model_without_docs_cannot_become_a_tool() -> None:
    from typing import Literal

    from pydantic import BaseModel, Field

    class Undocumented(BaseModel):
        action_type: Literal["wave"] = "wave"
        hand: str

    class Documented(BaseModel):
        """Wave at a ticket."""

        action_type: Literal["wave"] = "wave"
        hand: str = Field(description="Which hand.")

    with pytest.raises(TypeError, match="hand has no description"):
        tool_method(Undocumented)
    wave = tool_method(Documented)
    assert wave.__name__ == "wave" and "Args:\n    hand: Which hand." in wave.__doc__
    Documented.__doc__ = None
    with pytest.raises(TypeError, match="no docstring"):
        tool_method(Documented)
