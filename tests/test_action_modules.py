"""Each action lives in one module; everything else is derived from the union, and rewards from one list."""

from __future__ import annotations

from openenv_bug_triage import reward as rw
from openenv_bug_triage.actions import ACTION_MODELS, ACTION_TYPES, description
from openenv_bug_triage.agents.prompt import action_list
from openenv_bug_triage.policies import RandomPolicy, run_episode
from openenv_bug_triage.protocol import BugTriageAction


def test_every_reward_term_an_action_names_is_a_weighted_component() -> None:
    names = {c.name for c in rw.COMPONENTS}
    assert len(names) == len(rw.COMPONENTS), "a component is listed twice"
    for model in ACTION_MODELS:
        assert set(model.TERMS) <= names, model.__name__


def test_the_wire_action_has_exactly_the_union_fields() -> None:
    union_fields = {name for model in ACTION_MODELS for name in model.model_fields}
    assert set(BugTriageAction.model_fields) - {"metadata"} == union_fields
    schema = BugTriageAction.model_json_schema()["properties"]
    assert schema["action_type"]["enum"] == list(ACTION_TYPES)
    assert schema["severity"]["enum"] == ["sev0", "sev1", "sev2", "sev3"]
    assert "enum" not in schema["reason"] and "won't_fix" in schema["reason"]["description"]
    assert schema["missing"]["type"] == "array"


def test_the_prompt_lists_each_action_once_in_union_order() -> None:
    lines = action_list().splitlines()
    assert [line.split('"')[3] for line in lines] == list(ACTION_TYPES)


def test_every_action_has_a_one_line_description() -> None:
    for model in ACTION_MODELS:
        assert description(model) and "\n" not in description(model)


def test_every_step_reward_breakdown_names_only_listed_components() -> None:
    names = {c.name for c in rw.COMPONENTS}
    for task_id in ("bug_triage_hard", "generated_medium"):
        result = run_episode(RandomPolicy(), task_id, seed=3)
        assert result.steps > 0
    env_breakdown = set()
    from openenv_bug_triage.env import BugTriageEnv
    from openenv_bug_triage.episode import start

    episode = start(BugTriageEnv(), RandomPolicy(), "bug_triage_hard", 3).play()
    for step in episode.steps:
        env_breakdown |= set(step.reward.components)
    assert env_breakdown and env_breakdown <= names


def test_every_task_is_graded_and_an_unknown_difficulty_says_where_to_add_it() -> None:
    import pytest

    from openenv_bug_triage.errors import FixtureError
    from openenv_bug_triage.grading import check_difficulty
    from openenv_bug_triage.sources import task_infos

    for info in task_infos():
        assert check_difficulty(info.difficulty) == info.difficulty
    with pytest.raises(FixtureError, match=r"data/grading\.json"):
        check_difficulty("no_such_difficulty")


def test_step_is_the_tuple_view_of_step_result_and_reset_options_are_checked_in_one_place() -> None:
    import random

    import pytest

    from openenv_bug_triage.contract import ResetOptions, resolve_reset
    from openenv_bug_triage.env import BugTriageEnv
    from openenv_bug_triage.errors import InvalidSeedError, UnknownTaskError
    from openenv_bug_triage.policies import HeuristicPolicy

    typed, plain = BugTriageEnv(), BugTriageEnv()
    obs = typed.reset_with(ResetOptions(task_id="bug_triage_easy", seed=3))
    assert obs == plain.reset(task_id="bug_triage_easy", seed=3)
    policy = HeuristicPolicy()
    policy.reset("bug_triage_easy", 3)
    while True:
        action = policy.act(obs)
        result = typed.step_result(action)
        assert result.as_tuple() == plain.step(action)
        assert result.done == (result.terminated or result.truncated) and (result.info.grader is None) != result.done
        obs = result.observation
        if result.done:
            break
    resolved, loaded = resolve_reset(ResetOptions(task_id="generated_easy", split="test"), random.Random(0))
    assert resolved.split == "test" and resolved.seed is not None and loaded.task.task_id == "generated_easy"
    with pytest.raises(UnknownTaskError, match="unknown task_id 'nope'"):
        resolve_reset(ResetOptions(task_id="nope"), random.Random(0))
    with pytest.raises(InvalidSeedError, match="got -1"):
        resolve_reset(ResetOptions.unchecked(seed=-1), random.Random(0))
