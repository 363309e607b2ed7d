"""Generated tasks' profiles (`data/generator/levels.json`), splits and seed ranges.

Splits: each split's instances use only its own partition's scenarios and phrases (`train`,
`validation`, `test`); each split seeds its RNG from its own name, so no two splits share an
instance.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..catalogue import Partition
from ..errors import InvalidSeedError, InvalidSplitError, UnknownTaskError, quote
from ..models import Difficulty, SlaPolicy, Tier
from ..world import DATA_DIR

Split = Literal["train", "validation", "test"]
SPLITS: tuple[Split, ...] = ("train", "validation", "test")
TRAIN_MAX_SEED = 2**31 - 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rates(_Model):
    """Per-ticket probabilities of each trap and surface variation (each drawn independently)."""

    non_production: float = Field(ge=0, le=1)
    loud: float = Field(ge=0, le=1)
    quiet: float = Field(ge=0, le=1)
    urgency: float = Field(ge=0, le=1)
    injection: float = Field(ge=0, le=1)
    misfiled: float = Field(ge=0, le=1)
    supported_decoy: float = Field(ge=0, le=1)
    monitoring: float = Field(ge=0, le=1)
    terse_title: float = Field(ge=0, le=1)
    comment: float = Field(default=0.5, ge=0, le=1)
    """Share of customers' reports support answers in the thread (an acknowledgement, or who is hit or a way round
    it), alike on every kind of ticket (so a support comment says nothing of its kind)."""
    exposure: float = Field(default=0.0, ge=0, le=1)
    """A bug to fix that exposes customer data, told as a trap (staging, or a clean retest)."""
    feature_attached: float = Field(default=0.0, ge=0, le=1)
    """A customer's bug report that also asks for a feature (still a bug to fix)."""
    wrong_cause: float = Field(default=0.0, ge=0, le=1)
    """A customer's bug report that blames the wrong component (routed by the evidence)."""
    two_problems: float = Field(default=0.0, ge=0, le=1)
    """A customer's report of two unrelated problems (triaged by the more severe)."""
    regression: float = Field(default=0.0, ge=0, le=1)
    """A customer's bug report that says it worked before an update."""
    retold: float = Field(default=0.0, ge=0, le=1)
    """A duplicate re-told by its own reporter: own steps, numbers and build."""
    composed: float = Field(default=0.0, ge=0, le=1)
    """A plain bug to fix composed from parts (`compose`) rather than taken from the catalogue."""
    fixed_release: float = Field(default=0.0, ge=0, le=1)
    """A customer's report told against the release notes: on a build older than the release that
    fixes it (resolved), or a decoy (a note fixing a look-alike defect; a build newer than the fix)."""


class Outcomes(_Model):
    """How many tickets of each kind other than bugs to fix a queue holds."""

    duplicate: int = Field(ge=0)
    needs_info: int = Field(ge=0)
    defer: int = Field(ge=0)
    close: int = Field(ge=0)


class Dynamics(_Model):
    """What makes a level live (issue 16): reporters who answer, a history to search, arrivals.

    A level without `dynamics` is a static queue, as before: every ticket there at reset, `request_info`
    final, no history.
    """

    replies: bool = True
    """Reporters answer `request_info` after a delay drawn from their persona (`LiveQueue.replies`)."""
    never_answer: float = Field(default=0.2, ge=0, le=1)
    """Share of asked reporters who never answer."""
    backlog: int = Field(default=0, ge=0)
    """Earlier tickets in the tracker's history (`search_tracker` finds them)."""
    backlog_duplicates: int = Field(default=0, ge=0)
    """Queue reports that duplicate a backlog ticket (no `suspected_duplicate_ids` hint points at it)."""
    arrivals: int = Field(default=0, ge=0)
    """Tickets that arrive during the episode rather than at reset."""
    search_steps: int = Field(default=0, ge=0)
    """Budget for searching the history before settling a report as a new bug (the oracle needs none of it:
    a careful agent searches more often than the reports of earlier tickets it finds)."""


LIVE_SETTLE_STEPS = 3
"""Most steps an answered vague report takes to settle: classify, assign and escalate."""


