"""Turn untrusted input (a dict, JSON, a model) into an `ActionModel`, or say exactly what is wrong."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from .base import quote
from .union import ACTION_ADAPTER, ACTION_TYPES, ActionModel


class ActionParseError(ValueError):
    """The input is not a valid action; the message names the field and the fix."""


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, naming the action type and field, never echoing long input."""
    lines = []
    for err in exc.errors(include_url=False)[:5]:
        loc = [str(p) for p in err["loc"]]
        kind = err["type"]
        if kind == "union_tag_invalid" or kind == "union_tag_not_found":
            got = err.get("input", {}).get("action_type") if isinstance(err.get("input"), dict) else None
            shown = f" (got {quote(got)})" if got is not None else ""
            lines.append(f"`action_type` must be one of {list(ACTION_TYPES)}{shown}")
            continue
        field = ".".join(loc[1:]) if len(loc) > 1 else ".".join(loc)
        action_type = loc[0] if loc else "action"
        if kind == "missing":
            lines.append(f"{action_type}: field `{field}` is required")
        elif kind == "extra_forbidden":
            lines.append(f"{action_type}: field `{field}` is not allowed for this action_type")
        else:
            lines.append(f"{action_type}: field `{field}`: {err['msg']} (got {quote(err.get('input'))})")
    return "; ".join(lines)


MAX_INT_BITS = 14_000
"""Integers longer than this (about 4,200 digits) are refused before validation, which cannot print them."""


def _oversized_int(raw: dict[Any, Any]) -> str | None:
    stack: list[tuple[object, object]] = list(raw.items())
    while stack:
        name, value = stack.pop()
        if isinstance(value, str) or value is None:
            continue
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            return str(name)
        if isinstance(value, dict):
            stack.extend((f"{name}.{k}", v) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((name, v) for v in value)
    return None


def parse_action(raw: object) -> ActionModel:
    """Validate `raw` (an action model or a plain dict) against the action union."""
    if isinstance(raw, BaseModel):
        raw = raw.model_dump()
    if not isinstance(raw, dict):
        raise ActionParseError(
            f"an action must be a JSON object with an `action_type` (one of {list(ACTION_TYPES)}), "
            f"got {type(raw).__name__}"
        )
    if (field := _oversized_int(raw)) is not None:
        raise ActionParseError(f"field `{quote(field)[1:-1]}` holds a number far too large for any action field")
    try:
        return ACTION_ADAPTER.validate_python(raw)
    except ValidationError as exc:
        raise ActionParseError(describe_validation_error(exc)) from None
