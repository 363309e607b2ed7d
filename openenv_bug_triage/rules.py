"""The handbook's rules (`data/handbook.md`) as pure functions, in one place.

The generator derives a ticket's truth with them, the fixture checks hold hand-written truth
to them, and the reward, the grader and the reference policies judge and settle tickets by
them. The organisation's tables (priority by severity and tier, which severities in which
environment are escalated) are data in `data/world.json`; these functions read them from the
`World` they are given, or the shipped one.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .models import (
    CLOSE_DISPOSITION,
    SEVERITIES,
    CloseReason,
    Disposition,
    Environment,
    Priority,
    ReporterType,
    Severity,
    SlaPolicy,
    Ticket,
    TicketProgress,
    Tier,
    Truth,
)
from .world import World, load_world

# --------------------------------------------------------------------------- routing

DRAWS_ITS_OWN: frozenset[str] = frozenset(
    {"web-ui", "editor", "ios-app", "android-app", "email-delivery", "push-notifications", "data-export", "invoicing"}
)
"""Components that draw what they show: a document, an app screen, an email, a push, an export, an invoice."""


def drawn_by(component: str) -> str:
    """The component a display glitch on `component`'s feature belongs to (handbook section 2).

    Wrong fonts, colours, icons or layout belong where they are shown: a feature with a page of
    its own in the web app (sign-in, billing, reports, search) is drawn by `web-ui`.
    """
    return component if component in DRAWS_ITS_OWN else "web-ui"


# --------------------------------------------------------------------------- severity, priority, escalation

SEVERE: frozenset[Severity] = frozenset({"sev0", "sev1"})
"""Severities of a major incident: at most sev2 outside production, escalated in it."""


def severity_for(
    impact: str | None, scope: str | None, environment: Environment, *, exposure: bool = False
) -> Severity:
    """Severity from the impact class of a defect, the scope it is stated to hit, and its environment.

    An `exposure` of customer data to the wrong people is sev0 in any environment. Otherwise
    `critical` (data lost or corrupted; nobody can pay) is sev0; a broken core workflow is
    sev0 for everyone (more than half of attempts failing), sev1 for a group or under severe
    degradation (more than 5% and at most half failing), else sev2; a `minor` defect is sev2
    and any other (cosmetic) sev3. Outside production, sev0 and sev1 become sev2.
    """
    if exposure:
        return "sev0"
    if impact == "critical":
        severity: Severity = "sev0"
    elif impact == "core":
        by_scope: dict[str, Severity] = {"everyone": "sev0", "segment": "sev1", "degraded": "sev1"}
        severity = by_scope.get(scope or "", "sev2")
    elif impact == "minor":
        severity = "sev2"
    else:
        severity = "sev3"
    return cap_outside_production(severity, environment)


LOSS_OF_PAYMENT: frozenset[str] = frozenset({"payments"})
"""Components whose `critical` defects stop customers paying; everywhere else `critical` means data lost or corrupted."""


def data_lost(impact: str | None, component: str, environment: Environment) -> bool:
    """True when the defect lost or corrupted customer data in production: a clean retest today does not
    undo a loss that already happened, so it does not settle the report (handbook section 5, rule 3)."""
    return impact == "critical" and component not in LOSS_OF_PAYMENT and environment == "production"


def cap_outside_production(severity: Severity, environment: Environment) -> Severity:
    """A defect seen only in staging or development is at most sev2 (a cosmetic one stays sev3)."""
    return "sev2" if environment != "production" and severity in SEVERE else severity


def exposure_outside_production(severity: Severity, environment: Environment) -> bool:
    """True for a sev0 outside production: the cap leaves only an exposure of customer data there."""
    return environment != "production" and severity == "sev0"


def priority_for(severity: Severity, tier: Tier, world: World | None = None) -> Priority:
    """The priority table: how soon a defect of `severity` for a `tier` customer is worked on."""
    return (world or load_world()).priority_for(severity, tier)


def should_escalate(
    disposition: Disposition,
    severity: Severity,
    environment: Environment,
    world: World | None = None,
    *,
    exposure: bool = False,
) -> bool:
    """Escalate exactly the bugs to fix whose severity and environment page the incident commander,
    and every exposure of customer data, whatever its environment."""
    if disposition != "fix":
        return False
    return exposure or (world or load_world()).needs_escalation(severity, environment)


# --------------------------------------------------------------------------- settling a ticket


def disposition_for(
    *,
    duplicate: bool,
    vague: bool,
    invalid: bool,
    unsupported: bool,
    retest_clean: bool,
    fixed_in_current: bool,
    feature: bool,
    exposure: bool = False,
    defect: bool = False,
    fixed_in_release: bool = False,
    lost: bool = False,
) -> Disposition:
    """How a ticket is settled, the handbook's rules in their order: duplicate, request info,
    close (invalid, won't fix, cannot reproduce, resolved), defer, else fix.

    An exposure of customer data is never closed on a clean retest or an upgrade: a leak that
    cannot be reproduced may still have happened. Nor is customer data already `lost` or corrupted in
    production closed on a clean retest (see `data_lost`), though an upgrade that credits the fix resolves
    it like any defect. A report that describes a `defect` is not
    deferred for the request it also makes (a feature, the old behaviour back). A report on a
    build older than a release whose notes fix its defect (`fixed_in_release`, see
    `fixed_by_release`) is resolved like one that went away after an upgrade.
    """
    if duplicate:
        return "duplicate"
    if vague:
        return "needs_info"
    if invalid:
        return "close_invalid"
    if unsupported:
        return "close_wont_fix"
    if retest_clean and not (exposure or lost):
        return "close_cannot_reproduce"
    if (fixed_in_current or fixed_in_release) and not exposure:
        return "close_resolved"
    if feature and not defect:
        return "defer"
    return "fix"


def fixed_by_release(build: datetime, fix: datetime | None, current: datetime) -> bool:
    """True when the defect a report describes is already fixed for its reporter's next upgrade.

    `build` is when the build the report was seen on came out, `fix` when the release whose
    notes fix exactly that defect came out (None: no release note fixes it) and `current` when
    the current release came out. Only a fix newer than the build and out by the current
    release settles the report; seen on the fixing release or a later one, the fix did not
    hold and the report is a regression to fix.
    """
    return fix is not None and build < fix <= current


def triaged_problem(severities: list[Severity]) -> int:
    """Which of the unrelated problems one report describes is triaged: the most severe, the first on ties."""
    return min(range(len(severities)), key=lambda i: (SEVERITIES.index(severities[i]), i))


def may_need_info(reporter_type: ReporterType, repro_steps_present: bool, logs_present: bool) -> bool:
    """A report can need more information only when it has no steps, no logs and is not an alert."""
    return reporter_type != "monitoring" and not repro_steps_present and not logs_present


CLOSE_REASON_OF: dict[Disposition, CloseReason] = {
    disposition: reason for reason, disposition in CLOSE_DISPOSITION.items()
}
"""The `close` reason that settles a ticket of each close disposition."""

SETTLING_ACTION: dict[Disposition, str] = {
    "fix": "classify and assign",
    "duplicate": "mark_duplicate",
    "needs_info": "request_info",
    "defer": "defer",
    **{disposition: f"close ({reason})" for disposition, reason in CLOSE_REASON_OF.items()},
}
"""The action that settles a ticket of each disposition, as a reader names it."""


def outcome_correct(truth: Truth, progress: TicketProgress) -> bool:
    """True when the ticket ended exactly as its truth says (labels, team, escalation included)."""
    d = truth.disposition
    if d == "fix":
        return (
            progress.status == "triaged"
            and progress.severity == truth.true_severity
            and progress.priority == truth.true_priority
            and progress.component == truth.true_component
            and progress.team == truth.true_assignee_team
            and progress.escalated == truth.should_escalate
        )
    if d == "duplicate":
        return progress.duplicate_of == truth.duplicate_of
    if d == "needs_info":
        return progress.status == "awaiting_info"
    if d == "defer":
        return progress.status == "deferred"
    return progress.close_reason is not None and CLOSE_DISPOSITION[progress.close_reason] == d


def is_critical(truth: Truth) -> bool:
    """A bug to fix at sev0 or sev1: what the terminal bonus and penalty and the critical subscore look at."""
    return truth.disposition == "fix" and truth.true_severity in SEVERE


def settle_moves(
    ticket: Ticket,
    disposition: Disposition,
    *,
    severity: Severity = "sev2",
    component: str | None = None,
    duplicate_of: str | None = None,
    summary: str | None = None,
    world: World | None = None,
    escalate: bool | None = None,
) -> list[dict[str, Any]]:
    """The actions that settle `ticket` as `disposition` by the handbook, as action dicts.

    A bug to fix is escalated first when `escalate` says so, or when it is None, when its
    severity and environment require it (with `summary` when given), then classified (priority from the table, `component` default the
    reporter's first candidate) and assigned to the owning team. A duplicate links to
    `duplicate_of`, which the caller must give.
    """
    tid = ticket.ticket_id
    if disposition == "duplicate":
        if duplicate_of is None:
            raise ValueError(f"settling {tid} as a duplicate needs the original's id in duplicate_of")
        return [{"action_type": "mark_duplicate", "ticket_id": tid, "duplicate_of": duplicate_of}]
    if disposition == "needs_info":
        return [{"action_type": "request_info", "ticket_id": tid, "missing": ["repro", "logs"]}]
    if disposition == "defer":
        return [{"action_type": "defer", "ticket_id": tid, "reason": "feature request"}]
    if disposition in CLOSE_REASON_OF:
        return [{"action_type": "close", "ticket_id": tid, "reason": CLOSE_REASON_OF[disposition]}]
    world = world or load_world()
    component = component or ticket.component_candidates[0]
    moves: list[dict[str, Any]] = []
    if escalate is None:
        escalate = should_escalate(disposition, severity, ticket.environment, world)
    if escalate:
        page: dict[str, Any] = {"action_type": "escalate_incident", "ticket_id": tid}
        if summary is not None:
            page["summary"] = summary
        moves.append(page)
    moves.append(
        {
            "action_type": "classify",
            "ticket_id": tid,
            "severity": severity,
            "priority": priority_for(severity, ticket.customer_tier, world),
            "component": component,
        }
    )
    moves.append({"action_type": "assign", "ticket_id": tid, "team": world.owner[component]})
    return moves


# --------------------------------------------------------------------------- SLA and the step budget


def sla_deadlines(policy: SlaPolicy) -> dict[Tier, int | None]:
    """The step by which a ticket of each tier must be settled: enterprise, pro, and none for free."""
    return {"enterprise": policy.enterprise, "pro": policy.pro, "free": None}


def sla_first(deadline: int | None) -> tuple[bool, int]:
    """Sort key of the working order: tickets with a deadline first, earliest first (callers break ties)."""
    return deadline is None, deadline or 0


def correct_steps(disposition: Disposition, escalate: bool) -> int:
    """Steps the correct settlement takes: one action, or classify and assign (and escalate) for a bug to fix."""
    return 2 + int(escalate) if disposition == "fix" else 1


def settle_schedule(steps: Iterable[int]) -> list[int]:
    """The step at which each ticket is settled when they are worked in this order, `steps` each."""
    at, out = 0, []
    for n in steps:
        at += n
        out.append(at)
    return out


def late(settled_at_step: int | None, deadline: int | None) -> bool:
    """True when a ticket with a deadline was not settled by it (a ticket without one is never late)."""
    return deadline is not None and (settled_at_step is None or settled_at_step > deadline)


def settled_on_time(ticket: Ticket, progress: TicketProgress) -> bool:
    """True when the ticket's deadline is met: the state it is in was reached by then (or it has no deadline).

    `not late(...)` written out: the reward asks it for every ticket with a deadline at every step."""
    deadline, settled = ticket.sla_deadline_step, progress.settled_at_step
    return deadline is None or (settled is not None and settled <= deadline)


__all__ = [
    "CLOSE_REASON_OF",
    "LOSS_OF_PAYMENT",
    "SETTLING_ACTION",
    "SEVERE",
    "cap_outside_production",
    "correct_steps",
    "data_lost",
    "disposition_for",
    "exposure_outside_production",
    "fixed_by_release",
    "is_critical",
    "late",
    "may_need_info",
    "outcome_correct",
    "priority_for",
    "settle_moves",
    "settle_schedule",
    "settled_on_time",
    "severity_for",
    "should_escalate",
    "sla_deadlines",
    "sla_first",
    "triaged_problem",
]
