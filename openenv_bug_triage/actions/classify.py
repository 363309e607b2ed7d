"""`classify`: set a ticket's severity, priority and component."""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..models import PRIORITIES, SEVERITIES, ObservationModel, Priority, Severity, TicketProgress, Truth
from .base import Desk, TicketAction, quote


def label_terms(count_before: int, labels: dict[str, bool], truth: Truth) -> dict[str, int]:
    """Terms of a `classify` or `assign`: `relabel` when the labels were set before, on every ticket alike
    (else relabelling would tell a bug from the rest); else each right label, and only on a bug to fix
    (else labelling first would farm them)."""
    if count_before:
        return {"relabel": 1}
    if truth.disposition != "fix":
        return {}
    return {name: int(right) for name, right in labels.items()}


class ClassifyAction(TicketAction):
    """Set a ticket's severity, priority and component."""

    action_type: Literal["classify"] = "classify"
    severity: Severity = Field(description="Impact as the handbook rates it: sev0 (worst) to sev3.")
    priority: Priority = Field(description="The handbook's priority for this severity and the customer's tier.")
    component: str = Field(min_length=1, max_length=64, description="The owning component, one of the components.")

    PROMPT_VALUES: ClassVar[dict[str, Any]] = {"ticket_id": "<id>", "component": "<component>"}
    TERMS: ClassVar[tuple[str, ...]] = ("correct_severity", "correct_priority", "correct_component", "relabel")

    def check_fields(self, target: str, desk: Desk) -> str | None:
        if self.component not in desk.world.owner:
            return f"component {quote(self.component)} does not exist; use one of `available_components`."
        return None

    def change(self, before: TicketProgress) -> dict[str, object]:
        labels = (self.severity, self.priority, self.component)
        if labels == (before.severity, before.priority, before.component):
            return {}
        return {
            "severity": self.severity,
            "priority": self.priority,
            "component": self.component,
            "classify_count": before.classify_count + 1,
        }

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        right = {
            "correct_severity": self.severity == truth.true_severity,
            "correct_priority": self.priority == truth.true_priority,
            "correct_component": self.component == truth.true_component,
        }
        return label_terms(before.classify_count, right, truth)

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        return {
            "severity": rng.choice(SEVERITIES),
            "priority": rng.choice(PRIORITIES),
            "component": rng.choice(obs.available_components),
        }
