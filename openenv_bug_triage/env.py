"""`BugTriageEnv`: reset, step and state over a seeded queue of bug reports.

The environment only moves state. Each action checks and carries itself out (`actions`), the
options of a reset are checked in `contract`, rewards are weighed in `reward` and episodes graded
in `grader`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import reward as rw
from . import task_api
from .actions import ActionParseError, RequestInfoAction, Taken, parse_action
from .contract import DEFAULT_SEED, MAX_SEED, ResetOptions, StepInfo, StepResult, resolve_reset
from .errors import EpisodeDoneError, ResetNeededError
from .grader import grade_episode
from .live import Delivery, LiveClock, ask_terms, asked_items
from .models import (
    UNSETTLED_STATUSES,
    ActionResult,
    GraderResult,
    ObservationModel,
    QueueEntry,
    QueueEvent,
    RewardModel,
    StateModel,
    Ticket,
    TicketProgress,
    TrackerEntry,
    TrackerStatus,
    Truth,
)
from .task_api import TaskSpec
from .tasks import Task
from .world import World, load_world

__all__ = ["DEFAULT_SEED", "MAX_SEED", "SLA_RISK_WINDOW", "BugTriageEnv"]

SLA_RISK_WINDOW = 3
"""A ticket is at SLA risk when it is unsettled and its deadline is at most this many steps away."""


@dataclass
class _Episode:
    """One episode's state; it is the `actions.Desk` the actions read and change (a `Desk` has no truth:
    the environment hands an action the truth only in `BaseAction.terms`, after the change)."""

    task: Task
    world: World
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
    tickets: dict[str, Ticket] = field(default_factory=dict)
    """The tickets as the agent sees them now (on a live queue, with the replies that came in)."""
    truth: dict[str, Truth] = field(default_factory=dict)
    """Each ticket's truth now: on a live queue, a reply that settles a ticket changes it (`ReporterReply.truth`)."""
    live: LiveClock | None = None
    """The live queue's clock, arrivals, replies and history; None for a static queue."""
    _open: list[str] | None = None
    """`unsettled()`, kept until `update` changes a status (it is read several times a step)."""

    def __post_init__(self) -> None:
        self.tickets = {tid: self.task.by_id[tid] for tid in self.order}
        self.truth = dict(self.task.truth)
        for tid in self.order:
            self.update(tid, self.progress[tid])

    def update(self, tid: str, progress: TicketProgress) -> None:
        """Record a ticket's new progress and refresh its queue entry (the only writer of both)."""
        self.progress[tid] = progress
        ticket = self.tickets[tid]
        self.entries[tid] = QueueEntry(
            ticket_id=tid,
            title=ticket.title,
            customer_tier=ticket.customer_tier,
            status=progress.status,
            sla_deadline_step=ticket.sla_deadline_step,
            escalated=progress.escalated,
            arrived_at_step=self.live.arrived.get(tid) if self.live is not None else None,
        )
        self._open = None

    @property
    def history(self) -> frozenset[str] | None:
        """The tracker history's ids on a live queue that has one, else None."""
        return self.live.history if self.live is not None and self.live.queue.backlog else None

    def search(
        self, query: str, status: TrackerStatus | None, component: str | None, limit: int
    ) -> list[TrackerEntry] | None:
        """The history's best matches; None when it is the same search as the last one."""
        assert self.live is not None
        if self.live.last_query == (query, status, component, limit):
            return None
        return self.live.search(query, status, component, limit)

    def ask(self, tid: str, missing: list[str]) -> None:
        """On a live queue, start waiting for the reporter's reply to a request for `missing`."""
        if self.live is not None:
            self.live.ask(tid, asked_items(missing))

    def deliver(self) -> None:
        """Carry out what is due on a live queue; when nothing is left to work on, jump to what comes next."""
        live = self.live
        if live is None:
            return
        while True:
            for event in live.due():
                self._happen(event)
            if self.unsettled() or not live.pending():
                return
            live.jump()

    def _happen(self, event: Delivery) -> None:
        live = self.live
        assert live is not None
        tid = event.ticket_id
        deadline = self._deadline(self.task.by_id[tid])
        if event.kind == "arrived":
            live.arrived[tid] = self.steps
            self.tickets[tid] = self.task.by_id[tid].model_copy(update={"sla_deadline_step": deadline})
            self.order.append(tid)
            self.update(tid, TicketProgress())
        else:
            ticket, settles = live.answer(self.tickets[tid], event.due)
            self.tickets[tid] = ticket.model_copy(update={"sla_deadline_step": deadline})  # its SLA starts again
            if settles:
                self.truth[tid] = live.queue.replies[tid].truth
            self.update(tid, self.progress[tid].model_copy(update={"answered": True}))
        live.events.append(QueueEvent(ticket_id=tid, kind=event.kind, step=self.steps))  # type: ignore[arg-type]

    def _deadline(self, ticket: Ticket) -> int | None:
        """A ticket's SLA deadline counted from now (the loader's counts from step 0)."""
        return None if ticket.sla_deadline_step is None else ticket.sla_deadline_step + self.steps

    @property
    def focused_id(self) -> str:
        return self.order[self.focus]

    def is_open(self, tid: str) -> bool:
        return self.entries[tid].status in UNSETTLED_STATUSES

    def unsettled(self) -> list[str]:
        if self._open is None:
            self._open = [tid for tid in self.order if self.is_open(tid)]
        return self._open

    def move_focus(self, tid: str | None) -> str:
        """Focus `tid`, or with None the next open ticket after the focus (the focus stays if none is open)."""
        if tid is not None:
            self.focus = self.order.index(tid)
            return self.focused_id
        n = len(self.order)
        for offset in range(1, n + 1):
            idx = (self.focus + offset) % n
            if self.is_open(self.order[idx]):
                self.focus = idx
                break
        return self.focused_id


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
        """Start an episode (see `ResetOptions` for what each option chooses and its default)."""
        return self.reset_with(ResetOptions.unchecked(task_id, seed, split, index, episode_id))

    def reset_with(self, options: ResetOptions) -> ObservationModel:
        """Start the episode `options` name; `resolve_reset` checks them (typed errors) and fills the defaults."""
        resolved, loaded = resolve_reset(options, self._rng)
        assert resolved.seed is not None
        task = loaded.task
        order = list(task.ticket_ids)
        random.Random(resolved.seed).shuffle(order)
        live = LiveClock(task.live) if task.live is not None else None
        if live is not None:  # the tickets still to arrive are not in the queue yet
            order = [tid for tid in order if not live.later(tid)]
        progress = {tid: TicketProgress() for tid in order}
        self._ep = _Episode(task, self._world, resolved.seed, loaded.split, options.episode_id, order, progress)
        self._ep.live = live
        return self._observe(None)

    def step(self, action: Any) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """Take one action (an `ActionModel` or a plain dict); returns (observation, reward, done, info).

        The Gym-style view of `step_result`, kept for the callers that unpack four values: `done` is
        `info["terminated"] or info["truncated"]`, and `info["grader"]` is there once the episode ended.
        """
        return self.step_result(action).as_tuple()

    def step_result(self, action: Any) -> StepResult:
        """Take one action (an `ActionModel` or a plain dict); returns the typed `StepResult`.

        terminated: every ticket is settled; truncated: the step budget ran out with tickets still unsettled.
        """
        ep = self._require_episode()
        if ep.done:
            raise EpisodeDoneError("The episode has ended; call reset() to start a new one.")
        ep.steps += 1
        before = dict(ep.progress)
        if ep.live is not None:
            ep.live.clock += 1
            ep.live.last_search = []
        try:
            taken, terms, result = self._apply(ep, action, before)
        except BaseException:
            ep.steps -= 1  # nothing else has changed yet: leave the episode as it was
            if ep.live is not None:
                ep.live.clock -= 1
            raise
        ep.deliver()
        terminated = not ep.unsettled()
        truncated = not terminated and ep.steps >= ep.task.step_budget
        ep.done = terminated or truncated
        facts = rw.StepFacts(
            terms=terms,
            invalid=taken is None,
            no_op=taken is not None and taken.no_op,
            tickets=[ep.tickets[tid] for tid in ep.order] if ep.live is not None else ep.task.tickets,
            before=before,
            after=ep.progress,
            step=ep.steps,
            truth={tid: ep.truth[tid] for tid in ep.order} if ep.live is not None else ep.task.truth,
            done=ep.done,
            truncated=truncated,
        )
        value, components = rw.score(facts)
        ep.cumulative = round(ep.cumulative + value, 10)
        for name, amount in components.items():
            ep.breakdown[name] = round(ep.breakdown.get(name, 0.0) + amount, 10)
        reward = RewardModel(value=value, components=components, cumulative=ep.cumulative)
        info = StepInfo(
            action_valid=result.status == "ok",
            error=result.message if result.status == "error" else None,
            reward=reward,
            terminated=terminated,
            truncated=truncated,
            grader=self._grade(ep, reveal=False) if ep.done else None,
        )
        return StepResult.of(self._observe(result), info)

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
        if ep.live is None:
            return grade_episode(ep.task, ep.progress, ep.invalid_actions, ep.no_op_actions, reveal=reveal)
        progress = {tid: ep.progress.get(tid, TicketProgress()) for tid in ep.task.ticket_ids}  # not arrived: open
        tickets = [ep.tickets.get(t.ticket_id, t) for t in ep.task.tickets]
        return grade_episode(
            ep.task, progress, ep.invalid_actions, ep.no_op_actions, reveal, settled_truth=ep.truth, tickets=tickets
        )

    # ------------------------------------------------------------------ internals

    def _require_episode(self) -> _Episode:
        if self._ep is None:
            raise ResetNeededError("Cannot call step(), state() or grade() before reset(); call env.reset() first.")
        return self._ep

    def _apply(
        self, ep: _Episode, raw: Any, before: dict[str, TicketProgress]
    ) -> tuple[Taken | None, Mapping[str, int], ActionResult]:
        """Parse, check and take the action, then count its reward terms; None and no terms for an invalid
        one (nothing changed, counted as invalid). The action sees the truth only in `terms`, after its
        state change, and what it returns there goes to the reward alone."""
        try:
            action = parse_action(raw)
        except ActionParseError as exc:
            return None, {}, self._invalid(ep, None, None, str(exc))
        target = action.named_ticket or ep.focused_id
        error = action.check(target, ep)
        if error:
            known = target if target in ep.progress else None  # never echo an unknown id back raw
            return None, {}, self._invalid(ep, action.action_type, known, error)
        taken = action.take(target, ep)
        terms = taken.terms
        if taken.no_op:
            ep.no_op_actions += 1
        elif taken.ticket_id in before:  # an action on a ticket (a search names the focused one and changes none)
            tid = taken.ticket_id
            if earned := action.terms(before[tid], ep.progress[tid], ep.truth[tid]):
                if ep.live is not None and isinstance(action, RequestInfoAction):
                    earned = ask_terms(earned, ep.task.live, tid, action.missing)
                terms = {**terms, **earned}
        result = ActionResult(
            status="ok", action_type=action.action_type, ticket_id=taken.ticket_id, message=taken.message
        )
        return taken, terms, result

    @staticmethod
    def _invalid(ep: _Episode, action_type: str | None, ticket_id: str | None, message: str) -> ActionResult:
        ep.invalid_actions += 1
        return ActionResult(status="error", action_type=action_type, ticket_id=ticket_id, message=message)

    def _observe(self, result: ActionResult | None) -> ObservationModel:
        ep = self._ep
        assert ep is not None
        tickets = ep.tickets
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
            releases=list(ep.task.releases),
            events=ep.live.take_events() if ep.live is not None else [],
            search_results=list(ep.live.last_search) if ep.live is not None else [],
        )