class Level(_Model):
    """One generated task: its size, tiers, SLA and budget rules, outcome mix and trap rates."""

    task_id: str
    difficulty: Difficulty
    description: str
    tickets: int = Field(ge=4)
    tiers: dict[Tier, int]
    sla_steps_per_ticket: float = Field(ge=1)
    budget_slack: int = Field(ge=0)
    outcomes: Outcomes
    near_duplicates: int = Field(ge=0)
    alert_pairs: int = Field(ge=0)
    dissimilar_duplicate_rate: float = Field(ge=0, le=1)
    rates: Rates
    dynamics: Dynamics | None = None
    """Live levels only: see `Dynamics`."""

    @property
    def dynamics_names(self) -> list[str]:
        """What is live about this level, by name (`replies`, `history`, `arrivals`); empty for a static level."""
        d = self.dynamics
        if d is None:
            return []
        named = {"replies": d.replies, "history": d.backlog > 0, "arrivals": d.arrivals > 0}
        return [name for name, on in named.items() if on]

    @property
    def fix_count(self) -> int:
        """Bugs to fix in every instance (originals of duplicates and near-duplicates included)."""
        o = self.outcomes
        return self.tickets - o.duplicate - o.needs_info - o.defer - o.close

    @property
    def step_budget(self) -> int:
        """Enough for the correct triage of any instance: every ticket once, every bug twice more; on a
        live queue also, for each vague report, the answered ticket settled as a bug (classify, assign,
        escalate) and, for each report of an earlier tracker ticket, the search that finds it, and `search_steps`."""
        static = self.tickets + 2 * self.fix_count + self.budget_slack
        if self.dynamics is None:
            return static
        replies = LIVE_SETTLE_STEPS * self.outcomes.needs_info if self.dynamics.replies else 0
        return static + replies + self.dynamics.backlog_duplicates + self.dynamics.search_steps

    @property
    def sla_policy(self) -> SlaPolicy:
        """Deadlines from the tier counts (visible), never from the truth."""
        enterprise = math.ceil(self.sla_steps_per_ticket * self.tiers.get("enterprise", 0)) or 1
        pro = enterprise + math.ceil(self.sla_steps_per_ticket * self.tiers.get("pro", 0))
        return SlaPolicy(enterprise=enterprise, pro=pro)


class Levels(_Model):
    """`data/generator/levels.json`."""

    split_sizes: dict[Literal["validation", "test"], int]
    levels: list[Level]


@cache
def load_levels() -> Levels:
    """The generated tasks' profiles (read once per process)."""
    levels = Levels.model_validate_json((DATA_DIR / "generator" / "levels.json").read_text(encoding="utf-8"))
    for level in levels.levels:
        if sum(level.tiers.values()) != level.tickets:
            raise ValueError(f"levels.json: {level.task_id}: tiers must add up to {level.tickets} tickets")
        if level.fix_count < 1 + level.near_duplicates:
            raise ValueError(f"levels.json: {level.task_id}: too few bugs to fix for the outcome mix")
    return levels


def level_of(task_id: str) -> Level:
    """The profile of a generated task id."""
    for level in load_levels().levels:
        if level.task_id == task_id:
            return level
    ids = [lv.task_id for lv in load_levels().levels]
    raise UnknownTaskError(f"unknown generated task_id '{task_id}'; choose one of {ids}")


def split_size(split: str) -> int | None:
    """Instances per level in `split`: None for the unbounded train split."""
    if split == "train":
        return None
    sizes = load_levels().split_sizes
    if split not in sizes:
        raise InvalidSplitError(f"unknown split {quote(split)}; choose one of {list(SPLITS)}")
    return sizes[split]


def check_seed(split: str, seed: object) -> int:
    """`seed` if it names an instance of `split`, else a typed error saying the range (and the given value,
    unless it has more digits than the range's top)."""
    size = split_size(split)
    top = TRAIN_MAX_SEED if size is None else size - 1
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        raise InvalidSeedError(
            f"seed for the {split} split must be an integer from 0 to {top}, got {quote(seed, digits=len(str(top)))}"
        )
    return seed


def partition_of(split: str) -> Partition:
    """The catalogue partition a split draws from: its own."""
    partitions: dict[str, Partition] = {"train": "train", "validation": "validation", "test": "test"}
    return partitions[split]
