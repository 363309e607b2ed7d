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


def test_checks_read_only_the_agents_view_so_their_messages_cannot_name_hidden_truth() -> None:
    from dataclasses import dataclass

    from openenv_bug_triage.actions import ActionParseError, parse_action
    from openenv_bug_triage.env import BugTriageEnv
    from openenv_bug_triage.models import TicketProgress
    from openenv_bug_triage.world import World, load_world

    @dataclass(frozen=True)
    class PublicQueue:  # progress and world only: no task, no truth
        progress: dict[str, TicketProgress]
        world: World

    env, policy, outcomes = BugTriageEnv(), RandomPolicy(), []
    for task_id in ("bug_triage_hard", "generated_medium"):
        obs = env.reset(task_id, seed=5)
        policy.reset(task_id, 5)
        for _ in range(120):
            raw = policy.act(obs)
            raw["ticket_id"] = policy.rng.choice([*(q.ticket_id for q in obs.queue), "NOPE-1"])
            state = env.state()
            try:
                action = parse_action(raw)
            except ActionParseError:
                action = None
            obs, _, done, info = env.step(raw)
            if action is not None:
                target = action.ticket_id or state.ticket_order[state.focus_index]
                assert action.check(target, PublicQueue(state.progress, load_world())) == info["error"]
                outcomes.append(info["error"] is None)
            if done:
                break
    assert len(outcomes) > 50 and 10 < sum(outcomes) < len(outcomes) - 10  # both refused and carried out


def test_an_action_without_a_ticket_id_field_acts_on_the_focus_and_has_a_prompt_line(monkeypatch) -> None:
    from typing import Literal

    from openenv_bug_triage import env as env_module
    from openenv_bug_triage.actions import BaseAction, Desk, Taken
    from openenv_bug_triage.agents.prompt import example_action
    from openenv_bug_triage.env import BugTriageEnv

    class WaitAction(BaseAction):
        """Let one step pass."""

        action_type: Literal["wait"] = "wait"

        def take(self, target: str, desk: Desk) -> Taken:
            return Taken(target, f"waited on {target}", no_op=True)

    assert example_action(WaitAction) == {"action_type": "wait"}
    monkeypatch.setattr(env_module, "parse_action", lambda raw: WaitAction())  # as if `wait` were in the union
    env = BugTriageEnv()
    obs = env.reset("bug_triage_easy", seed=1)
    after, reward, _, info = env.step({"action_type": "wait"})
    assert info["action_valid"] and after.last_action_result is not None
    assert after.last_action_result.ticket_id == obs.queue[0].ticket_id == env.state().ticket_order[0]
    assert reward.components == {"no_op": -0.02}


def test_state_changes_read_only_the_agents_view_so_their_messages_cannot_name_hidden_truth() -> None:
    from dataclasses import dataclass, field

    from openenv_bug_triage.actions import ActionParseError, parse_action
    from openenv_bug_triage.env import BugTriageEnv
    from openenv_bug_triage.models import UNSETTLED_STATUSES, TicketProgress
    from openenv_bug_triage.sources import load_task
    from openenv_bug_triage.world import World, load_world

    @dataclass
    class PublicDesk:  # the agent's own view and the focus: no task, no truth
        progress: dict[str, TicketProgress]
        world: World
        steps: int
        order: list[str]
        focus: int
        updated: list[str] = field(default_factory=list)
        history: frozenset[str] | None = None  # static queues have no tracker history

        def search(self, query: str, status: object, component: object, limit: int) -> None:
            raise AssertionError("a static queue refuses search_tracker in its check")

        def ask(self, tid: str, missing: list[str]) -> None:
            pass  # a static queue waits for no reply

        @property
        def focused_id(self) -> str:
            return self.order[self.focus]

        def is_open(self, tid: str) -> bool:
            return self.progress[tid].status in UNSETTLED_STATUSES

        def update(self, tid: str, progress: TicketProgress) -> None:
            self.progress[tid] = progress
            self.updated.append(tid)

        def move_focus(self, tid: str | None) -> str:
            if tid is not None:
                self.focus = self.order.index(tid)
            else:
                n = len(self.order)
                opened = [i for i in range(1, n + 1) if self.is_open(self.order[(self.focus + i) % n])]
                self.focus = (self.focus + opened[0]) % n if opened else self.focus
            return self.focused_id

    env, policy, taken_kinds = BugTriageEnv(), RandomPolicy(), set()
    for task_id in ("bug_triage_hard", "generated_medium"):
        obs = env.reset(task_id, seed=5)
        truth = load_task(task_id, seed=5, split="train" if task_id.startswith("generated") else None).truth
        policy.reset(task_id, 5)
        for _ in range(120):
            raw = policy.act(obs)
            state = env.state()
            desk = PublicDesk(
                dict(state.progress), load_world(), state.step_count + 1, state.ticket_order, state.focus_index
            )
            assert not any("truth" in name or "task" in name for name in vars(desk))
            try:
                action = parse_action(raw)
            except ActionParseError:
                action = None
            obs, reward, done, info = env.step(raw)
            target = action and (action.named_ticket or desk.focused_id)
            if action is not None and target is not None and action.check(target, desk) is None:
                taken = action.take(target, desk)
                result = obs.last_action_result
                assert result is not None and info["action_valid"]
                assert (taken.message, taken.ticket_id) == (result.message, result.ticket_id)
                after = env.state()
                assert desk.progress == after.progress and desk.focus == after.focus_index
                counts = dict(taken.terms)
                if not taken.no_op:
                    tid = taken.ticket_id
                    counts |= action.terms(state.progress[tid], after.progress[tid], truth[tid])
                own = {c.name: round(c.weight * n, 10) for c in rw.COMPONENTS if (n := counts.get(c.name, 0))}
                assert own == {k: v for k, v in reward.components.items() if k in type(action).TERMS}
                taken_kinds.add(action.kind)
            if done:
                break
    # every action's state change ran on the truth-free view (search_tracker, refused on static queues, reads
    # only the tracker history: tests/test_live_env.py)
    assert taken_kinds == set(ACTION_TYPES) - {"search_tracker"}
