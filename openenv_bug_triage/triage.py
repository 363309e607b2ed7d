"""Triage state transitions: check an action against the queue, then apply it to one ticket."""

from __future__ import annotations

from collections.abc import Mapping

from .actions import quote
from .models import (
    ActionModel,
    AssignAction,
    ClassifyAction,
    CloseAction,
    DeferAction,
    EscalateIncidentAction,
    MarkDuplicateAction,
    NextTicketAction,
    RequestInfoAction,
    TicketProgress,
)
from .world import World


def check_action(
    action: ActionModel, ticket_id: str, progress: Mapping[str, TicketProgress], world: World
) -> str | None:
    """Why `action` on `ticket_id` cannot be carried out, worded for an LLM; None when it can."""
    if ticket_id not in progress:
        return f"ticket_id {quote(ticket_id)} is not in the queue; use one of the ticket_id values listed in `queue`."
    if isinstance(action, NextTicketAction):
        return None
    current = progress[ticket_id]
    if current.final:
        return (
            f"ticket {ticket_id} is already {current.status.replace('_', ' ')} and cannot be changed; "
            "work on a ticket that is still open."
        )
    if isinstance(action, ClassifyAction) and action.component not in world.owner:
        return f"component {quote(action.component)} does not exist; use one of `available_components`."
    if isinstance(action, AssignAction) and action.team not in world.teams:
        return f"team {quote(action.team)} does not exist; use one of `available_teams`."
    if isinstance(action, MarkDuplicateAction):
        if action.duplicate_of == ticket_id:
            return f"ticket {ticket_id} cannot be a duplicate of itself; give the id of the original report."
        if action.duplicate_of not in progress:
            return f"duplicate_of {quote(action.duplicate_of)} is not in the queue; link to a ticket listed in `queue`."
    return None


def apply_action(action: ActionModel, before: TicketProgress, step: int) -> TicketProgress:
    """The ticket's progress after a checked action, taken at step number `step`."""
    update: dict[str, object] = {}
    if isinstance(action, ClassifyAction):
        labels = (action.severity, action.priority, action.component)
        if labels != (before.severity, before.priority, before.component):
            update = dict(zip(("severity", "priority", "component"), labels, strict=False))
            update["classify_count"] = before.classify_count + 1
    elif isinstance(action, AssignAction):
        if action.team != before.team:
            update = {"team": action.team, "assign_count": before.assign_count + 1}
    elif isinstance(action, MarkDuplicateAction):
        update = {"duplicate_of": action.duplicate_of}
    elif isinstance(action, RequestInfoAction):
        update = {"info_requested": True}
    elif isinstance(action, DeferAction):
        update = {"deferred": True}
    elif isinstance(action, CloseAction):
        update = {"close_reason": action.reason}
    elif isinstance(action, EscalateIncidentAction) and not before.escalated:
        update = {"escalated": True}
    if not update:
        return before
    after = before.model_copy(update=update)
    if after.settled:  # settled now, or changed after settling: the ticket's final state dates from this step
        after = after.model_copy(update={"settled_at_step": step})
    return after
