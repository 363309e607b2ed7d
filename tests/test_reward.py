"""Reward shaping as pure functions: values, no farming, clamping."""

from __future__ import annotations

import pytest

from openenv_bug_triage import reward as rw
from openenv_bug_triage.actions import ACTION_ADAPTER
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.models import TicketProgress, Truth
from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.sources import load_task

BUG = Truth(
    true_severity="sev1",
    true_priority="p0",
    true_component="sso",
    true_assignee_team="identity",
    needs_more_info=False,
    should_escalate=True,
    disposition="fix",
)
DUP = BUG.model_copy(update={"disposition": "duplicate", "duplicate_of": "BT-1", "should_escalate": False})
VAGUE = BUG.model_copy(update={"disposition": "needs_info", "needs_more_info": True, "should_escalate": False})
WONTFIX = BUG.model_copy(update={"disposition": "close_wont_fix", "should_escalate": False})


def act(action: dict, truth: Truth, before: TicketProgress | None = None) -> tuple[dict, TicketProgress]:
    """Apply one action to one ticket; return its reward components and the new progress."""
    before = before or TicketProgress()
    parsed = ACTION_ADAPTER.validate_python(action)
    after = parsed.apply(before, step=1)
    no_op = after == before
    terms = {} if no_op else parsed.terms(before, after, truth)
    return rw.evaluate(rw.StepFacts(terms=terms, no_op=no_op)), after


CLASSIFY_OK = {"action_type": "classify", "severity": "sev1", "priority": "p0", "component": "sso"}


def test_first_correct_classify_earns_each_label():
    comps, _ = act(CLASSIFY_OK, BUG)
    assert comps == {"correct_severity": 0.2, "correct_priority": 0.15, "correct_component": 0.15}


def test_partly_wrong_classify_earns_only_the_right_labels():
    comps, _ = act({**CLASSIFY_OK, "severity": "sev3"}, BUG)
    assert comps == {"correct_priority": 0.15, "correct_component": 0.15}


def test_labels_cannot_be_farmed_by_relabelling():
    comps, p = act({**CLASSIFY_OK, "severity": "sev3"}, BUG)
    comps, p = act(CLASSIFY_OK, BUG, p)
    assert comps == {"relabel": -0.05}
    comps, p = act(CLASSIFY_OK, BUG, p)
    assert comps == {"no_op": -0.02}
    assert p.classify_count == 2


def test_labels_earn_nothing_on_tickets_the_handbook_settles_otherwise():
    for truth in (DUP, VAGUE, WONTFIX):
        assert act(CLASSIFY_OK, truth)[0] == {}
        assert act({"action_type": "assign", "team": "identity"}, truth)[0] == {}


def test_assign_team():
    assert act({"action_type": "assign", "team": "identity"}, BUG)[0] == {"correct_team": 0.1}
    assert act({"action_type": "assign", "team": "billing"}, BUG)[0] == {}
    _, p = act({"action_type": "assign", "team": "billing"}, BUG)
    assert act({"action_type": "assign", "team": "identity"}, BUG, p)[0] == {"relabel": -0.05}


def test_duplicates():
    assert act({"action_type": "mark_duplicate", "duplicate_of": "BT-1"}, DUP)[0] == {"correct_duplicate": 0.15}
    assert act({"action_type": "mark_duplicate", "duplicate_of": "BT-2"}, DUP)[0] == {"wrong_outcome": -0.05}
    assert act({"action_type": "mark_duplicate", "duplicate_of": "BT-2"}, BUG)[0] == {"destructive_action": -0.2}


def test_close_and_defer_are_destructive_on_real_bugs():
    assert act({"action_type": "close", "reason": "invalid"}, BUG)[0] == {"destructive_action": -0.2}
    assert act({"action_type": "defer", "reason": "later"}, BUG)[0] == {"destructive_action": -0.2}
    assert act({"action_type": "close", "reason": "won't_fix"}, WONTFIX)[0] == {"correct_outcome": 0.1}
    assert act({"action_type": "close", "reason": "invalid"}, WONTFIX)[0] == {"wrong_outcome": -0.05}


def test_request_info():
    assert act({"action_type": "request_info"}, VAGUE)[0] == {"correct_request_info": 0.1}
    assert act({"action_type": "request_info"}, BUG)[0] == {"unneeded_request_info": -0.05}


def test_escalation_pays_once():
    comps, p = act({"action_type": "escalate_incident"}, BUG)
    assert comps == {"correct_escalation": 0.15}
    assert act({"action_type": "escalate_incident"}, BUG, p)[0] == {"no_op": -0.02}
    assert act({"action_type": "escalate_incident"}, DUP)[0] == {"false_escalation": -0.1}


def test_combine_clamps_to_unit_interval():
    assert rw.combine({"a": 0.8}, {"b": 0.7}) == (1.0, {"a": 0.8, "b": 0.7})
    assert rw.combine({"a": -0.9}, {"a": -0.9})[0] == -1.0


def terminal(truth: dict, progress: dict, budget_exhausted: bool) -> dict:
    """The components of an episode's last step that did nothing else."""
    facts = rw.StepFacts(truth=truth, after=progress, done=True, truncated=budget_exhausted)
    return rw.evaluate(facts)


def sla(tickets: list, before: dict, after: dict, step: int) -> dict:
    """The SLA components of one step."""
    return rw.evaluate(rw.StepFacts(tickets=tickets, before=before, after=after, step=step))


