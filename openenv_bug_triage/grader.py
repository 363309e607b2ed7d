"""Deterministic graders: pure functions of a task and the final triage state.

score = clamp(sum(WEIGHTS[difficulty][k] * subscore[k]) - penalty, 0, 1), where

- tickets:      mean per-ticket credit (hard: sev0/sev1 bugs weigh 3x). A bug to fix earns
                the weighted share of correct labels (severity 0.35, priority 0.25,
                component 0.25, team 0.15), each halved for every relabel; any other
                ticket earns 1 when it ends exactly as the handbook says, else 0.
- duplicates:   F1 of the (ticket, original) links marked against the true links.
- request_info: F1 of the tickets asked for information against those that need it.
- escalation:   F1 of the tickets escalated against those that must be.
- sla:          mean credit of SLA tickets, counting only those whose final state was reached
                by their deadline (changing a triaged ticket later re-dates its settlement).
- critical:     (hard) mean credit of sev0/sev1 bugs, 0 for any not escalated.
- penalty:      0.05 per real bug closed, deferred or marked duplicate, plus 0.01 per
                invalid or no-op action, 0.01 per ticket escalated that must not be (a page the
                incident commander did not need) and 0.10 x the share of the queue's tickets left
                triaged as a bug that are no defect at all (`is_stray_bug`: work on a team's board
                that is not a bug to fix; a duplicate is a defect, its missed link costs elsewhere):
                labelling or paging about everything is no policy, and losing a bug stays dearest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from . import grading
from .models import SEVERITIES, Difficulty, GraderResult, Ticket, TicketProgress, Truth
from .rules import SETTLING_ACTION, is_critical, outcome_correct, settled_on_time
from .tasks import Task

_T = TypeVar("_T")

GRADING = grading.load_grading()
"""Weights and costs from `data/grading.json`; the names below are its fields. `grade_episode` reads the
per-difficulty ones through `grading.load_grading()` when it grades, so a difficulty is data only."""
LABEL_WEIGHTS: dict[str, float] = {k: w for k, w in GRADING.label_weights.items()}
RELABEL_DECAY = GRADING.relabel_decay
DESTRUCTIVE_COST = GRADING.destructive_cost
HYGIENE_COST = GRADING.hygiene_cost
FALSE_PAGE_COST = GRADING.false_page_cost
STRAY_BUG_COST = GRADING.stray_bug_cost
PASS_THRESHOLD = GRADING.pass_threshold
WEIGHTS: dict[Difficulty, dict[str, float]] = {d: {k: x for k, x in w.items()} for d, w in GRADING.weights.items()}
CRITICAL_TICKET_WEIGHT: dict[Difficulty, float] = GRADING.critical_ticket_weight


def f1(predicted: set[_T], actual: set[_T]) -> float:
    """F1 of two sets; 1.0 when both are empty."""
    if not predicted and not actual:
        return 1.0
    hits = len(predicted & actual)
    return 2 * hits / (len(predicted) + len(actual))


def _decay(count: int) -> float:
    return max(0.0, 1.0 - RELABEL_DECAY * max(0, count - 1))


def _outcome_name(p: TicketProgress) -> str:
    if p.duplicate_of:
        return f"mark_duplicate of {p.duplicate_of}"
    if p.close_reason:
        return f"close ({p.close_reason})"
    return {"awaiting_info": "request_info", "deferred": "defer"}.get(p.status, f"left {p.status}")


def _expected(text: str, expected: str) -> str:
    return f"{text}, expected {expected}"


def ticket_right(truth: Truth, p: TicketProgress) -> bool:
    """True when the ticket ended exactly as its truth says, escalation included."""
    return outcome_correct(truth, p) and p.escalated == truth.should_escalate


def is_stray_bug(truth: Truth, p: TicketProgress) -> bool:
    """A ticket left on a team's board as a bug to fix that is no defect to work on: a request, a vague
    report, or one to close or defer. (A duplicate left triaged is a real defect; what it misses is its
    link, which the duplicates subscore counts.)"""
    return truth.disposition not in ("fix", "duplicate") and p.status == "triaged"


def agent_mistake(tid: str, p: TicketProgress) -> str:
    """The agent's line for a ticket that did not end right: one wording whatever the ticket is."""
    escalated = ", escalated" if p.escalated else ""
    return f"{tid}: not settled as the handbook says (final state: {_outcome_name(p).removeprefix('left ')}{escalated})"


def ticket_credit(tid: str, truth: Truth, p: TicketProgress) -> tuple[float, list[str], int]:
    """Credit in [0, 1] for one ticket, its mistakes naming the expected values, and its major mistakes."""
    if truth.disposition != "fix":
        if outcome_correct(truth, p):
            return 1.0, [], 0
        expected = SETTLING_ACTION[truth.disposition]
        if truth.duplicate_of:
            expected += f" of {truth.duplicate_of}"
        return 0.0, [_expected(f"{tid}: outcome {_outcome_name(p)}", expected)], 0
    if p.final:
        lost = _expected(f"{tid}: a real bug was parked by {_outcome_name(p)}", "classify and assign")
        return 0.0, [lost], 0 if p.info_requested else 1
    wanted = {
        "severity": (p.severity, truth.true_severity, p.classify_count),
        "priority": (p.priority, truth.true_priority, p.classify_count),
        "component": (p.component, truth.true_component, p.classify_count),
        "team": (p.team, truth.true_assignee_team, p.assign_count),
    }
    credit, mistakes, major = 0.0, [], 0
    for name, (got, want, count) in wanted.items():
        if got == want:
            credit += LABEL_WEIGHTS[name] * _decay(count)
            if count > 1:
                mistakes.append(f"{tid} {name}: right after {count - 1} relabel(s)")
        else:
            mistakes.append(_expected(f"{tid} {name}: {got or 'not set'}", str(want)))
    if p.severity and abs(SEVERITIES.index(p.severity) - SEVERITIES.index(truth.true_severity)) >= 2:
        major += 1
    if is_critical(truth) and not p.settled:
        major += 1
    return credit, mistakes, major


