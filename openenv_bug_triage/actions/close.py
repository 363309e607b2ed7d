"""`close`: settle a ticket as closed, for one of the handbook's reasons."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import CLOSE_DISPOSITION, CLOSE_REASONS, CloseReason, ObservationModel, TicketProgress, Truth
from .base import TicketAction, settle_terms


class CloseAction(TicketAction):
    """Settle a ticket as closed."""

    action_type: Literal["close"] = "close"
    reason: CloseReason = Field(description="Why it is closed, by the handbook's rules.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_outcome", "destructive_action", "wrong_outcome")

    def change(self, before: TicketProgress) -> dict[str, object]:
        return {"close_reason": self.reason}

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return settle_terms(truth, CLOSE_DISPOSITION[self.reason] == truth.disposition, "correct_outcome")

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        return {"reason": rng.choice(CLOSE_REASONS)}
