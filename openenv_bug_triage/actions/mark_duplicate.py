"""`mark_duplicate`: settle a ticket as a duplicate of an earlier report."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import ObservationModel, TicketId, TicketProgress, Truth
from .base import Queue, TicketAction, quote, settle_terms


class MarkDuplicateAction(TicketAction):
    """Settle a ticket as a duplicate of an earlier report of the same defect."""

    action_type: Literal["mark_duplicate"] = "mark_duplicate"
    duplicate_of: TicketId = Field(
        description="Id of the earliest report of the same defect (on live queues, maybe an earlier tracker ticket)."
    )

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>", "duplicate_of": "<earlier ticket id>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_duplicate", "destructive_action", "wrong_outcome")

    def check_fields(self, target: str, queue: Queue) -> str | None:
        if self.duplicate_of == target:
            return f"ticket {target} cannot be a duplicate of itself; give the id of the original report."
        if self.duplicate_of not in queue.progress and self.duplicate_of not in (queue.history or ()):
            where = " or found by `search_tracker`" if queue.history is not None else ""
            return f"duplicate_of {quote(self.duplicate_of)} is not in the queue; link to a ticket listed in `queue`{where}."
        return None

    def change(self, before: TicketProgress) -> dict[str, object]:
        return {"duplicate_of": self.duplicate_of}

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return settle_terms(truth, self.duplicate_of == truth.duplicate_of, "correct_duplicate")

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        return {"duplicate_of": rng.choice([q.ticket_id for q in obs.queue])}
