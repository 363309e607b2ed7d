"""The interface every action implements: its check against the queue, its effect, its reward terms.

An action is a pydantic model (a member of the union in `actions/__init__.py`) whose methods say
what it does, so the environment, the reward and the policies ask the action instead of testing
its class:

- `check(target, queue)`: why it cannot be carried out on ticket `target`, worded for an LLM, or None
  (it reads only the `Queue`, the agent's own view, so its message cannot name hidden truth);
- `take(target, desk)`: carry it out; a `Taken` says what happened (it reads and changes only the
  `Desk`, the agent's own view plus the focus, so neither its message nor its effect can depend on
  hidden truth);
- `terms(before, after, truth)`: the reward terms the change earned, a pure function the environment
  calls after `take` with the ticket's hidden truth (the only place an action meets truth);
- `sample(rng, obs)`: the fields a random policy draws for it;
- `PROMPT_VALUES`: the placeholder values the agent prompt shows for its free-text fields.

The class docstring's first line is the action's one-line description (prompt, tools, playground).
A ticket action (`TicketAction`) changes one ticket's `TicketProgress` through `change`; the shared
flow (no-op detection, message, focus) lives here once.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from pydantic import Field

from ..errors import quote
from ..models import ObservationModel, Strict, TicketId, TicketProgress, TrackerEntry, TrackerStatus, Truth
from ..world import World

__all__ = ["BaseAction", "Desk", "Queue", "Taken", "TicketAction", "quote"]


class Queue(Protocol):
    """What a check may read: the agent's own progress and the organisation, nothing hidden."""

    @property
    def progress(self) -> Mapping[str, TicketProgress]:
        """Every ticket's progress by id."""
        ...

    @property
    def world(self) -> World:
        """The organisation: teams and components."""
        ...

    @property
    def history(self) -> frozenset[str] | None:
        """The ids of the tracker's earlier tickets on a live queue with a history; None on any other queue."""
        ...


class Desk(Queue, Protocol):
    """What an action may read and change of the episode under way (the environment's episode is one).

    Nothing here is hidden from the agent: truth reaches an action only through `BaseAction.terms`.
    """

    @property
    def steps(self) -> int:
        """The number of the step being taken (1 for the first)."""
        ...

    @property
    def focused_id(self) -> str:
        """The ticket in focus."""
        ...

    def is_open(self, tid: str) -> bool:
        """True while ticket `tid` is unsettled."""
        ...

    def update(self, tid: str, progress: TicketProgress) -> None:
        """Record ticket `tid`'s new progress."""
        ...

    def move_focus(self, tid: str | None) -> str:
        """Focus ticket `tid`, or with None the next open ticket after the focus; returns the focused id."""
        ...

    def search(
        self, query: str, status: TrackerStatus | None, component: str | None, limit: int
    ) -> list[TrackerEntry] | None:
        """The tracker history's best matches (only asked on a queue whose `history` is not None); None when
        it is the same search as the last one."""
        ...

    def ask(self, tid: str, missing: list[str]) -> None:
        """Record a request for information on `tid` (a live queue starts waiting for the reply)."""
        ...


@dataclass(frozen=True)
class Taken:
    """What a valid action did: the ticket it names, the message for the agent, and its truth-free reward terms."""

    ticket_id: str
    message: str
    no_op: bool = False
    terms: Mapping[str, int] = field(default_factory=dict)
    """How many times each of the action's own reward components that need no truth fired (names from
    `reward.COMPONENTS`); those that need truth come from `BaseAction.terms`."""


