"""`escalate_incident`: page the incident commander about a ticket (once)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import ShortText, TicketProgress, Truth
from .base import TicketAction


class EscalateIncidentAction(TicketAction):
    """Page the incident commander about a ticket."""

    action_type: Literal["escalate_incident"] = "escalate_incident"
    summary: ShortText | None = Field(default=None, description="A one-line summary of the incident.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>", "summary": "<short summary>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_escalation", "false_escalation")

    def change(self, before: TicketProgress) -> dict[str, object]:
        return {} if before.escalated else {"escalated": True}

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return {"correct_escalation" if truth.should_escalate else "false_escalation": 1}
