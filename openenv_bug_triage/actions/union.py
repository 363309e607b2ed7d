"""The action union: the one list of actions. Everything else (parsing, the wire model, the schema,
the prompt, the tools, the random policy, the playground) is derived from it.

Adding an action: write its module beside this one (a `TicketAction` or `BaseAction` subclass) and
add its class to `ActionModel` below.
"""

from __future__ import annotations

import inspect
from typing import Annotated, get_args

from pydantic import Field, TypeAdapter

from .assign import AssignAction
from .base import BaseAction
from .classify import ClassifyAction
from .close import CloseAction
from .defer import DeferAction
from .escalate_incident import EscalateIncidentAction
from .mark_duplicate import MarkDuplicateAction
from .next_ticket import NextTicketAction
from .request_info import RequestInfoAction
from .search_tracker import SearchTrackerAction

ActionModel = Annotated[
    ClassifyAction
    | AssignAction
    | MarkDuplicateAction
    | RequestInfoAction
    | DeferAction
    | CloseAction
    | EscalateIncidentAction
    | NextTicketAction
    | SearchTrackerAction,
    Field(discriminator="action_type"),
]
ACTION_ADAPTER: TypeAdapter[ActionModel] = TypeAdapter(ActionModel)
ACTION_MODELS: tuple[type[BaseAction], ...] = get_args(get_args(ActionModel)[0])
"""The members of the action union, in order: the one list of actions everything else derives from."""
ACTION_TYPES: tuple[str, ...] = tuple(model.model_fields["action_type"].default for model in ACTION_MODELS)


def action_type_of(model: type[BaseAction]) -> str:
    """The `action_type` a union member is tagged with."""
    value: str = model.model_fields["action_type"].default
    return value


def description(model: type[BaseAction]) -> str:
    """A union member's one-line description: the first line of its docstring."""
    if not model.__doc__:
        raise TypeError(f"{model.__name__} has no docstring; an action needs a one-line description")
    return inspect.cleandoc(model.__doc__).splitlines()[0]
