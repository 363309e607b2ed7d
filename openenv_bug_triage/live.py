"""A live queue under way: its clock, the tickets still to arrive, the replies on their way, its history.

The environment owns one `LiveClock` per episode of a task with a `LiveQueue` (`env._Episode.live`). Queue
time runs one step per action; when nothing is left to work on and something is still to come, it jumps to
the next event without spending a step. Everything here reads only the `LiveQueue` and what the agent did,
so the order of events, the replies' words and the search results are the same bytes for the same actions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from .models import (
    INFO_ITEMS,
    Comment,
    InfoItem,
    LiveQueue,
    QueueEvent,
    ReporterReply,
    Ticket,
    TrackerEntry,
    TrackerStatus,
)
from .search import TrackerIndex

__all__ = ["ITEM_WORDS", "Delivery", "LiveClock", "ask_terms", "asked_items", "reply_to"]

ITEM_WORDS: dict[str, InfoItem] = {
    **{item: item for item in INFO_ITEMS},
    "repro_steps": "repro",
    "steps": "repro",
    "steps_to_reproduce": "repro",
    "reproduction": "repro",
    "log": "logs",
    "log_excerpt": "logs",
    "console": "logs",
    "build": "version",
    "app_version": "version",
    "env": "environment",
    "platform": "environment",
    "browser": "environment",
    "device": "environment",
    "os": "environment",
    "screenshots": "screenshot",
    "screen_recording": "screenshot",
    "recording": "screenshot",
}
"""The words `request_info.missing` may use for each item a reporter can send (case and spaces ignored)."""


def asked_items(missing: Iterable[str]) -> tuple[InfoItem, ...]:
    """The items a request names, in `INFO_ITEMS` order; words it does not know are left out."""
    named = {ITEM_WORDS.get(re.sub(r"[\s\-]+", "_", m.strip().lower())) for m in missing}
    return tuple(item for item in INFO_ITEMS if item in named)


def reply_to(reply: ReporterReply, asked: Iterable[InfoItem]) -> tuple[str, tuple[InfoItem, ...]]:
    """The words of the reply to a request for `asked`, and the items it carries."""
    sent = tuple(item for item in asked if item in reply.has)
    if not sent:
        return f"{reply.opener}\n\n{reply.nothing}", ()
    return "\n\n".join([reply.opener, *(reply.has[item] for item in sent)]), sent


def ask_terms(earned: dict[str, int], queue: LiveQueue | None, tid: str, missing: list[str]) -> dict[str, int]:
    """A request's terms on a live queue: a request on a ticket that needed information is right only when it
    names what the ticket lacks (an item its reply `settles`); else it is an unneeded one."""
    reply = queue.replies.get(tid) if queue is not None else None
    if not earned.get("correct_request_info") or reply is None:
        return earned
    if set(asked_items(missing)) & set(reply.settles):
        return earned
    return {"unneeded_request_info": 1}


@dataclass(frozen=True)
class Delivery:
    """What the queue did at one moment: a ticket arrived, or a reporter's reply came in."""

    ticket_id: str
    kind: str  # "arrived" or "answered"
    due: int
    """The queue step it was due at."""


@dataclass
class LiveClock:
    """The moving parts of a live queue: queue time, what is still to come, and the last search."""

    queue: LiveQueue
    clock: int = 0
    """Queue steps since reset: the steps taken plus every jump over idle time."""
    waiting: dict[str, tuple[int, tuple[InfoItem, ...]]] = field(default_factory=dict)
    """Tickets whose reply is on its way: when it is due, and what was asked."""
    arrived: dict[str, int] = field(default_factory=dict)
    """Tickets that arrived during the episode, with the step they arrived at."""
    events: list[QueueEvent] = field(default_factory=list)
    """What happened since the last observation."""
    last_search: list[TrackerEntry] = field(default_factory=list)
    last_query: tuple[str, TrackerStatus | None, str | None, int] | None = None
    _index: TrackerIndex | None = None

    @property
    def history(self) -> frozenset[str]:
        """The ids of the tracker's earlier tickets."""
        return frozenset(e.ticket_id for e in self.queue.backlog)

    def later(self, tid: str) -> bool:
        """True while ticket `tid` has not arrived yet."""
        return tid in self.queue.arrivals and tid not in self.arrived

    def ask(self, tid: str, asked: tuple[InfoItem, ...]) -> None:
        """Start waiting for the reply to a request; a reporter who never answers leaves nothing pending."""
        reply = self.queue.replies.get(tid)
        self.waiting.pop(tid, None)
        if reply is not None and reply.delay is not None:
            self.waiting[tid] = (self.clock + reply.delay, asked)

    def pending(self) -> list[Delivery]:
        """Everything still to come, in the order it will happen (by due step, arrivals first, then id)."""
        out = [Delivery(tid, "arrived", at) for tid, at in self.queue.arrivals.items() if tid not in self.arrived]
        out += [Delivery(tid, "answered", due) for tid, (due, _) in self.waiting.items()]
        return sorted(out, key=lambda d: (d.due, d.kind != "arrived", d.ticket_id))

    def due(self) -> list[Delivery]:
        """What is due by now."""
        return [d for d in self.pending() if d.due <= self.clock]

    def jump(self) -> None:
        """Move queue time on to the next event (the caller checked that one is pending)."""
        self.clock = max(self.clock, self.pending()[0].due)

    def time_at(self, due: int) -> timedelta:
        """How long after the queue's start queue step `due` is."""
        return timedelta(minutes=due * self.queue.step_minutes)

    def answer(self, ticket: Ticket, due: int) -> tuple[Ticket, bool]:
        """The ticket once its reporter's reply came in at queue step `due`, and whether the reply settles it."""
        reply = self.queue.replies[ticket.ticket_id]
        _, asked = self.waiting.pop(ticket.ticket_id)
        text, sent = reply_to(reply, asked)
        at = self.queue.start + self.time_at(due)
        last = ticket.comments[-1].time if ticket.comments else ticket.created_at
        at = max(at, last + timedelta(minutes=1))
        comment = Comment(author=reply.author, role="reporter", time=at, text=text[:2000])
        update: dict[str, object] = {"comments": [*ticket.comments, comment]}
        if "repro" in sent:
            update["repro_steps_present"] = True
        if "logs" in sent and reply.log_excerpt is not None:
            update |= {"logs_present": True, "log_excerpt": reply.log_excerpt}
        if "version" in sent and reply.version is not None:
            update["version"] = reply.version
        return ticket.model_copy(update=update), any(item in reply.settles for item in sent)

    def take_events(self) -> list[QueueEvent]:
        """What happened since the last observation (and forget it: each event is shown once)."""
        events, self.events = self.events, []
        return events

    def search(self, query: str, status: TrackerStatus | None, component: str | None, limit: int) -> list[TrackerEntry]:
        """The history's best matches for `query` (BM25 over title and summary), filtered, best first."""
        if self._index is None:
            self._index = TrackerIndex(self.queue.backlog)
        self.last_query = (query, status, component, limit)
        self.last_search = self._index.search(query, status=status, component=component, limit=limit)
        return self.last_search