def test_terminal_terms():
    truth = {"A": BUG, "B": WONTFIX}
    unsettled = {"A": TicketProgress(), "B": TicketProgress()}
    assert terminal(truth, unsettled, budget_exhausted=True) == {
        "missed_escalation": -0.15,
        "critical_left_penalty": -0.1,
    }
    perfect = {
        "A": TicketProgress(severity="sev1", priority="p0", component="sso", team="identity", escalated=True),
        "B": TicketProgress(close_reason="won't_fix"),
    }
    assert terminal(truth, perfect, budget_exhausted=False) == {"critical_done_bonus": 0.1}


def test_sla_breach_is_charged_once_when_the_deadline_passes():
    task = load_task("bug_triage_hard")
    env = BugTriageEnv()
    env.reset(task_id=task.task_id, seed=42)
    deadline = min(t.sla_deadline_step for t in task.tickets if t.sla_deadline_step)
    n = sum(1 for t in task.tickets if t.sla_deadline_step == deadline)
    charged = []
    for _ in range(deadline + 3):
        _, reward, _, _ = env.step({"action_type": "next_ticket"})
        charged.append(reward.components.get("sla_breach", 0.0))
    assert charged[deadline] == pytest.approx(-0.05 * n)
    assert sum(1 for c in charged if c) == 1


def test_oracle_episode_earns_the_critical_bonus_on_its_last_step():
    env = BugTriageEnv()
    env.reset(task_id="bug_triage_medium", seed=42)
    for action in oracle_actions("bug_triage_medium"):
        obs, reward, done, _ = env.step(action)
    assert done and reward.components.get("critical_done_bonus") == 0.1
    assert all(v > 0 for v in obs.score_breakdown.values()), obs.score_breakdown


def test_relabelling_costs_the_same_on_every_ticket():
    for truth in (BUG, DUP, VAGUE, WONTFIX):
        _, p = act({"action_type": "assign", "team": "billing"}, truth)
        assert act({"action_type": "assign", "team": "sre"}, truth, p)[0] == {"relabel": -0.05}
        _, p = act({**CLASSIFY_OK, "severity": "sev3"}, truth)
        assert act({**CLASSIFY_OK, "severity": "sev2"}, truth, p)[0] == {"relabel": -0.05}


def _sla_ticket(deadline: int):
    return load_task("bug_triage_easy").tickets[0].model_copy(update={"sla_deadline_step": deadline})


def test_a_settled_ticket_changed_after_its_deadline_is_charged_then_and_only_then():
    ticket, tid = _sla_ticket(5), load_task("bug_triage_easy").tickets[0].ticket_id
    triaged = TicketProgress(severity="sev2", priority="p2", component="sso", team="identity", settled_at_step=3)
    closed_late = triaged.model_copy(update={"close_reason": "invalid", "settled_at_step": 9})
    assert sla([ticket], {tid: triaged}, {tid: triaged}, 6) == {}  # on time when the deadline passed
    assert sla([ticket], {tid: triaged}, {tid: closed_late}, 9) == {"sla_breach": -0.05}
    assert sla([ticket], {tid: closed_late}, {tid: closed_late}, 10) == {}  # once
    closed_early = triaged.model_copy(update={"close_reason": "invalid", "settled_at_step": 4})
    assert sla([ticket], {tid: triaged}, {tid: closed_early}, 4) == {}  # changed before the deadline
    assert sla([ticket], {tid: closed_early}, {tid: closed_early}, 6) == {}


def test_changing_a_triaged_ticket_re_dates_its_settlement():
    _, p = act(CLASSIFY_OK, BUG)
    p = ACTION_ADAPTER.validate_python({"action_type": "assign", "team": "identity"}).apply(p, step=2)
    assert p.settled_at_step == 2
    same = ACTION_ADAPTER.validate_python({"action_type": "assign", "team": "identity"}).apply(p, step=7)
    assert same.settled_at_step == 2  # a no-op changes nothing
    moved = ACTION_ADAPTER.validate_python({"action_type": "escalate_incident"}).apply(p, step=8)
    assert moved.settled_at_step == 8
    closed = ACTION_ADAPTER.validate_python({"action_type": "close", "reason": "invalid"}).apply(p, step=9)
    assert closed.settled_at_step == 9


def test_evaluate_asks_only_the_components_that_can_fire_and_gives_what_asking_all_would(monkeypatch) -> None:
    from openenv_bug_triage.env import BugTriageEnv
    from openenv_bug_triage.episode import start
    from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy

    seen: list[rw.StepFacts] = []
    score = rw.score
    monkeypatch.setattr(rw, "score", lambda facts: seen.append(facts) or score(facts))
    for policy, task_id in ((RandomPolicy(), "bug_triage_hard"), (HeuristicPolicy(), "bug_triage_medium")):
        for seed in (1, 2):
            start(BugTriageEnv(), policy, task_id, seed).play()
    idle = BugTriageEnv()
    idle.reset("bug_triage_hard", seed=1)
    while not idle.step({"action_type": "next_ticket"})[2]:  # the budget runs out with every ticket open
        pass
    assert len(seen) > 100 and any(f.done for f in seen) and any(f.truncated for f in seen)
    for facts in seen:
        every = {c.name: round(c.weight * n, 10) for c in rw.COMPONENTS if (n := c.times(facts))}
        assert rw.evaluate(facts) == every and list(rw.evaluate(facts)) == list(every)
        if not facts.done:
            assert all(c.times(facts) == 0 for c in rw.COMPONENTS if c.at_end)
    assert {c.name for c in rw.COMPONENTS if c.at_end} == {c.name for c in rw.COMPONENTS if "at the end" in c.when}
