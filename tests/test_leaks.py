"""Indirect leaks: changing only the hidden truth must not change what the agent sees, except feedback."""

from __future__ import annotations

import dataclasses
import random

import pytest

from openenv_bug_triage import env as env_module
from openenv_bug_triage.checker import policy_actions
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy
from openenv_bug_triage.sources import LoadedTask
from openenv_bug_triage.tasks import TASK_IDS, Task, load_task

FEEDBACK_KEYS = {"score_breakdown"}


def scrambled(task: Task) -> Task:
    """The same visible tickets with every ticket's truth taken from another ticket."""
    ids = list(task.ticket_ids)
    donors = ids[1:] + ids[:1]
    random.Random(0).shuffle(donors)
    truth = {tid: task.truth[donor] for tid, donor in zip(ids, donors, strict=True)}
    assert truth != task.truth
    return dataclasses.replace(task, truth=truth)


def visible(obs) -> dict:
    return obs.model_dump(mode="json", exclude=FEEDBACK_KEYS)


def play(task: Task, actions: list, monkeypatch) -> list[tuple[dict, dict]]:
    monkeypatch.setattr(env_module, "resolve", lambda *_args: LoadedTask(task, None, None))
    env = BugTriageEnv()
    seen = [(env.reset(task_id=task.task_id, seed=42).model_dump(mode="json"), {})]
    for action in actions:
        obs, _, done, _ = env.step(action)
        seen.append((obs.model_dump(mode="json"), env.state().model_dump(mode="json", exclude={"cumulative_reward"})))
        if done:
            break
    return seen


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reset_and_navigation_are_identical_whatever_the_truth(task_id, monkeypatch):
    task = load_task(task_id)
    actions = [{"action_type": "next_ticket"}] * 6
    assert play(task, actions, monkeypatch) == play(scrambled(task), actions, monkeypatch)


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("policy_cls", [HeuristicPolicy, RandomPolicy])
def test_other_actions_differ_only_in_feedback(task_id, policy_cls, monkeypatch):
    task = load_task(task_id)
    actions = policy_actions(policy_cls(), task_id, 42, limit=30)
    real = play(task, actions, monkeypatch)
    fake = play(scrambled(task), actions, monkeypatch)
    assert len(real) == len(fake)
    for (obs_a, state_a), (obs_b, state_b) in zip(real, fake, strict=True):
        for key in FEEDBACK_KEYS:
            obs_a.pop(key), obs_b.pop(key)
        assert obs_a == obs_b
        assert state_a == state_b
