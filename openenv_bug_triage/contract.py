"""The episode contract, shared by the environment, its clients, the episode loop and the server.

- `ResetOptions`: what starts an episode (task_id, seed, split, index, episode_id). `resolve_reset`
  is the one place the task id, the seed, the split and the Task API index are checked (raising
  `UnknownTaskError`, `InvalidSeedError`, `InvalidSplitError` or `TaskApiError`) and the defaults
  are filled in (a transport calls it and nothing else, so every transport gives the same message,
  e.g. the range of the split a generated task's seed is drawn from).
- `StepResult`: what one step returns (observation, reward, terminated, truncated, info), typed;
  `as_tuple()` is the `(observation, reward, done, info)` view `BugTriageEnv.step` has always given.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidSeedError, UnknownTaskError, quote
from .generator import TRAIN_MAX_SEED
from .models import GraderResult, ObservationModel, RewardModel
from .sources import LoadedTask, resolve, task_info, task_infos
from .task_api import get_task
from .tasks import DEFAULT_TASK_ID

__all__ = [
    "DEFAULT_SEED",
    "EPISODE_SECRET_HEADER",
    "MAX_SEED",
    "ResetOptions",
    "StepInfo",
    "StepResult",
    "check_fixed_seed",
    "check_task_id",
    "resolve_reset",
]

DEFAULT_SEED = 42
EPISODE_SECRET_HEADER = "X-Episode-Secret"
"""The HTTP header that carries an episode's secret (the `episode_secret` of the reset that made it)."""
MAX_SEED = 2**63 - 1
"""Largest seed of a fixed task (it only shuffles the queue)."""


class ResetOptions(BaseModel):
    """What starts an episode. Every field is optional; none at all starts the default task.

    Fixed tasks (`bug_triage_*`, default easy): `seed` shuffles the queue (default 42).
    Generated tasks (`generated_*`): `split` ("train" by default, "validation", "test") and `seed`
    choose the instance; without a seed one is drawn. `split` and `index` alone choose a Task API spec.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str | None = Field(default=None, max_length=64, description="Default bug_triage_easy; see GET /tasks.")
    seed: int | None = Field(
        default=None,
        description="Fixed tasks: queue shuffle seed, 0 to 2**63-1, default 42. Generated tasks: the instance "
        "of the split (train 0 to 2**31-1; validation and test 0 to size-1); default a fresh draw.",
    )
    split: str | None = Field(
        default=None, max_length=16, description="Generated tasks only: train (default), validation or test."
    )
    index: int | None = Field(
        default=None, description="Task API index within `split` (instead of task_id and seed); see /bug_triage/task."
    )
    episode_id: str | None = Field(
        default=None,
        max_length=128,
        description="Restart that episode (its own task unless task_id says otherwise), or name a new one; "
        "default a fresh server-made id.",
    )

    @classmethod
    def unchecked(
        cls,
        task_id: Any = None,
        seed: Any = None,
        split: Any = None,
        index: Any = None,
        episode_id: Any = None,
    ) -> ResetOptions:
        """Options as a Python caller gave them, not validated yet: `resolve_reset` checks them and
        answers a wrong value with the typed error for that field, not with a pydantic error."""
        return cls.model_construct(task_id=task_id, seed=seed, split=split, index=index, episode_id=episode_id)


def check_task_id(task_id: object) -> str:
    """`task_id` when some task source serves it, else `UnknownTaskError` naming the choices (and the
    given value, quoted short)."""
    known = [info.task_id for info in task_infos()]
    if not isinstance(task_id, str) or task_id not in known:
        raise UnknownTaskError(f"unknown task_id {quote(task_id)}; choose one of {known}")
    return task_id


def check_fixed_seed(seed: object) -> int:
    """`seed` when it is an integer in [0, MAX_SEED] (any fixed task's range), else `InvalidSeedError`
    (which shows the given value only when it has no more digits than MAX_SEED)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidSeedError(
            f"seed must be an integer from 0 to {MAX_SEED}, got {quote(seed, digits=len(str(MAX_SEED)))}"
        )
    return seed


def resolve_reset(options: ResetOptions, rng: random.Random) -> tuple[ResetOptions, LoadedTask]:
    """Check `options` and fill in the defaults; returns them with task_id, seed and split set, and the task.

    `rng` draws the seed of a generated task reset without one. Raises the typed errors named in
    the module docstring, each saying how to fix the request.
    """
    task_id, seed, split = options.task_id, options.seed, options.split
    if options.index is not None:
        spec = get_task(split or "train", options.index)
        if (task_id is not None and task_id != spec.task_id) or (seed is not None and seed != spec.seed):
            raise InvalidSeedError(
                f"index {options.index} of the {spec.split} split is {spec.task_id} seed {spec.seed}; "
                "give either index or task_id and seed"
            )
        task_id, seed, split = spec.task_id, spec.seed, spec.split
    task_id = DEFAULT_TASK_ID if task_id is None else check_task_id(task_id)
    info = task_info(task_id)
    if info.splits is not None:
        split = split or "train"
        if seed is None and split in info.splits:
            size = info.splits[split]
            seed = rng.randrange(TRAIN_MAX_SEED + 1 if size is None else size)
    else:
        seed = DEFAULT_SEED if seed is None else check_fixed_seed(seed)
    loaded = resolve(task_id, seed if split else None, split)
    assert seed is not None
    resolved = options.model_copy(update={"task_id": task_id, "seed": seed, "split": loaded.split})
    return resolved, loaded


class StepInfo(BaseModel):
    """What `step` reports beside the observation: validity, reward breakdown, how it ended, and the grade once done."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action_valid: bool
    error: str | None
    reward: RewardModel
    terminated: bool = Field(description="True on the step that settled the last ticket.")
    truncated: bool = Field(description="True on the step that spent the budget with tickets unsettled.")
    grader: GraderResult | None = Field(default=None, description="Set on the step that ends the episode.")


class StepResult(BaseModel):
    """One step's result: the observation, the reward, how the episode ended (if it did), and the step info.

    `terminated`: every ticket is settled. `truncated`: the step budget ran out with tickets unsettled.
    `done` is either. `info.grader` (the agent's copy of the grade) is set on the step that ends the episode.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    observation: ObservationModel
    reward: RewardModel
    terminated: bool
    truncated: bool
    info: StepInfo

    @classmethod
    def of(cls, observation: ObservationModel, info: StepInfo) -> StepResult:
        """The result whose reward and ending are the ones `info` reports."""
        return cls(
            observation=observation, reward=info.reward, terminated=info.terminated, truncated=info.truncated, info=info
        )

    @property
    def done(self) -> bool:
        """True once the episode has ended either way."""
        return self.terminated or self.truncated

    def info_dict(self) -> dict[str, Any]:
        """`info` as a plain dict; `grader` only once the episode has ended."""
        return self.info.model_dump(exclude={"grader"} if self.info.grader is None else None)

    def as_tuple(self) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """The Gym-style `(observation, reward, done, info)` view."""
        return self.observation, self.reward, self.done, self.info_dict()
