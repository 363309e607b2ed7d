"""The handbook's rules in `rules.py`, and the grader's weights read from `data/grading.json`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from openenv_bug_triage import grader, rules
from openenv_bug_triage.grading import Grading, load_grading
from openenv_bug_triage.models import Ticket, TicketProgress, Truth
from openenv_bug_triage.tasks import TASK_IDS, load_fixed_task
from openenv_bug_triage.world import DATA_DIR


@pytest.mark.parametrize(
    ("impact", "scope", "environment", "severity"),
    [
        ("critical", None, "production", "sev0"),
        ("critical", "segment", "staging", "sev2"),
        ("core", "everyone", "production", "sev0"),
        ("core", "segment", "production", "sev1"),
        ("core", "degraded", "production", "sev1"),
        ("core", "workaround", "production", "sev2"),
        ("core", "everyone", "development", "sev2"),
        ("minor", "everyone", "production", "sev2"),
        ("cosmetic", "everyone", "production", "sev3"),
        ("cosmetic", None, "staging", "sev3"),
    ],
)
def test_severity_follows_impact_scope_and_environment(impact, scope, environment, severity) -> None:
    assert rules.severity_for(impact, scope, environment) == severity


def test_the_settling_rules_apply_in_the_handbooks_order() -> None:
    facts = dict(
        duplicate=True,
        vague=True,
        invalid=True,
        unsupported=True,
        retest_clean=True,
        fixed_in_current=True,
        feature=True,
    )
    expected = [
        "duplicate",
        "needs_info",
        "close_invalid",
        "close_wont_fix",
        "close_cannot_reproduce",
        "close_resolved",
        "defer",
        "fix",
    ]
    got = []
    for name in [*facts, None]:
        got.append(rules.disposition_for(**facts))
        if name:
            facts[name] = False
    assert got == expected


@pytest.mark.parametrize("environment", ["production", "staging", "development"])
def test_an_exposure_of_customer_data_is_sev0_and_escalated_in_any_environment(environment) -> None:
    severity = rules.severity_for("critical", None, environment, exposure=True)
    assert severity == "sev0"
    assert rules.should_escalate("fix", severity, environment, exposure=True)
    assert not rules.should_escalate("duplicate", severity, environment, exposure=True)
    assert rules.severity_for("critical", None, environment) == ("sev0" if environment == "production" else "sev2")


def test_an_exposure_is_never_closed_on_a_clean_retest_or_an_upgrade() -> None:
    facts = dict(duplicate=False, vague=False, invalid=False, unsupported=False, feature=False)
    assert rules.disposition_for(**facts, retest_clean=True, fixed_in_current=False, exposure=True) == "fix"
    assert rules.disposition_for(**facts, retest_clean=False, fixed_in_current=True, exposure=True) == "fix"
    assert rules.disposition_for(**facts, retest_clean=True, fixed_in_current=False) == "close_cannot_reproduce"


def test_data_lost_in_production_is_not_closed_on_a_clean_retest_but_an_upgrade_resolves_it() -> None:
    facts = dict(duplicate=False, vague=False, invalid=False, unsupported=False, feature=False)
    lost = rules.data_lost("critical", "database", "production")
    assert lost
    assert rules.disposition_for(**facts, retest_clean=True, fixed_in_current=False, lost=lost) == "fix"
    assert rules.disposition_for(**facts, retest_clean=False, fixed_in_current=True, lost=lost) == "close_resolved"
    assert not rules.data_lost("critical", "database", "staging")  # test data, not customer data
    assert not rules.data_lost("critical", "payments", "production")  # nobody can pay: nothing was lost
    assert not rules.data_lost("core", "database", "production")


def test_a_fix_counts_only_when_it_shipped_after_the_build_and_by_the_current_release() -> None:
    build, fix, current = (datetime(2026, 5, d, tzinfo=UTC) for d in (1, 10, 20))
    assert rules.fixed_by_release(build, fix, current)
    assert rules.fixed_by_release(build, current, current)  # fixed in the current release itself
    assert not rules.fixed_by_release(fix, fix, current)  # seen on the fixing release: the fix did not hold
    assert not rules.fixed_by_release(current, fix, current)  # seen on a later build: a regression
    assert not rules.fixed_by_release(build, current + timedelta(days=1), current)  # not out when filed
    assert not rules.fixed_by_release(build, None, current)  # no note fixes it


def test_a_report_on_a_build_older_than_its_fix_is_resolved_unless_it_is_an_exposure() -> None:
    facts = dict(vague=False, invalid=False, unsupported=False, retest_clean=False, fixed_in_current=False)
    assert rules.disposition_for(**facts, duplicate=False, feature=False, fixed_in_release=True) == "close_resolved"
    assert rules.disposition_for(**facts, duplicate=False, feature=True, fixed_in_release=True) == "close_resolved"
    assert rules.disposition_for(**facts, duplicate=True, feature=False, fixed_in_release=True) == "duplicate"
    assert rules.disposition_for(**facts, duplicate=False, feature=False, fixed_in_release=True, exposure=True) == "fix"
    assert rules.disposition_for(**facts, duplicate=False, feature=False, fixed_in_release=False) == "fix"


def test_the_catalogue_flags_the_exposures_of_customer_data() -> None:
    from openenv_bug_triage.catalogue import load_catalogue

    flagged = {d.id for d in load_catalogue().defects if d.exposure}
    assert {
        "api-gateway-cache-serves-other-tenant",
        "login-session-crossover",
        "sso-okta-idp-initiated-wrong-workspace",
        "permissions-guests-see-all-projects",
        "permissions-removed-members-keep-doc-access",
        "invoicing-pdf-shows-other-customer",
        "data-export-json-contains-other-workspace",
        "file-storage-download-serves-wrong-file",
        "permissions-private-tasks-visible",
        "login-sign-out-leaves-session-open",
        "permissions-workspace-link-opens-to-anyone",
    } <= flagged
    assert {d.partition for d in load_catalogue().defects if d.exposure} == {"train", "validation", "test"}


def test_priority_and_escalation_come_from_the_worlds_tables() -> None:
    assert rules.priority_for("sev1", "enterprise") == "p0" and rules.priority_for("sev1", "pro") == "p1"
    assert rules.should_escalate("fix", "sev1", "production")
    assert not rules.should_escalate("fix", "sev1", "staging")
    assert not rules.should_escalate("duplicate", "sev0", "production")
    assert not rules.should_escalate("fix", "sev2", "production")


def _ticket(**update: object) -> Ticket:
    base = dict(
        ticket_id="T-1",
        title="Checkout fails",
        description="Card payments fail for everyone.",
        reporter_type="user",
        service="billing",
        component_candidates=["payments", "invoicing"],
        created_at="2026-03-02T10:00:00Z",
        customer_tier="enterprise",
        environment="production",
        repro_steps_present=True,
        logs_present=False,
        attachments_count=0,
    )
    return Ticket.model_validate({**base, **update})


def test_settle_moves_escalate_classify_and_assign_a_severe_bug_in_production() -> None:
    moves = rules.settle_moves(_ticket(), "fix", severity="sev1", summary="checkout down")
    assert [m["action_type"] for m in moves] == ["escalate_incident", "classify", "assign"]
    assert moves[0]["summary"] == "checkout down"
    assert moves[1] == {
        "action_type": "classify",
        "ticket_id": "T-1",
        "severity": "sev1",
        "priority": "p0",
        "component": "payments",
    }
    assert moves[2]["team"] == "billing"
    staging = rules.settle_moves(_ticket(environment="staging"), "fix", severity="sev2", component="invoicing")
    assert [m["action_type"] for m in staging] == ["classify", "assign"]


def test_settle_moves_settle_every_other_disposition_in_one_action() -> None:
    t = _ticket()
    assert rules.settle_moves(t, "close_wont_fix") == [
        {"action_type": "close", "ticket_id": "T-1", "reason": "won't_fix"}
    ]
    assert rules.settle_moves(t, "duplicate", duplicate_of="T-0")[0]["duplicate_of"] == "T-0"
    assert rules.settle_moves(t, "needs_info")[0]["action_type"] == "request_info"
    assert rules.settle_moves(t, "defer")[0]["action_type"] == "defer"
    with pytest.raises(ValueError, match="duplicate_of"):
        rules.settle_moves(t, "duplicate")


def test_outcome_correct_needs_every_label_and_the_escalation_of_a_bug() -> None:
    truth = Truth(
        true_severity="sev1",
        true_priority="p0",
        true_component="payments",
        true_assignee_team="billing",
        needs_more_info=False,
        should_escalate=True,
        disposition="fix",
    )
    done = TicketProgress(severity="sev1", priority="p0", component="payments", team="billing", escalated=True)
    assert rules.outcome_correct(truth, done) and rules.is_critical(truth)
    assert not rules.outcome_correct(truth, done.model_copy(update={"escalated": False}))
    assert not rules.outcome_correct(truth, done.model_copy(update={"priority": "p1"}))


def test_the_sla_schedule_finds_the_first_late_ticket() -> None:
    assert rules.settle_schedule([3, 1, 2]) == [3, 4, 6]
    assert rules.late(5, 4) and not rules.late(4, 4) and not rules.late(None, None) and rules.late(None, 4)
    assert sorted([None, 9, 3], key=rules.sla_first) == [3, 9, None]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_fixed_tasks_correct_triage_fits_their_budget(task_id: str) -> None:
    task = load_fixed_task(task_id)
    steps = [rules.correct_steps(t.disposition, t.should_escalate) for t in task.truth.values()]
    assert sum(steps) <= task.step_budget


def test_the_grader_weighs_with_the_shipped_grading_data() -> None:
    raw = json.loads((DATA_DIR / "grading.json").read_text(encoding="utf-8"))
    assert grader.WEIGHTS == raw["weights"] == load_grading().weights
    assert raw["label_weights"] == grader.LABEL_WEIGHTS
    assert raw["pass_threshold"] == grader.PASS_THRESHOLD
    assert raw["critical_ticket_weight"] == grader.CRITICAL_TICKET_WEIGHT


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g["weights"]["easy"].update(tickets=0.7), "weights.easy must add up to 1"),
        (lambda g: g["weights"].pop("expert"), "every difficulty"),
        (lambda g: g["max_major_mistakes"].pop("hard"), "every difficulty"),
        (lambda g: g["candidates_hold_truth"].update(legendary=True), "every difficulty"),
        (lambda g: g["max_major_mistakes"].update(easy=-1), "max_major_mistakes.easy"),
        (lambda g: g["label_weights"].pop("team"), "label_weights"),
        (lambda g: g["weights"]["hard"].update(speed=0.0), "speed"),
    ],
)
def test_grading_data_that_does_not_add_up_is_refused(change, message) -> None:
    raw = json.loads((DATA_DIR / "grading.json").read_text(encoding="utf-8"))
    change(raw)
    with pytest.raises(ValidationError, match=message):
        Grading.model_validate(raw)
