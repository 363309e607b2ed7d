"""`defer`: settle a ticket into the backlog."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import ObservationModel, ShortText, TicketProgress, Truth
from .base import TicketAction, settle_terms


class DeferAction(TicketAction):
    """Settle a ticket into the backlog."""

    action_type: Literal["defer"] = "defer"
    reason: ShortText = Field(min_length=1, description="Why it waits, in a few words.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>", "reason": "<short reason>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_outcome", "destructive_action", "wrong_outcome")

    def change(self, before: TicketProgress) -> dict[str, object]:
        return {"deferred": True}

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return settle_terms(truth, truth.disposition == "defer", "correct_outcome")

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        return {"reason": "backlog"}
