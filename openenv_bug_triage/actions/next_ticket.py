"""`next_ticket`: move the focus, to the next open ticket or to the ticket named."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import TicketId
from .base import BaseAction, Desk, Taken


class NextTicketAction(BaseAction):
    """Move the focus to the next open ticket, or to the ticket named."""

    action_type: Literal["next_ticket"] = "next_ticket"
    ticket_id: TicketId | None = Field(
        default=None, description="Ticket to focus; omitted means the next open ticket in the queue."
    )

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id to focus>"}
    TERMS: ClassVar[tuple[str, ...]] = ("ticket_switch",)

    def take(self, target: str, desk: Desk) -> Taken:
        """Move the focus; leaving a ticket that is not settled yet costs a little, staying put is a no-op."""
        old = desk.focused_id
        left_unsettled = desk.is_open(old)
        new = desk.move_focus(self.ticket_id)
        if new == old:
            return Taken(target, "focus unchanged", no_op=True)
        return Taken(new, f"focus moved to {new}", terms={"ticket_switch": int(left_unsettled)})
