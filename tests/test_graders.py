"""Graders: each criterion on hand-built states, the pass rule, and weighting by difficulty."""

from __future__ import annotations

import pytest

from openenv_bug_triage.grader import f1, grade_episode
from openenv_bug_triage.models import TaskFixture, TicketProgress
from openenv_bug_triage.tasks import Task, build_task


def _ticket(tid, tier, truth, minute, **visible):
    base = {
        "ticket_id": tid,
        "title": f"Report {tid}",
        "description": f"Description of {tid}.",
        "reporter_type": "user",
        "service": "auth",
        "component_candidates": ["sso", "search", "web-ui"],
        "customer_tier": tier,
        "created_at": f"2026-11-02T09:{minute:02d}:00Z",
        "environment": "production",
        "repro_steps_present": True,
        "logs_present": False,
        "attachments_count": 0,
    }
    base.update(visible)
    t = {"duplicate_of": None, "needs_more_info": False, "should_escalate": False, **truth}
    return {**base, "truth": t}


SSO = {"true_component": "sso", "true_assignee_team": "identity"}


def small_task(difficulty: str = "easy") -> Task:
    """Six tickets, one of each outcome; A is a sev1 incident with an enterprise SLA."""
    return build_task(TaskFixture.model_validate(small_fixture(difficulty)))


def small_fixture(difficulty: str) -> dict:
    """The raw fixture of `small_task`."""
    return {
        "task_id": "tiny",
        "difficulty": difficulty,
        "description": "hand-built",
        "step_budget": 12,
        "sla_policy": {"enterprise": 3, "pro": 6},
        "tickets": [
            _ticket(
                "A",
                "enterprise",
                {**SSO, "true_severity": "sev1", "true_priority": "p0", "should_escalate": True, "disposition": "fix"},
                1,
            ),
            _ticket(
                "B",
                "pro",
                {
                    "true_severity": "sev2",
                    "true_priority": "p2",
                    "true_component": "search",
                    "true_assignee_team": "data",
                    "disposition": "fix",
                },
                2,
            ),
            _ticket(
                "C",
                "free",
                {
                    **SSO,
                    "true_severity": "sev1",
                    "true_priority": "p1",
                    "duplicate_of": "A",
                    "disposition": "duplicate",
                },
                3,
            ),
            _ticket(
                "D",
                "free",
                {
                    **SSO,
                    "true_severity": "sev3",
                    "true_priority": "p3",
                    "needs_more_info": True,
                    "disposition": "needs_info",
                },
                4,
                repro_steps_present=False,
            ),
            _ticket(
                "E", "free", {**SSO, "true_severity": "sev3", "true_priority": "p3", "disposition": "close_wont_fix"}, 5
            ),
            _ticket("F", "free", {**SSO, "true_severity": "sev3", "true_priority": "p3", "disposition": "defer"}, 6),
        ],
    }


def perfect() -> dict[str, TicketProgress]:
    return {
        "A": TicketProgress(
            severity="sev1",
            priority="p0",
            component="sso",
            team="identity",
            escalated=True,
            classify_count=1,
            assign_count=1,
            settled_at_step=3,
        ),
        "B": TicketProgress(
            severity="sev2",
            priority="p2",
            component="search",
            team="data",
            classify_count=1,
            assign_count=1,
            settled_at_step=5,
        ),
        "C": TicketProgress(duplicate_of="A", settled_at_step=6),
        "D": TicketProgress(info_requested=True, settled_at_step=7),
        "E": TicketProgress(close_reason="won't_fix", settled_at_step=8),
        "F": TicketProgress(deferred=True, settled_at_step=9),
    }


def with_(progress: dict[str, TicketProgress], tid: str, **update) -> dict[str, TicketProgress]:
    return {**progress, tid: progress[tid].model_copy(update=update)}


def test_f1():
    assert f1(set(), set()) == 1.0
    assert f1({1}, set()) == 0.0
    assert f1({1, 2}, {2, 3}) == 0.5


def test_perfect_state_scores_one():
    result = grade_episode(small_task(), perfect())
    assert result.score == 1.0 and result.passed and result.mistakes == []
    assert set(result.subscores) == {"tickets", "duplicates", "request_info", "escalation", "sla", "penalty"}


def test_empty_state_scores_zero_and_names_every_ticket():
    result = grade_episode(small_task(), {t: TicketProgress() for t in "ABCDEF"})
    assert result.score == 0.0 and not result.passed
    for tid in "ABCDEF":
        assert any(m.startswith(tid) for m in result.mistakes)


def test_wrong_label_costs_its_weight_and_is_named():
    result = grade_episode(small_task(), with_(perfect(), "B", severity="sev3"))
    assert result.subscores["tickets"] == pytest.approx((5 + 0.65) / 6)
    assert "B severity: sev3, expected sev2" in result.mistakes


def test_relabelling_halves_the_label_credit():
    result = grade_episode(small_task(), with_(perfect(), "B", classify_count=2))
    assert result.subscores["tickets"] == pytest.approx((5 + 0.15 + 0.85 / 2) / 6)
    assert result.score < 1.0


def test_duplicate_f1():
    progress = with_(perfect(), "C", duplicate_of="B")
    assert grade_episode(small_task(), progress).subscores["duplicates"] == 0.0
    progress = with_(perfect(), "F", duplicate_of="A", deferred=False)
    assert grade_episode(small_task(), progress).subscores["duplicates"] == pytest.approx(2 / 3)


