"""The grader's weights and costs, as data: `data/grading.json` read into a typed model."""

from __future__ import annotations

import math
from functools import cache
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import FixtureError
from .models import Difficulty
from .world import DATA_DIR

Label = Literal["severity", "priority", "component", "team"]
Subscore = Literal["tickets", "duplicates", "request_info", "escalation", "sla", "critical"]
PER_DIFFICULTY = ("weights", "critical_ticket_weight", "max_major_mistakes", "candidates_hold_truth")
"""The fields that give a value for each difficulty: a new difficulty needs an entry in each."""


class Grading(BaseModel):
    """How a final triage state is scored (the grader's module docstring says what each part means)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label_weights: dict[Label, float]
    """Share of a bug's credit each correct label earns; they add up to 1."""
    relabel_decay: float = Field(ge=0, le=1)
    """Fraction of a label's credit lost for every relabel."""
    destructive_cost: float = Field(ge=0)
    """Penalty per real bug closed, deferred or marked duplicate."""
    hygiene_cost: float = Field(ge=0)
    """Penalty per invalid or no-op action."""
    false_page_cost: float = Field(ge=0)
    """Penalty per ticket escalated that the handbook says must not be: every page wakes the incident commander."""
    stray_bug_cost: float = Field(ge=0)
    """Penalty per ticket left on a team's board as a bug to fix that the handbook settles otherwise."""
    pass_threshold: float = Field(ge=0, le=1)
    max_major_mistakes: dict[Difficulty, Annotated[int, Field(ge=0)] | None]
    """Per difficulty, the most major mistakes a passing episode may make beside the pass mark (null: no limit)."""
    candidates_hold_truth: dict[Difficulty, bool]
    """Per difficulty, whether every ticket's `component_candidates` must hold its true component."""
    weights: dict[Difficulty, dict[Subscore, float]]
    """Subscore weights per difficulty (the difficulties there are); each difficulty's add up to 1."""
    critical_ticket_weight: dict[Difficulty, float]
    """Weight of a sev0/sev1 bug in the tickets subscore (others weigh 1)."""

    @model_validator(mode="after")
    def _complete(self) -> Grading:
        if set(self.label_weights) != set(get_args(Label)) or not math.isclose(sum(self.label_weights.values()), 1):
            raise ValueError(f"label_weights must weigh each of {list(get_args(Label))} and add up to 1")
        for name in PER_DIFFICULTY[1:]:
            given: dict[str, object] = getattr(self, name)
            if set(given) != set(self.weights):
                raise ValueError(
                    f"{', '.join(PER_DIFFICULTY)} must give every difficulty alike: weights has "
                    f"{list(self.weights)}, {name} {list(given)}"
                )
        for difficulty, weights in self.weights.items():
            if not math.isclose(sum(weights.values()), 1):
                raise ValueError(f"weights.{difficulty} must add up to 1, not {sum(weights.values())}")
        return self


def check_difficulty(difficulty: str, grading: Grading | None = None) -> str:
    """`difficulty` when `data/grading.json` grades it, else a `FixtureError` that says where to add it."""
    known = list((grading or load_grading()).weights)
    if difficulty not in known:
        raise FixtureError(
            f"difficulty {difficulty!r} has no weights in data/grading.json (it has {known}); "
            f"add it to each of {', '.join(f'`{name}`' for name in PER_DIFFICULTY)} there"
        )
    return difficulty


@cache
def load_grading() -> Grading:
    """The shipped grading (`data/grading.json`, read once per process)."""
    return Grading.model_validate_json((DATA_DIR / "grading.json").read_text(encoding="utf-8"))
