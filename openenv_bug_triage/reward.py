"""Dense reward shaping as pure functions of before, action, after and truth.

Nothing here can be farmed: labels earn only on the first `classify` / `assign` of a
bug to fix (never on tickets the handbook settles otherwise), each settlement happens once
(settled tickets are final), and every repeat is a no-op that costs a little.

Nothing here is a side channel: the truth enters a reward only through whether the action
was right (and, for a wrong settlement, whether it lost a real bug). Charges for relabelling,
no-ops and switching are the same whatever the ticket turns out to be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .models import (
    CLOSE_DISPOSITION,
    ActionModel,
    AssignAction,
    ClassifyAction,
    CloseAction,
    DeferAction,
    EscalateIncidentAction,
    MarkDuplicateAction,
    RequestInfoAction,
    RewardComponent,
    Ticket,
    TicketProgress,
    Truth,
)
from .rules import is_critical, outcome_correct, settled_on_time

C = RewardComponent

VALUES: dict[RewardComponent, float] = {
    C.CORRECT_SEVERITY: 0.20,
    C.CORRECT_PRIORITY: 0.15,
    C.CORRECT_COMPONENT: 0.15,
    C.CORRECT_TEAM: 0.10,
    C.CORRECT_DUPLICATE: 0.15,
    C.CORRECT_REQUEST_INFO: 0.10,
    C.CORRECT_ESCALATION: 0.15,
    C.CORRECT_OUTCOME: 0.10,
    C.DESTRUCTIVE: -0.20,
    C.WRONG_OUTCOME: -0.05,
    C.UNNEEDED_REQUEST_INFO: -0.05,
    C.FALSE_ESCALATION: -0.10,
    C.MISSED_ESCALATION: -0.15,
    C.RELABEL: -0.05,
    C.INVALID_ACTION: -0.05,
    C.NO_OP: -0.02,
    C.TICKET_SWITCH: -0.01,
    C.SLA_BREACH: -0.05,
    C.CRITICAL_DONE_BONUS: 0.10,
    C.CRITICAL_LEFT_PENALTY: -0.10,
}

Components = dict[str, float]


def _add(components: Components, name: RewardComponent, times: int = 1) -> None:
    if times:
        components[name.value] = round(components.get(name.value, 0.0) + VALUES[name] * times, 10)


def _settle(components: Components, truth: Truth, correct: bool, good: RewardComponent) -> None:
    if correct:
        _add(components, good)
    elif truth.disposition == "fix":
        _add(components, C.DESTRUCTIVE)
    else:
        _add(components, C.WRONG_OUTCOME)


def _add_labels(components: Components, action: ClassifyAction | AssignAction, truth: Truth) -> None:
    if isinstance(action, ClassifyAction):
        _add(components, C.CORRECT_SEVERITY, int(action.severity == truth.true_severity))
        _add(components, C.CORRECT_PRIORITY, int(action.priority == truth.true_priority))
        _add(components, C.CORRECT_COMPONENT, int(action.component == truth.true_component))
    else:
        _add(components, C.CORRECT_TEAM, int(action.team == truth.true_assignee_team))


def ticket_action_reward(
    action: ActionModel, before: TicketProgress, after: TicketProgress, truth: Truth
) -> Components:
    """Reward components of a valid action on one ticket."""
    out: Components = {}
    if after is before or after == before:
        _add(out, C.NO_OP)
        return out
    if isinstance(action, ClassifyAction | AssignAction):
        set_before = before.classify_count if isinstance(action, ClassifyAction) else before.assign_count
        if set_before:
            _add(out, C.RELABEL)  # on every ticket alike, else relabelling would tell a bug from the rest
        elif truth.disposition == "fix":  # labels earn only on bugs to fix, else classifying first would farm them
            _add_labels(out, action, truth)
    elif isinstance(action, MarkDuplicateAction):
        _settle(out, truth, action.duplicate_of == truth.duplicate_of, C.CORRECT_DUPLICATE)
    elif isinstance(action, RequestInfoAction):
        _add(out, C.CORRECT_REQUEST_INFO if truth.needs_more_info else C.UNNEEDED_REQUEST_INFO)
    elif isinstance(action, DeferAction):
        _settle(out, truth, truth.disposition == "defer", C.CORRECT_OUTCOME)
    elif isinstance(action, CloseAction):
        _settle(out, truth, CLOSE_DISPOSITION[action.reason] == truth.disposition, C.CORRECT_OUTCOME)
    elif isinstance(action, EscalateIncidentAction):
        _add(out, C.CORRECT_ESCALATION if truth.should_escalate else C.FALSE_ESCALATION)
    return out


def single(name: RewardComponent) -> Components:
    """One component on its own, e.g. `single(C.INVALID_ACTION)` for an action that failed validation."""
    out: Components = {}
    _add(out, name)
    return out


def switch_reward(left_unsettled: bool) -> Components:
    """`next_ticket`: switching away from a ticket that is not settled yet costs a little."""
    out: Components = {}
    _add(out, C.TICKET_SWITCH, int(left_unsettled))
    return out


def sla_breach_reward(
    tickets: Iterable[Ticket],
    before: Mapping[str, TicketProgress],
    after: Mapping[str, TicketProgress],
    step: int,
) -> Components:
    """Breaches charged at `step`, given the progress before and after it (each late ticket once).

    A ticket is charged at the step its deadline passes unless it is settled on time by then,
    and at any later step that makes an on-time ticket late (a settled ticket changed after its
    deadline: its final state was not reached in time).
    """
    breached = 0
    for t in tickets:
        deadline = t.sla_deadline_step
        if deadline is None or deadline > step - 1:
            continue
        late = not settled_on_time(t, after[t.ticket_id])
        breached += late and (deadline == step - 1 or settled_on_time(t, before[t.ticket_id]))
    out: Components = {}
    _add(out, C.SLA_BREACH, breached)
    return out


def terminal_reward(
    truth: Mapping[str, Truth], progress: Mapping[str, TicketProgress], budget_exhausted: bool
) -> Components:
    """Episode-end terms: missed escalations, and the critical-ticket bonus or penalty."""
    out: Components = {}
    missed = sum(1 for tid, t in truth.items() if t.should_escalate and not progress[tid].escalated)
    _add(out, C.MISSED_ESCALATION, missed)
    critical = [tid for tid, t in truth.items() if is_critical(t)]
    if all(outcome_correct(truth[tid], progress[tid]) for tid in critical):
        _add(out, C.CRITICAL_DONE_BONUS)
    if budget_exhausted and any(not progress[tid].settled for tid in critical):
        _add(out, C.CRITICAL_LEFT_PENALTY)
    return out


def combine(*parts: Components) -> tuple[float, Components]:
    """Sum named components and clamp the step reward to [-1, 1]."""
    merged: Components = {}
    for part in parts:
        for name, value in part.items():
            merged[name] = round(merged.get(name, 0.0) + value, 10)
    total = max(-1.0, min(1.0, round(sum(merged.values()), 10)))
    return total, merged