def test_request_info_f1_charges_unneeded_requests():
    progress = with_(with_(perfect(), "E", close_reason=None, info_requested=True), "D", info_requested=True)
    assert grade_episode(small_task(), progress).subscores["request_info"] == pytest.approx(2 / 3)


def test_escalation_f1_and_missed_escalation_is_named():
    result = grade_episode(small_task(), with_(perfect(), "A", escalated=False))
    assert result.subscores["escalation"] == 0.0
    assert "A: not escalated, expected escalate_incident" in result.mistakes
    result = grade_episode(small_task(), with_(perfect(), "B", escalated=True))
    assert result.subscores["escalation"] == pytest.approx(2 / 3)


def test_each_needless_page_costs_beside_the_escalation_f1():
    one = grade_episode(small_task(), with_(perfect(), "B", escalated=True))
    two = grade_episode(small_task(), with_(with_(perfect(), "B", escalated=True), "C", escalated=True))
    assert one.subscores["penalty"] == 0.01 and two.subscores["penalty"] == 0.02
    assert grade_episode(small_task(), perfect()).subscores["penalty"] == 0.0


def test_a_non_bug_left_on_a_teams_board_costs_its_share_of_the_queue():
    labelled = {"severity": "sev3", "priority": "p3", "component": "sso", "team": "identity"}
    stray = with_(perfect(), "F", deferred=False, **labelled)  # a defer, triaged as a bug instead
    assert grade_episode(small_task(), stray).subscores["penalty"] == round(0.1 / 6, 6)
    closed = with_(perfect(), "E", **labelled)  # labelled, then closed as the handbook says: no cost
    assert grade_episode(small_task(), closed).subscores["penalty"] == 0.0


def test_sla_counts_only_tickets_settled_by_their_deadline():
    result = grade_episode(small_task(), with_(perfect(), "A", settled_at_step=4))
    assert result.subscores["sla"] == 0.5


def test_destroying_a_real_bug_is_penalised():
    progress = with_(perfect(), "B", severity=None, priority=None, component=None, team=None, close_reason="invalid")
    result = grade_episode(small_task(), progress)
    assert result.subscores["penalty"] == 0.05
    assert any("B: a real bug was parked by close (invalid)" in m for m in result.mistakes)


def test_invalid_and_no_op_actions_are_penalised():
    result = grade_episode(small_task(), perfect(), invalid_actions=3, no_op_actions=2)
    assert result.subscores["penalty"] == 0.05
    assert result.score == 0.95


def test_easy_fails_with_two_major_mistakes_even_above_threshold():
    progress = with_(perfect(), "A", severity="sev3", escalated=False)
    easy = grade_episode(small_task("easy"), progress)
    medium = grade_episode(small_task("medium"), progress)
    assert easy.score >= 0.75 and not easy.passed
    assert medium.score >= 0.75 and medium.passed


def test_a_new_difficulty_is_data_only_and_both_per_difficulty_rules_follow_the_data(monkeypatch):
    from openenv_bug_triage import grading
    from openenv_bug_triage.errors import FixtureError

    with pytest.raises(FixtureError, match=r"difficulty .legendary. has no weights in data/grading\.json"):
        small_task("legendary")
    shipped = grading.load_grading().model_dump()

    def add_legendary(max_major: int | None, candidates: bool) -> grading.Grading:
        raw = {**shipped, **{name: dict(shipped[name]) for name in grading.PER_DIFFICULTY}}
        raw["weights"]["legendary"] = shipped["weights"]["medium"]
        raw["critical_ticket_weight"]["legendary"] = 1.0
        raw["max_major_mistakes"]["legendary"] = max_major
        raw["candidates_hold_truth"]["legendary"] = candidates
        return grading.Grading.model_validate(raw)

    two_majors = with_(perfect(), "A", severity="sev3", escalated=False)
    unlisted = small_fixture("legendary")
    unlisted["tickets"][1]["component_candidates"] = ["sso", "web-ui"]  # B's true component is search
    strict = add_legendary(max_major=1, candidates=True)
    monkeypatch.setattr(grading, "load_grading", lambda: strict)
    result = grade_episode(small_task("legendary"), two_majors)
    assert result.score >= 0.75 and not result.passed
    with pytest.raises(FixtureError, match=r"component_candidates.*must hold the true component in legendary tasks"):
        build_task(TaskFixture.model_validate(unlisted))
    lenient = add_legendary(max_major=None, candidates=False)
    monkeypatch.setattr(grading, "load_grading", lambda: lenient)
    assert grade_episode(small_task("legendary"), two_majors).passed
    assert build_task(TaskFixture.model_validate(unlisted)).difficulty == "legendary"


def test_hard_weighs_critical_tickets_more():
    progress = with_(perfect(), "A", severity="sev2")
    medium = grade_episode(small_task("medium"), progress)
    hard = grade_episode(small_task("hard"), progress)
    assert hard.subscores["tickets"] < medium.subscores["tickets"]
    assert hard.subscores["critical"] == pytest.approx(0.65)
    assert "critical" not in medium.subscores


def test_grading_is_pure():
    task, progress = small_task(), perfect()
    snapshot = {k: v.model_dump() for k, v in progress.items()}
    assert grade_episode(task, progress) == grade_episode(task, progress)
    assert {k: v.model_dump() for k, v in progress.items()} == snapshot
