"""One seam for tasks: every task id comes from a `TaskSource`, fixed files and the generator alike.

The env, the server and the policies ask this module, never a list of ids. A user adds a
source of their own (their tracker's tickets, say) with `register_source`, without editing
core modules:

    class MyTracker:
        def infos(self) -> list[TaskInfo]: ...
        def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask: ...

    register_source(MyTracker())
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidSeedError, InvalidSplitError, UnknownTaskError, quote
from .generator import SPLITS, TRAIN_MAX_SEED, check_seed, generate, load_levels, split_size
from .models import Difficulty
from .tasks import DEFAULT_TASK_ID, TASK_IDS, Task, load_fixed_task


class TaskInfo(BaseModel):
    """What anyone may know about a task before playing it: never its truth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    difficulty: Difficulty
    source: Literal["fixed", "generated"] | str
    ticket_count: int
    step_budget: int
    description: str
    splits: dict[str, int | None] | None = None
    """Instances per split for generated tasks (None: unbounded); None for a fixed task."""
    dynamics: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """What is live about the task (`Level.dynamics_names`); left out for a static queue."""


@dataclass(frozen=True)
class LoadedTask:
    """A task ready to play, with the seed and split that chose it (both None for fixed files)."""

    task: Task
    seed: int | None
    split: str | None
    extra: Any = None
    """Source-specific trainer-side detail (the generator's facts); never sent to an agent."""


class TaskSource(Protocol):
    """Anything that can list tasks and load one by id."""

    def infos(self) -> list[TaskInfo]:
        """Every task this source serves."""

    def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask:
        """The instance of `task_id` for `seed` and `split`; raise a `BugTriageError` on bad input."""


class FixedTasks:
    """The hand-written benchmark tasks under `data/tasks/`: one instance each, no splits."""

    def infos(self) -> list[TaskInfo]:
        out = []
        for task_id in TASK_IDS:
            t = load_fixed_task(task_id)
            out.append(
                TaskInfo(
                    task_id=task_id,
                    difficulty=t.difficulty,
                    source="fixed",
                    ticket_count=len(t.tickets),
                    step_budget=t.step_budget,
                    description=t.description,
                )
            )
        return out

    def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask:
        if split is not None:
            raise InvalidSplitError(
                f"task {task_id} is a fixed benchmark task and has no splits; leave `split` out, "
                "or choose a generated task (generated_easy ... generated_expert) to pick a split"
            )
        return LoadedTask(load_fixed_task(task_id), None, None)


class GeneratedTasks:
    """Queues drawn by the generator: unbounded `train`, fixed-size `validation` and `test`."""

    def __init__(self, cache_size: int = 256) -> None:
        self._cache: OrderedDict[tuple[str, str, int], LoadedTask] = OrderedDict()
        self._cache_size = cache_size

    def infos(self) -> list[TaskInfo]:
        sizes: dict[str, int | None] = {split: split_size(split) for split in SPLITS}
        return [
            TaskInfo(
                task_id=lv.task_id,
                difficulty=lv.difficulty,
                source="generated",
                ticket_count=lv.tickets,
                step_budget=lv.step_budget,
                description=lv.description,
                splits=sizes,
                dynamics=lv.dynamics_names,
            )
            for lv in load_levels().levels
        ]

    def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask:
        split = split or "train"
        if split not in SPLITS:
            raise InvalidSplitError(f"unknown split {quote(split)}; choose one of {list(SPLITS)}")
        if seed is None:
            raise InvalidSeedError(f"generated task {task_id} needs a seed (the env draws one when you give none)")
        key = (task_id, split, check_seed(split, seed))
        hit = self._cache.get(key)
        if hit is None:
            made = generate(task_id, seed, split)
            hit = LoadedTask(made.task, seed, split, made.facts)
            self._cache[key] = hit
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return hit


_SOURCES: list[TaskSource] = [FixedTasks(), GeneratedTasks()]


def register_source(source: TaskSource) -> None:
    """Add a task source; its task ids must not clash with those already served."""
    taken = set(_index())
    clash = sorted(info.task_id for info in source.infos() if info.task_id in taken)
    if clash:
        raise ValueError(f"task ids {clash} are already served by another source")
    _SOURCES.append(source)
    _index.cache_clear()


def unregister_source(source: TaskSource) -> None:
    """Stop serving the tasks of a source `register_source` added (a test's own tasks, say)."""
    _SOURCES.remove(source)
    _index.cache_clear()


@cache
def _index() -> dict[str, tuple[TaskInfo, TaskSource]]:
    return {info.task_id: (info, src) for src in _SOURCES for info in src.infos()}


def task_infos() -> list[TaskInfo]:
    """Every task every source serves, fixed tasks first."""
    return [info for info, _ in _index().values()]


def task_info(task_id: str) -> TaskInfo:
    """One task's public description; `UnknownTaskError` names the choices."""
    found = _index().get(task_id)
    if found is None:
        raise UnknownTaskError(f"unknown task_id {quote(task_id)}; choose one of {list(_index())}")
    return found[0]


def is_generated(task_id: str) -> bool:
    """True when `task_id` has splits and seeds that choose its instance."""
    return task_info(task_id).splits is not None


def resolve(task_id: str | None = None, seed: int | None = None, split: str | None = None) -> LoadedTask:
    """Load a task of any source: `task_id` default the easy benchmark task."""
    task_id = DEFAULT_TASK_ID if task_id is None else task_id
    task_info(task_id)
    return _index()[task_id][1].load(task_id, seed, split)


def load_task(task_id: str, seed: int | None = None, split: str | None = None) -> Task:
    """The `Task` (tickets and truth) for a task id, and for generated tasks its seed and split.

    `load_task("bug_triage_hard")`, `load_task("generated_hard", seed=123, split="train")`.
    """
    return resolve(task_id, seed, split).task


__all__ = [
    "SPLITS",
    "TRAIN_MAX_SEED",
    "FixedTasks",
    "GeneratedTasks",
    "LoadedTask",
    "TaskInfo",
    "TaskSource",
    "is_generated",
    "load_task",
    "register_source",
    "resolve",
    "task_info",
    "task_infos",
]