class BaseAction(Strict):
    """Base of every action model (not itself an action)."""

    PROMPT_VALUES: ClassVar[Mapping[str, Any]] = {}
    """Placeholder values of the agent prompt's example line, by field; choices of a Literal are derived."""
    TERMS: ClassVar[tuple[str, ...]] = ()
    """Every reward component `take` may count (checked against `reward.COMPONENTS` by the tests)."""

    @property
    def kind(self) -> str:
        """The action type, e.g. `classify`."""
        value: str = getattr(self, "action_type")  # noqa: B009  every union member declares it as a Literal
        return value

    @property
    def named_ticket(self) -> str | None:
        """The ticket the action names; None for the focused one (and for an action with no `ticket_id` field)."""
        value: str | None = getattr(self, "ticket_id", None)
        return value

    def check(self, target: str, queue: Queue) -> str | None:
        """Why this action cannot be carried out on ticket `target`, worded for an LLM; None when it can."""
        if target not in queue.progress:
            return f"ticket_id {quote(target)} is not in the queue; use one of the ticket_id values listed in `queue`."
        return None

    def take(self, target: str, desk: Desk) -> Taken:
        """Carry out the checked action on `target` (the named ticket, else the focused one)."""
        raise NotImplementedError(f"{type(self).__name__} must implement take()")

    def terms(self, before: TicketProgress, after: TicketProgress, truth: Truth) -> dict[str, int]:
        """The reward components this action earned on the ticket `Taken` names, which went from `before`
        to `after` and whose hidden truth is `truth`, with how many times each (zero counts may be left in).
        The environment calls it after a `take` that was not a no-op; it never reaches the agent's messages."""
        return {}

    @classmethod
    def sample(cls, rng: random.Random, obs: ObservationModel) -> dict[str, Any]:
        """The fields (beyond `action_type`) a random policy draws for this action, from what `obs` lists."""
        return {}


class TicketAction(BaseAction):
    """An action on one ticket: it changes that ticket's progress, and is refused on a final ticket."""

    ticket_id: TicketId | None = Field(default=None, description="Ticket to act on; omitted means the focused ticket.")

    def check(self, target: str, queue: Queue) -> str | None:
        """The queue check, the final-ticket check, then `check_fields`."""
        if (error := super().check(target, queue)) is not None:
            return error
        current = queue.progress[target]
        if current.final:
            return (
                f"ticket {target} is already {current.status.replace('_', ' ')} and cannot be changed; "
                "work on a ticket that is still open."
            )
        return self.check_fields(target, queue)

    def check_fields(self, target: str, queue: Queue) -> str | None:
        """Why this action's own field values do not fit the queue or the world; None when they do."""
        return None

    def change(self, before: TicketProgress) -> dict[str, object]:
        """The progress fields this action sets on a ticket that had `before` (empty: nothing changes)."""
        raise NotImplementedError(f"{type(self).__name__} must implement change()")

    def apply(self, before: TicketProgress, step: int) -> TicketProgress:
        """The ticket's progress after this action, taken at step number `step`."""
        update = self.change(before)
        if not update:
            return before
        after = before.model_copy(update=update)
        if after.settled:  # settled now, or changed after settling: the ticket's final state dates from this step
            after = after.model_copy(update={"settled_at_step": step})
        return after

    def take(self, target: str, desk: Desk) -> Taken:
        """Apply the change; a change that changes nothing is a no-op. Settling the focused ticket moves the focus on."""
        before = desk.progress[target]
        after = self.apply(before, desk.steps)
        desk.update(target, after)
        if after is before or after == before:
            taken = Taken(target, f"no change: ticket {target} already looks like that", no_op=True)
        else:
            message = f"{self.kind} applied to {target}; ticket is now {after.status.replace('_', ' ')}"
            taken = Taken(target, message)
        if target == desk.focused_id and after.settled:
            desk.move_focus(None)
        return taken


def settle_terms(truth: Truth, correct: bool, good: str) -> dict[str, int]:
    """A settlement's terms: `good` when right; losing a real bug is destructive, any other mistake a wrong outcome."""
    if correct:
        return {good: 1}
    return {"destructive_action": 1} if truth.disposition == "fix" else {"wrong_outcome": 1}
