"""`assign`: route a ticket to the team that owns its component."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import ObservationModel, TicketProgress, Truth
from .base import Desk, TicketAction, quote
from .classify import label_terms


class AssignAction(TicketAction):
    """Assign a ticket to the team that owns its component."""

    action_type: Literal["assign"] = "assign"
    team: str = Field(min_length=1, max_length=64, description="The owning team, one of the teams.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>", "team": "<team>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_team", "relabel")

    def check_fields(self, target: str, desk: Desk) -> str | None:
        if self.team not in desk.world.teams:
            return f"team {quote(self.team)} does not exist; use one of `available_teams`."
        return None

    def change(self, before: TicketProgress) -> dict[str, object]:
        if self.team == before.team:
            return {}
        return {"team": self.team, "assign_count": before.assign_count + 1}

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        return label_terms(before.assign_count, {"correct_team": self.team == truth.true_assignee_team}, truth)

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        return {"team": rng.choice(obs.available_teams)}
