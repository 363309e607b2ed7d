"""Property tests: arbitrary action sequences never break the environment's promises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from openenv_bug_triage.actions import ACTION_TYPES
from openenv_bug_triage.checker import find_truth_keys
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.models import CLOSE_REASONS, PRIORITIES, SEVERITIES
from openenv_bug_triage.sources import load_task
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.world import load_world

WORLD = load_world()
IDS = sorted(t.ticket_id for tid in TASK_IDS for t in load_task(tid).tickets)

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20))
junk = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
maybe_id = st.one_of(st.none(), st.sampled_from(IDS), st.text(max_size=10))
field_values = {
    "ticket_id": maybe_id,
    "severity": st.one_of(st.sampled_from(SEVERITIES), junk),
    "priority": st.one_of(st.sampled_from(PRIORITIES), junk),
    "component": st.one_of(st.sampled_from(WORLD.components), st.text(max_size=10)),
    "team": st.one_of(st.sampled_from(WORLD.teams), st.text(max_size=10)),
    "duplicate_of": st.one_of(st.sampled_from(IDS), junk),
    "reason": st.one_of(st.sampled_from(CLOSE_REASONS), st.text(max_size=30)),
    "missing": st.one_of(st.lists(st.text(max_size=10), max_size=3), junk),
    "summary": st.one_of(st.none(), st.text(max_size=30)),
}


@st.composite
def action(draw) -> object:
    kind = draw(st.integers(0, 9))
    if kind == 9:
        return draw(junk)
    out: dict = {"action_type": draw(st.one_of(st.sampled_from(ACTION_TYPES), st.text(max_size=8)))}
    for name in draw(st.sets(st.sampled_from(sorted(field_values)), max_size=4)):
        value = draw(field_values[name])
        if value is not None:
            out[name] = value
    return out


@given(task_id=st.sampled_from(TASK_IDS), seed=st.integers(0, 2**32), actions=st.lists(action(), max_size=40))
def test_random_action_sequences_keep_every_promise(task_id, seed, actions):
    env = BugTriageEnv()
    obs = env.reset(task_id=task_id, seed=seed)
    assert not find_truth_keys(obs.model_dump(mode="json"))
    for raw in actions:
        obs, reward, done, info = env.step(raw)
        assert -1.0 <= reward.value <= 1.0
        assert obs.steps_used + obs.steps_remaining == env.state().step_budget
        if done:
            assert 0.0 <= info["grader"]["score"] <= 1.0
            break
        for payload in (obs.model_dump(mode="json"), env.state().model_dump(mode="json"), info):
            assert not find_truth_keys(payload)
    assert 0.0 <= env.grade().score <= 1.0
