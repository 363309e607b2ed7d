"""Actions: one module per action type, each holding its model, its check against the queue, its effect,
its reward terms and its one-line description (see `base` for the interface).

`union` assembles them into the discriminated union `ActionModel`; `parse` turns untrusted input
into a member of it.
"""

from .assign import AssignAction
from .base import BaseAction, Desk, Queue, Taken, TicketAction, quote
from .classify import ClassifyAction
from .close import CloseAction
from .defer import DeferAction
from .escalate_incident import EscalateIncidentAction
from .mark_duplicate import MarkDuplicateAction
from .next_ticket import NextTicketAction
from .parse import MAX_INT_BITS, ActionParseError, describe_validation_error, parse_action
from .request_info import RequestInfoAction
from .search_tracker import SearchTrackerAction
from .union import ACTION_ADAPTER, ACTION_MODELS, ACTION_TYPES, ActionModel, action_type_of, description

__all__ = [
    "ACTION_ADAPTER",
    "ACTION_MODELS",
    "ACTION_TYPES",
    "MAX_INT_BITS",
    "ActionModel",
    "ActionParseError",
    "AssignAction",
    "BaseAction",
    "ClassifyAction",
    "CloseAction",
    "DeferAction",
    "Desk",
    "EscalateIncidentAction",
    "MarkDuplicateAction",
    "NextTicketAction",
    "Queue",
    "RequestInfoAction",
    "SearchTrackerAction",
    "Taken",
    "TicketAction",
    "action_type_of",
    "describe_validation_error",
    "description",
    "parse_action",
    "quote",
]
