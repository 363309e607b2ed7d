"""OpenEnv's Task API over the generated tasks: splits, counts, and task specs by index.

Index `i` of a split names level `i % L` (in `levels.json` order) with seed `i // L`, so any
prefix of a split covers every level. A task spec is metadata only (ids, split, seed,
difficulty), never truth; `BugTriageEnv.reset(split=..., index=...)` plays the same instance
as `reset(task_id=spec.task_id, seed=spec.seed, split=split)`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .errors import BugTriageError, quote
from .generator import SPLITS, TRAIN_MAX_SEED, load_levels, split_size
from .models import Difficulty

PREVIEW_LIMIT = 1000
"""`list_tasks` and `get_task_range` return at most this many specs."""


class TaskSpec(BaseModel):
    """One instance of a generated task, as the Task API lists it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    task_id: str
    split: str
    index: int
    seed: int
    difficulty: Difficulty
    dynamics: list[str] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,
        description="What is live about the task: replies, history, arrivals (left out for a static queue).",
    )


class TaskApiError(BugTriageError, IndexError):
    """A split or index that names no task (an IndexError, which OpenEnv's server answers with 400)."""


def _check_split(split: object) -> str:
    if not isinstance(split, str) or split not in SPLITS:
        raise TaskApiError(f"unknown split {quote(split)}; choose one of {list(SPLITS)}")
    return split


def list_splits() -> list[dict[str, str]]:
    """The splits, as OpenEnv normalises them: `{"name", "type"}`."""
    return [{"name": s, "type": s} for s in SPLITS]


def num_tasks(split: str) -> int:
    """How many task specs `split` holds (train: every level times every train seed)."""
    size = split_size(_check_split(split))
    per_level = TRAIN_MAX_SEED + 1 if size is None else size
    return per_level * len(load_levels().levels)


def get_task(split: str, index: int) -> TaskSpec:
    """The spec at `index` of `split`; `TaskApiError` (an IndexError) when out of range."""
    total = num_tasks(split)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < total:
        raise TaskApiError(f"index for the {split} split must be an integer from 0 to {total - 1}, got {quote(index)}")
    levels = load_levels().levels
    level, seed = levels[index % len(levels)], index // len(levels)
    return TaskSpec(
        id=f"{level.task_id}/{split}/{seed}",
        task_id=level.task_id,
        split=split,
        index=index,
        seed=seed,
        difficulty=level.difficulty,
        dynamics=level.dynamics_names,
    )


def get_task_range(split: str, start: int | None = None, stop: int | None = None) -> list[TaskSpec]:
    """Specs in `[start, stop)` with slice semantics, at most `PREVIEW_LIMIT` of them."""
    total = num_tasks(split)
    for name, value in (("start", start), ("stop", stop)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TaskApiError(f"{name} must be an integer or null, got {quote(value)}")
    lo, hi, _ = slice(start, stop).indices(total)
    return [get_task(split, i) for i in range(lo, min(hi, lo + PREVIEW_LIMIT))]


def list_tasks(split: str) -> list[TaskSpec]:
    """All specs of a finite split; a bounded preview (the first `PREVIEW_LIMIT`) of train."""
    return get_task_range(split, 0, PREVIEW_LIMIT)
