"""The OpenEnv wire types: one flat action, the observation with its step info, and the state.

OpenEnv's WebSocket path and web playground need a single `Action` class and typed
`Observation`/`State` subclasses; the server's adapter and `client.BugTriageClient` share these.
The flat action's fields are built from the action union (`actions.ACTION_MODELS`), never listed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from .actions import ACTION_ADAPTER, ACTION_MODELS, ACTION_TYPES, action_type_of
from .contract import StepInfo
from .models import ObservationModel, StateModel

__all__ = ["BugTriageAction", "BugTriageObservation", "BugTriageState", "StepInfo", "action_payload", "wire_fields"]


def wire_fields() -> dict[str, Any]:
    """Every field of every union member, as one loosely typed optional field each, in the union's order.

    A field that every action has keeps its first description; any other one says which actions
    use it and what for. The JSON schema keeps each field's type and, when every action that has
    the field agrees on them, its choices; the values themselves are judged by the environment.
    """
    defs = ACTION_ADAPTER.json_schema()["$defs"]
    uses: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for model in ACTION_MODELS:
        props = defs[model.__name__]["properties"]
        for name in model.model_fields:
            if name != "action_type":
                uses.setdefault(name, []).append((action_type_of(model), _plain(props[name])))
    fields: dict[str, Any] = {"action_type": _wire_field("What to do.", {"type": "string", "enum": list(ACTION_TYPES)})}
    for name, used in uses.items():
        extra: dict[str, Any] = {"type": "array" if any(p.get("type") == "array" for _, p in used) else "string"}
        if extra["type"] == "array":
            extra["items"] = {"type": "string"}
        choices = [p.get("enum") for _, p in used]
        shared = choices[0] is not None and all(c == choices[0] for c in choices)
        if shared:
            extra["enum"] = choices[0]
        if len(used) == len(ACTION_MODELS):
            text = str(used[0][1].get("description", ""))
        else:
            text = "; ".join(f"{kind}: {_describe(prop, not shared)}" for kind, prop in used)
        fields[name] = _wire_field(text, extra)
    return fields


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """A property schema without its `null` alternative, keeping the description."""
    options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
    return {**options[0], "description": prop.get("description", "")}


def _describe(prop: dict[str, Any], with_choices: bool) -> str:
    text = str(prop.get("description", "")).rstrip(".")
    return f"{text}, one of {prop['enum']}" if with_choices and "enum" in prop else text


def _wire_field(description: str, schema: dict[str, Any]) -> Any:
    """A loosely typed field: the environment, not the transport, judges its value."""
    return (Any, Field(default=None, description=description, json_schema_extra=schema))


class _FlatAction(Action):
    model_config = ConfigDict(extra="allow")


if TYPE_CHECKING:
    _WireBase = _FlatAction
else:
    _WireBase = create_model("_WireBase", __base__=_FlatAction, **wire_fields())


class BugTriageAction(_WireBase):
    """Any action as one flat object, as OpenEnv's WebSocket path and web playground need.

    Fields are deliberately untyped: a value the action union rejects reaches the
    environment, which answers with the invalid-action penalty, exactly as in-process.
    `to_payload()` gives the plain action dict, judged exactly as in-process and over HTTP;
    `/schema` has the real union.
    """

    def to_payload(self) -> dict[str, Any]:
        """The action as the environment takes it: the fields that are set, values untouched."""
        return {k: v for k, v in self.model_dump(exclude={"metadata"}).items() if v is not None}


class BugTriageObservation(ObservationModel, Observation):
    """An `ObservationModel` with OpenEnv's `done`/`reward`, the episode id and the step info."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str | None = None
    info: StepInfo | None = Field(default=None, description="None after reset; set after every step.")

    @field_validator("metadata")
    @classmethod
    def _metadata_stays_empty(cls, metadata: dict[str, Any]) -> dict[str, Any]:
        """openenv 0.10 sends `metadata` to the agent (0.3.0 drops it): what is public has a typed field."""
        if metadata:
            raise ValueError("BugTriageObservation.metadata must stay empty: OpenEnv sends it to the agent")
        return metadata


class BugTriageState(StateModel, State):
    """`StateModel` as OpenEnv's `State` (never hidden truth)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def action_payload(action: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """Any action model (a union member or `BugTriageAction`) or plain dict, as a JSON-ready dict."""
    if isinstance(action, BugTriageAction):
        return action.to_payload()
    if isinstance(action, BaseModel):
        return action.model_dump(mode="json", exclude_none=True)
    if isinstance(action, dict):
        return action
    raise TypeError(f"an action must be an action model or a dict, got {type(action).__name__}")
