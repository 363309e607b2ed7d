"""`BugTriageEnv`: reset, step and state over a seeded queue of bug reports.

The environment only moves state. Validation lives in `actions` and `triage`, rewards
in `reward`, grading in `grader`; each is a pure function this class calls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from . import reward as rw
from . import task_api
from .actions import ActionParseError, parse_action
from .errors import EpisodeDoneError, InvalidSeedError, ResetNeededError
from .generator import TRAIN_MAX_SEED
from .grader import grade_episode
from .models import (
    UNSETTLED_STATUSES,
    ActionResult,
    GraderResult,
    NextTicketAction,
    ObservationModel,
    QueueEntry,
    RewardModel,
    StateModel,
    TicketProgress,
)
from .sources import is_generated, resolve, task_info
from .task_api import TaskSpec, get_task
from .tasks import DEFAULT_TASK_ID, Task
from .triage import apply_action, check_action
from .world import load_world

DEFAULT_SEED = 42
MAX_SEED = 2**63 - 1
"""Largest seed of a fixed task (it only shuffles the queue)."""
SLA_RISK_WINDOW = 3
"""A ticket is at SLA risk when it is unsettled and its deadline is at most this many steps away."""


@dataclass
class _Episode:
    task: Task
    seed: int
    split: str | None
    episode_id: str | None
    order: list[str]
    progress: dict[str, TicketProgress]
    focus: int = 0
    steps: int = 0
    done: bool = False
    cumulative: float = 0.0
    breakdown: dict[str, float] = field(default_factory=dict)
    invalid_actions: int = 0
    no_op_actions: int = 0
    entries: dict[str, QueueEntry] = field(default_factory=dict)
    """The queue as the agent sees it; `update` keeps it in step with `progress`."""
    _open: list[str] | None = None
    """`unsettled()`, kept until `update` changes a status (it is read several times a step)."""

    def __post_init__(self) -> None:
        for tid in self.order:
            self.update(tid, self.progress[tid])

    def update(self, tid: str, progress: TicketProgress) -> None:
        """Record a ticket's new progress and refresh its queue entry (the only writer of both)."""
        self.progress[tid] = progress
        ticket = self.task.by_id[tid]
        self.entries[tid] = QueueEntry(
            ticket_id=tid,
            title=ticket.title,
            customer_tier=ticket.customer_tier,
            status=progress.status,
            sla_deadline_step=ticket.sla_deadline_step,
            escalated=progress.escalated,
        )
        self._open = None

    @property
    def focused_id(self) -> str:
        return self.order[self.focus]

    def is_open(self, tid: str) -> bool:
        return self.entries[tid].status in UNSETTLED_STATUSES

    def unsettled(self) -> list[str]:
        if self._open is None:
            self._open = [tid for tid in self.order if self.is_open(tid)]
        return self._open


