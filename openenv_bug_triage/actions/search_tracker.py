"""`search_tracker`: search the tracker's earlier tickets (live queues with a history)."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import ObservationModel, TrackerStatus
from ..search import DEFAULT_RESULTS, MAX_RESULTS
from .base import BaseAction, Desk, Queue, Taken, quote


class SearchTrackerAction(BaseAction):
    """Search the tracker's earlier tickets (live queues only); the matches come back in `search_results`."""

    action_type: Literal["search_tracker"] = "search_tracker"
    query: str = Field(min_length=1, max_length=300, description="Words to look for in earlier tickets.")
    status: TrackerStatus | None = Field(default=None, description="Only open or only closed tickets.")
    component: str | None = Field(default=None, max_length=64, description="Only tickets of this component.")
    limit: int | None = Field(default=None, ge=1, le=MAX_RESULTS, description="How many matches at most (default 5).")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"query": "<words from the report>"}

    def check(self, target: str, queue: Queue) -> str | None:
        if queue.history is None:
            return "this queue has no tracker history to search; search_tracker works on the live levels only."
        if self.component is not None and self.component not in queue.world.owner:
            return f"component {quote(self.component)} does not exist; use one of `available_components`."
        return None

    def take(self, target: str, desk: Desk) -> Taken:
        """Run the search; the same search twice in a row changes nothing."""
        found = desk.search(self.query, self.status, self.component, self.limit or DEFAULT_RESULTS)
        if found is None:
            return Taken(target, "no change: the same search as the last one", no_op=True)
        ids = ", ".join(e.ticket_id for e in found) or "none"
        return Taken(target, f"search_tracker found {len(found)} earlier ticket(s): {ids}")

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        title = obs.current_ticket.title if obs.current_ticket else rng.choice(obs.queue).title
        return {"query": title}
