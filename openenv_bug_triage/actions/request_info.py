"""`request_info`: settle a ticket as awaiting information from its reporter."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..models import ShortText, TicketProgress, Truth
from .base import Desk, Taken, TicketAction


class RequestInfoAction(TicketAction):
    """Settle a ticket as awaiting information from its reporter (on live queues the reporter may answer)."""

    action_type: Literal["request_info"] = "request_info"
    missing: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=10, description="What the reporter should send, such as repro or logs."
    )
    question: ShortText | None = Field(default=None, description="A short question for the reporter.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {
        "ticket_id": "<id>",
        "missing": ["repro", "logs"],
        "question": "<short question>",
    }
    TERMS: ClassVar[tuple[str, ...]] = ("correct_request_info", "unneeded_request_info")

    def change(self, before: TicketProgress) -> dict[str, object]:
        return {"info_requested": True, "answered": False}

    def take(self, target: str, desk: Desk) -> Taken:
        """Settle the ticket as awaiting information; on a live queue its reporter's reply is now on its way."""
        taken = super().take(target, desk)
        if not taken.no_op:
            desk.ask(target, self.missing)
        return taken

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return {"correct_request_info" if truth.needs_more_info else "unneeded_request_info": 1}