class BugTriageEnv:
    """A triage queue: `reset` starts an episode, `step` takes one action, `state` reports.

    `seed` seeds the env's own RNG, which draws the instance of a generated task reset
    without a seed (default: fresh entropy, so every such reset is a new instance).
    """

    def __init__(self, seed: int | None = None) -> None:
        self._world = load_world()
        self._rng = random.Random(seed)
        self._ep: _Episode | None = None

    # ------------------------------------------------------------------ API

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> ObservationModel:
        """Start an episode.

        Fixed tasks (`bug_triage_*`, default easy): `seed` shuffles the queue (default 42).
        Generated tasks (`generated_*`): `split` ("train" by default, "validation", "test") and
        `seed` choose the instance; without a seed one is drawn and reported by `state()`.
        `split` and `index` alone choose a Task API spec (see `task_api`).
        """
        if index is not None:
            spec = get_task(split or "train", index)
            if (task_id is not None and task_id != spec.task_id) or (seed is not None and seed != spec.seed):
                raise InvalidSeedError(
                    f"index {index} of the {spec.split} split is {spec.task_id} seed {spec.seed}; "
                    "give either index or task_id and seed"
                )
            task_id, seed, split = spec.task_id, spec.seed, spec.split
        task_id = DEFAULT_TASK_ID if task_id is None else task_id
        info = task_info(task_id)
        if is_generated(task_id):
            split = split or "train"
            if seed is None and info.splits is not None and split in info.splits:
                size = info.splits[split]
                seed = self._rng.randrange(TRAIN_MAX_SEED + 1 if size is None else size)
        else:
            seed = DEFAULT_SEED if seed is None else seed
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
                raise InvalidSeedError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
        loaded = resolve(task_id, seed if split else None, split)
        assert seed is not None
        order = list(loaded.task.ticket_ids)
        random.Random(seed).shuffle(order)
        progress = {tid: TicketProgress() for tid in order}
        self._ep = _Episode(loaded.task, seed, loaded.split, episode_id, order, progress)
        return self._observe(None)

    def step(self, action: Any) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """Take one action (an `ActionModel` or a plain dict); returns (observation, reward, done, info).

        `done` is `info["terminated"] or info["truncated"]`: terminated when every ticket is settled,
        truncated when the step budget ran out with tickets still unsettled.
        """
        ep = self._require_episode()
        if ep.done:
            raise EpisodeDoneError("The episode has ended; call reset() to start a new one.")
        ep.steps += 1
        before = dict(ep.progress)
        try:
            parts, result = self._apply(ep, action)
        except BaseException:
            ep.steps -= 1  # nothing else has changed yet: leave the episode as it was
            raise
        terminated = not ep.unsettled()
        truncated = not terminated and ep.steps >= ep.task.step_budget
        ep.done = terminated or truncated
        parts.append(rw.sla_breach_reward(ep.task.tickets, before, ep.progress, ep.steps))
        if ep.done:
            parts.append(rw.terminal_reward(ep.task.truth, ep.progress, truncated))
        value, components = rw.combine(*parts)
        ep.cumulative = round(ep.cumulative + value, 10)
        for name, amount in components.items():
            ep.breakdown[name] = round(ep.breakdown.get(name, 0.0) + amount, 10)
        reward = RewardModel(value=value, components=components, cumulative=ep.cumulative)
        info: dict[str, Any] = {
            "action_valid": result.status == "ok",
            "error": result.message if result.status == "error" else None,
            "reward": reward.model_dump(),
            "terminated": terminated,
            "truncated": truncated,
        }
        if ep.done:
            info["grader"] = self._grade(ep, reveal=False).model_dump()
        return self._observe(result), reward, ep.done, info

    def state(self) -> StateModel:
        """The episode's ids, counters and the agent's own progress (never hidden truth)."""
        ep = self._require_episode()
        return StateModel(
            episode_id=ep.episode_id,
            task_id=ep.task.task_id,
            seed=ep.seed,
            split=ep.split,
            step_count=ep.steps,
            step_budget=ep.task.step_budget,
            done=ep.done,
            focus_index=ep.focus,
            ticket_order=list(ep.order),
            progress=dict(ep.progress),
            cumulative_reward=ep.cumulative,
            invalid_actions=ep.invalid_actions,
            no_op_actions=ep.no_op_actions,
        )

    # ------------------------------------------------------------------ Task API (OpenEnv's TaskProvider)

    def list_splits(self) -> list[dict[str, str]]:
        """The generated tasks' splits as `{"name", "type"}`."""
        return task_api.list_splits()

    def list_tasks(self, split: str) -> list[TaskSpec]:
        """Task specs of `split` (a bounded preview of the unbounded train split)."""
        return task_api.list_tasks(split)

    def num_tasks(self, split: str) -> int:
        """How many task specs `split` holds."""
        return task_api.num_tasks(split)

    def get_task(self, split: str, index: int) -> TaskSpec:
        """The spec at `index` of `split`; `reset(split=split, index=index)` plays it."""
        return task_api.get_task(split, index)

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None) -> list[TaskSpec]:
        """Specs in `[start, stop)` of `split`."""
        return task_api.get_task_range(split, start, stop)

    def grade(self, reveal: bool = True) -> GraderResult:
        """Grade the episode so far. Trainer-side: its mistakes name true labels, so keep it from the agent.

        `reveal=False` gives the agent's copy, the one in the final step's `info["grader"]`: the
        same score and subscores, with mistakes that name no expected value.
        """
        return self._grade(self._require_episode(), reveal=reveal)

    @staticmethod
    def _grade(ep: _Episode, reveal: bool) -> GraderResult:
        return grade_episode(ep.task, ep.progress, ep.invalid_actions, ep.no_op_actions, reveal=reveal)

    # ------------------------------------------------------------------ internals

    def _require_episode(self) -> _Episode:
        if self._ep is None:
            raise ResetNeededError("Cannot call step(), state() or grade() before reset(); call env.reset() first.")
        return self._ep

    def _apply(self, ep: _Episode, raw: Any) -> tuple[list[rw.Components], ActionResult]:
        try:
            action = parse_action(raw)
        except ActionParseError as exc:
            return self._invalid(ep, None, None, str(exc))
        target = action.ticket_id or ep.focused_id
        error = check_action(action, target, ep.progress, self._world)
        if error:
            known = target if target in ep.progress else None  # never echo an unknown id back raw
            return self._invalid(ep, action.action_type, known, error)
        if isinstance(action, NextTicketAction):
            left_unsettled = ep.is_open(ep.focused_id)
            old = ep.focus
            ep.focus = ep.order.index(action.ticket_id) if action.ticket_id else self._next_open(ep)
            if ep.focus == old:
                ep.no_op_actions += 1
                return [rw.single(rw.C.NO_OP)], self._ok(action.action_type, target, "focus unchanged")
            result = self._ok(action.action_type, ep.focused_id, f"focus moved to {ep.focused_id}")
            return [rw.switch_reward(left_unsettled)], result
        before = ep.progress[target]
        after = apply_action(action, before, ep.steps)
        ep.update(target, after)
        if after is before or after == before:
            ep.no_op_actions += 1
            message = f"no change: ticket {target} already looks like that"
        else:
            message = f"{action.action_type} applied to {target}; ticket is now {after.status.replace('_', ' ')}"
        if target == ep.focused_id and after.settled:
            ep.focus = self._next_open(ep)
        parts = [rw.ticket_action_reward(action, before, after, ep.task.truth[target])]
        return parts, self._ok(action.action_type, target, message)

    @staticmethod
    def _ok(action_type: str, ticket_id: str, message: str) -> ActionResult:
        return ActionResult(status="ok", action_type=action_type, ticket_id=ticket_id, message=message)

    @staticmethod
    def _invalid(
        ep: _Episode, action_type: str | None, ticket_id: str | None, message: str
    ) -> tuple[list[rw.Components], ActionResult]:
        ep.invalid_actions += 1
        result = ActionResult(status="error", action_type=action_type, ticket_id=ticket_id, message=message)
        return [rw.single(rw.C.INVALID_ACTION)], result

    @staticmethod
    def _next_open(ep: _Episode) -> int:
        n = len(ep.order)
        for offset in range(1, n + 1):
            idx = (ep.focus + offset) % n
            if ep.is_open(ep.order[idx]):
                return idx
        return ep.focus

    def _observe(self, result: ActionResult | None) -> ObservationModel:
        ep = self._ep
        assert ep is not None
        tickets = ep.task.by_id
        open_ids = ep.unsettled()
        urgent = [
            tid
            for tid in open_ids
            if tickets[tid].sla_deadline_step is not None or ep.progress[tid].severity in ("sev0", "sev1")
        ]
        at_risk = [
            tid
            for tid in open_ids
            if (deadline := tickets[tid].sla_deadline_step) is not None and deadline - ep.steps <= SLA_RISK_WINDOW
        ]
        focused = ep.focused_id
        return ObservationModel(
            task_id=ep.task.task_id,
            current_ticket=tickets[focused] if ep.is_open(focused) else None,
            queue=[ep.entries[tid] for tid in ep.order],
            remaining_count=len(open_ids),
            urgent_count=len(urgent),
            sla_at_risk_count=len(at_risk),
            last_action_result=result,
            available_teams=list(self._world.teams),
            available_components=list(self._world.components),
            steps_used=ep.steps,
            steps_remaining=ep.task.step_budget - ep.steps,
            score_breakdown=dict(sorted(ep.breakdown.items())),
        )
