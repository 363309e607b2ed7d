"""The action union is the one list of actions: the baseline prompt and ACTION_TYPES must match it exactly."""

from __future__ import annotations

import json
import typing

from openenv_bug_triage.actions import ACTION_MODELS, ACTION_TYPES
from openenv_bug_triage.agents.prompt import build_messages
from openenv_bug_triage.env import BugTriageEnv


def prompt_actions() -> dict[str, dict[str, str]]:
    """The example actions the baseline's system prompt lists, one JSON object per line, by action type."""
    system = build_messages(BugTriageEnv().reset(), [])[0]["content"]
    lines = [line for line in system.splitlines() if line.startswith('{"action_type"')]
    actions = [json.loads(line) for line in lines]
    return {a["action_type"]: a for a in actions}


def test_the_prompt_lists_every_action_with_exactly_its_fields_and_choices() -> None:
    listed = prompt_actions()
    assert list(listed) == list(ACTION_TYPES)
    for model in ACTION_MODELS:
        example = listed[model.model_fields["action_type"].default]
        assert set(example) == set(model.model_fields), model.__name__
        for name, field in model.model_fields.items():
            choices = typing.get_args(field.annotation) if typing.get_origin(field.annotation) is typing.Literal else ()
            if len(choices) > 1:
                assert example[name] == "|".join(choices), (model.__name__, name)