def grade_episode(
    task: Task,
    progress: Mapping[str, TicketProgress],
    invalid_actions: int = 0,
    no_op_actions: int = 0,
    reveal: bool = True,
    settled_truth: Mapping[str, Truth] | None = None,
    tickets: Sequence[Ticket] | None = None,
) -> GraderResult:
    """Grade a triage state for `task` with its difficulty's weights (see module docstring).

    With `reveal=False` (the agent's copy) the score, subscores and `passed` are the same, and
    the mistakes are one line per ticket that did not end right, worded alike whatever the
    ticket is and naming only what the agent did: the truth of a fixed task is the same in
    every episode, so the agent's copy must not say what was expected, which tickets are
    bugs, or how many incidents, duplicates or vague reports there were.

    `settled_truth` is a live queue's truth at the end, where a reporter's reply changed it: every
    subscore reads it but `request_info`, which judges the requests by the tickets as they were filed;
    `tickets` are its tickets as they stand, their SLA deadlines counted from their arrival or last reply.
    """
    truth = task.truth if settled_truth is None else settled_truth
    credits: dict[str, float] = {}
    mistakes: list[str] = []
    major = 0
    for tid in task.ticket_ids:
        credit, found, majors = ticket_credit(tid, truth[tid], progress[tid])
        credits[tid], major = credit, major + majors
        if reveal:
            mistakes.extend(found)
        elif not ticket_right(truth[tid], progress[tid]):
            mistakes.append(agent_mistake(tid, progress[tid]))
    escalated = {tid for tid, p in progress.items() if p.escalated}
    must_escalate = {tid for tid, t in truth.items() if t.should_escalate}
    missed = sorted(must_escalate - escalated)
    major += len(missed)
    if reveal:
        mistakes.extend(f"{tid}: not escalated, expected escalate_incident" for tid in missed)
        mistakes.extend(_expected(f"{tid}: escalated", "no escalation") for tid in sorted(escalated - must_escalate))

    profile = grading.load_grading()
    critical_weight = profile.critical_ticket_weight[task.difficulty]
    weight = {tid: critical_weight if is_critical(t) else 1.0 for tid, t in truth.items()}
    sla_tickets = [t for t in (task.tickets if tickets is None else tickets) if t.sla_deadline_step is not None]
    on_time = [credits[t.ticket_id] if settled_on_time(t, progress[t.ticket_id]) else 0.0 for t in sla_tickets]
    critical = [
        credits[tid] * (progress[tid].escalated or not truth[tid].should_escalate)
        for tid, t in truth.items()
        if is_critical(t)
    ]
    subscores = {
        "tickets": sum(credits[t] * weight[t] for t in credits) / sum(weight.values()),
        "duplicates": f1(
            {(tid, p.duplicate_of) for tid, p in progress.items() if p.duplicate_of},
            {(tid, t.duplicate_of) for tid, t in truth.items() if t.duplicate_of},
        ),
        "request_info": f1(
            {tid for tid, p in progress.items() if p.info_requested},
            {tid for tid, t in task.truth.items() if t.needs_more_info},
        ),
        "escalation": f1(escalated, must_escalate),
        "sla": sum(on_time) / len(on_time) if on_time else 1.0,
        "critical": sum(critical) / len(critical) if critical else 1.0,
    }
    weights: dict[str, float] = {k: w for k, w in profile.weights[task.difficulty].items()}
    destroyed = sum(
        1
        for tid, t in truth.items()
        if t.disposition == "fix" and progress[tid].final and not progress[tid].info_requested
    )
    false_pages = len(escalated - must_escalate)
    stray_bugs = sum(1 for tid, t in truth.items() if is_stray_bug(t, progress[tid]))
    penalty = (
        DESTRUCTIVE_COST * destroyed
        + HYGIENE_COST * (invalid_actions + no_op_actions)
        + FALSE_PAGE_COST * false_pages
        + STRAY_BUG_COST * stray_bugs / len(truth)
    )
    raw = sum(w * subscores[k] for k, w in weights.items()) - penalty
    score = round(min(1.0, max(0.0, raw)), 6)
    reported = {k: round(v, 6) for k, v in subscores.items() if k in weights}
    reported["penalty"] = round(penalty, 6)
    most = profile.max_major_mistakes[task.difficulty]
    passed = score >= PASS_THRESHOLD and (most is None or major <= most)
    return GraderResult(task_id=task.task_id, score=score, subscores=reported, mistakes=mistakes, passed=passed)
