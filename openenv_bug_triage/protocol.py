"""The OpenEnv wire types: one flat action, the observation with its step info, and the state.

OpenEnv's WebSocket path and web playground need a single `Action` class and typed
`Observation`/`State` subclasses; the server's adapter and `client.BugTriageClient` share these.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .models import (
    ACTION_TYPES,
    CLOSE_REASONS,
    PRIORITIES,
    SEVERITIES,
    GraderResult,
    ObservationModel,
    RewardModel,
    StateModel,
)

__all__ = ["BugTriageAction", "BugTriageObservation", "BugTriageState", "StepInfo", "action_payload"]


def _form_field(description: str, choices: tuple[str, ...] | None = None, schema_type: str = "string") -> Any:
    """A loosely typed field: the environment, not the transport, judges its value."""
    extra: dict[str, Any] = {"type": schema_type}
    if schema_type == "array":
        extra["items"] = {"type": "string"}
    if choices is not None:
        extra["enum"] = list(choices)
    return Field(default=None, description=description, json_schema_extra=extra)


class BugTriageAction(Action):
    """Any action as one flat object, as OpenEnv's WebSocket path and web playground need.

    Fields are deliberately untyped: a value the action union rejects reaches the
    environment, which answers with the invalid-action penalty, exactly as in-process.
    `to_payload()` gives the plain action dict, judged exactly as in-process and over HTTP;
    `/schema` has the real union.
    """

    model_config = ConfigDict(extra="allow")

    action_type: Any = _form_field("What to do.", ACTION_TYPES)
    ticket_id: Any = _form_field("Ticket to act on; empty means the focused ticket.")
    severity: Any = _form_field("classify: severity.", SEVERITIES)
    priority: Any = _form_field("classify: priority.", PRIORITIES)
    component: Any = _form_field("classify: component, one of available_components.")
    team: Any = _form_field("assign: team, one of available_teams.")
    duplicate_of: Any = _form_field("mark_duplicate: id of the original report.")
    missing: Any = _form_field('request_info: what is missing, a list such as ["repro", "logs"].', schema_type="array")
    question: Any = _form_field("request_info: question for the reporter.")
    reason: Any = _form_field(f"defer: free text; close: one of {list(CLOSE_REASONS)}.")
    summary: Any = _form_field("escalate_incident: one-line summary.")

    def to_payload(self) -> dict[str, Any]:
        """The action as the environment takes it: the fields that are set, values untouched."""
        return {k: v for k, v in self.model_dump(exclude={"metadata"}).items() if v is not None}


class StepInfo(BaseModel):
    """What `step` reports beside the observation: validity, reward breakdown, how it ended, and the grade once done."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action_valid: bool
    error: str | None
    reward: RewardModel
    terminated: bool = Field(description="True on the step that settled the last ticket.")
    truncated: bool = Field(description="True on the step that spent the budget with tickets unsettled.")
    grader: GraderResult | None = Field(default=None, description="Set on the step that ends the episode.")


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
