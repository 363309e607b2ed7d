"""Load task fixtures, derive their visible hints, and refuse any fixture that breaks the handbook."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from functools import cache, cached_property
from itertools import chain, filterfalse
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from . import chronology, grading, rules
from .errors import FixtureError, UnknownTaskError
from .models import Difficulty, LiveQueue, Release, TaskFixture, Ticket, TicketRecord, Truth
from .world import DATA_DIR, World, load_world

TASK_IDS: tuple[str, ...] = ("bug_triage_easy", "bug_triage_medium", "bug_triage_hard")
"""The fixed benchmark tasks, one file each under `data/tasks/`; generated tasks are in `data/generator/`."""
DEFAULT_TASK_ID = "bug_triage_easy"

# Duplicate hints: a text-similarity search over earlier reports, as trackers do.
_HINT_THRESHOLD = 0.16
_HINT_MAX = 2
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "cannot",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "this",
        "to",
        "too",
        "was",
        "we",
        "were",
        "when",
        "which",
        "while",
        "will",
        "with",
        "you",
        "your",
        "after",
        "before",
        "all",
        "any",
        "also",
        "again",
        "into",
        "just",
        "more",
        "now",
        "only",
        "same",
        "since",
        "some",
        "than",
        "they",
        "what",
        "get",
        "got",
        "still",
        "us",
        "me",
        "he",
        "she",
        "his",
        "her",
        "who",
        "why",
        "how",
        "out",
        "up",
    ]
)


@dataclass(frozen=True)
class Task:
    """A loaded task: visible tickets in fixture order, and their truth by ticket id."""

    task_id: str
    difficulty: Difficulty
    description: str
    step_budget: int
    tickets: tuple[Ticket, ...]
    truth: dict[str, Truth]
    releases: tuple[Release, ...] = ()
    """The release calendar up to the queue's time (visible to the agent)."""
    live: LiveQueue | None = None
    """What makes the queue live (replies, history, arrivals); None for a static queue."""

    @property
    def ticket_ids(self) -> tuple[str, ...]:
        """Ticket ids in fixture order."""
        return tuple(t.ticket_id for t in self.tickets)

    @cached_property
    def by_id(self) -> dict[str, Ticket]:
        """Visible tickets by id."""
        return {t.ticket_id: t for t in self.tickets}


_WORD = re.compile(r"[a-z0-9][a-z0-9_\-]+")
"""A token of the duplicate hints (`_tokens` finds the same runs without the pattern)."""
_WORD_CHARS = b"abcdefghijklmnopqrstuvwxyz0123456789_-"
_APART_WORDS = bytes(c if c in _WORD_CHARS else 32 for c in range(256))
"""Every byte that no `_WORD` holds made a space: a text's words are then its `split()`."""
_SHORT = frozenset(chr(c) for c in _WORD_CHARS) | STOPWORDS
"""What `_tokens` drops: one-character runs (no `_WORD` is one) and the stopwords."""


def _tokens(text: str) -> frozenset[str]:
    """The `_WORD`s of `text` lower-cased, less stopwords and numbers. Read by splitting, not by the pattern: a
    `_WORD` is a run of its characters less any leading `_` or `-`, of two characters or more (a character
    outside ASCII is never one of them, so it reads as the `?` it is encoded as)."""
    apart = text.lower().encode("ascii", "replace").translate(_APART_WORDS).decode("ascii")
    runs = set(apart.split())
    if " -" in apart or " _" in apart or apart.startswith(("-", "_")):  # a run that starts so (few do)
        for run in [x for x in runs if x[0] in "_-"]:
            runs.discard(run)
            runs.add(run.lstrip("_-"))
    runs -= _SHORT
    runs.discard("")
    return frozenset(filterfalse(str.isdigit, runs))


def _bitsets(bags: list[frozenset[str]]) -> list[int]:
    """Each bag as an integer with one bit per token of all `bags` (a shared token count is one `&`)."""
    bit = {token: 1 << i for i, token in enumerate(dict.fromkeys(chain.from_iterable(bags)))}
    return [sum(map(bit.__getitem__, bag)) for bag in bags]


def suspected_duplicates(records: list[TicketRecord]) -> dict[str, list[str]]:
    """For each ticket, the earlier reports whose visible text is most alike (Jaccard).

    Uses only titles and descriptions, never truth, so it misses some real duplicates
    and suggests some false ones, like a tracker's "possible duplicates" box.
    """
    ordered = sorted(records, key=lambda r: (r.created_at, r.ticket_id))
    bags = [_tokens(f"{r.title} {r.description}") for r in ordered]
    sizes, masks = [len(b) for b in bags], _bitsets(bags)
    hints: dict[str, list[str]] = {}
    for i, rec in enumerate(ordered):
        scored = []
        a, size = masks[i], sizes[i]
        for j, shared in enumerate([(a & m).bit_count() for m in masks[:i]]):
            union = size + sizes[j] - shared
            sim = shared / union if union else 0.0
            if sim >= _HINT_THRESHOLD:
                scored.append((-sim, ordered[j].ticket_id))
        hints[rec.ticket_id] = [tid for _, tid in sorted(scored)[:_HINT_MAX]]
    return hints


def urgency_order(tickets: list[Ticket] | tuple[Ticket, ...]) -> list[Ticket]:
    """Tickets as the handbook says to work them: SLA deadline first, then the rest."""
    return sorted(
        tickets,
        key=lambda t: (*rules.sla_first(t.sla_deadline_step), t.created_at, t.ticket_id),
    )


def _backlog_ids(fx: TaskFixture) -> frozenset[str]:
    """The ids of the live queue's history (empty for a static queue)."""
    return frozenset(e.ticket_id for e in fx.live.backlog) if fx.live is not None else frozenset()


def _fail(task_id: str, ticket_id: str | None, field: str, problem: str) -> FixtureError:
    where = f"ticket {ticket_id}" if ticket_id else "task"
    return FixtureError(f"{task_id}: {where}, field '{field}': {problem}")


def _check_record(
    fx: TaskFixture, rec: TicketRecord, by_id: dict[str, TicketRecord], world: World, dates: bool = True
) -> None:
    """`rec` agrees with the handbook and the task; with `dates`, its text with when it was filed (`_check_chronology`)."""
    t, tid, task = rec.truth, rec.ticket_id, fx.task_id
    if rec.service not in world.services:
        raise _fail(task, tid, "service", f"'{rec.service}' is not a service; use one of {list(world.services)}")
    for comp in rec.component_candidates:
        if comp not in world.owner:
            raise _fail(task, tid, "component_candidates", f"'{comp}' is not a component")
    if t.true_component not in world.owner:
        raise _fail(task, tid, "truth.true_component", f"'{t.true_component}' is not a component")
    if world.owner[t.true_component] != t.true_assignee_team:
        raise _fail(
            task,
            tid,
            "truth.true_assignee_team",
            f"'{t.true_component}' is owned by '{world.owner[t.true_component]}', not '{t.true_assignee_team}'",
        )
    if grading.load_grading().candidates_hold_truth[fx.difficulty] and t.true_component not in rec.component_candidates:
        raise _fail(task, tid, "component_candidates", f"must hold the true component in {fx.difficulty} tasks")
    expected_priority = rules.priority_for(t.true_severity, rec.customer_tier, world)
    if t.true_priority != expected_priority:
        raise _fail(
            task,
            tid,
            "truth.true_priority",
            f"{t.true_severity} for a {rec.customer_tier} customer is {expected_priority}, not {t.true_priority}",
        )
    if (t.disposition == "duplicate") != (t.duplicate_of is not None):
        raise _fail(task, tid, "truth.duplicate_of", "must be set exactly when disposition is 'duplicate'")
    if t.duplicate_of is not None and fx.live is not None and t.duplicate_of in _backlog_ids(fx):
        pass  # a duplicate of an earlier tracker ticket: `_check_live` holds it to the history
    elif t.duplicate_of is not None:
        canonical = by_id.get(t.duplicate_of)
        if canonical is None or canonical.ticket_id == tid:
            raise _fail(task, tid, "truth.duplicate_of", f"'{t.duplicate_of}' is not another ticket of this task")
        if canonical.truth.disposition == "duplicate":
            raise _fail(task, tid, "truth.duplicate_of", f"'{t.duplicate_of}' is itself a duplicate")
        if canonical.created_at >= rec.created_at:
            raise _fail(task, tid, "truth.duplicate_of", f"'{t.duplicate_of}' must be created before the duplicate")
    if t.needs_more_info != (t.disposition == "needs_info"):
        raise _fail(task, tid, "truth.needs_more_info", "must be true exactly when disposition is 'needs_info'")
    if t.disposition == "needs_info" and not rules.may_need_info(
        rec.reporter_type, rec.repro_steps_present, rec.logs_present
    ):
        raise _fail(
            task,
            tid,
            "truth.disposition",
            "needs_info requires a non-monitoring report with no repro steps and no logs",
        )
    exposure = rules.exposure_outside_production(t.true_severity, rec.environment)
    wanted_escalation = rules.should_escalate(t.disposition, t.true_severity, rec.environment, world, exposure=exposure)
    if t.should_escalate != wanted_escalation:
        raise _fail(
            task,
            tid,
            "truth.should_escalate",
            f"must be {wanted_escalation}: escalate exactly the bugs to fix that are sev0/sev1 in production"
            " and exposures of customer data (sev0) anywhere",
        )
    if not exposure and rules.cap_outside_production(t.true_severity, rec.environment) != t.true_severity:
        raise _fail(
            task,
            tid,
            "truth.true_severity",
            "a defect outside production is at most sev2, unless it exposes data (sev0)",
        )
    if rec.log_excerpt and not rec.logs_present:
        raise _fail(task, tid, "logs_present", "must be true when log_excerpt is given")
    if dates:
        _check_chronology(fx, rec)


_DATED_FIELDS = ("title", "description", "log_excerpt", "version")
"""The fields of a ticket record that may name a date, a weekday or a release."""
_APART = "\n\n"
"""What sets the fields apart when they are read together: no date, weekday or version spans a blank line."""


def _check_chronology(fx: TaskFixture, rec: TicketRecord) -> None:
    """No date, weekday or release named in a ticket that contradicts when it was filed.

    The fields are read together first (a slip in one is a slip in them all, set apart by a blank
    line); only a ticket with a slip is read field by field, to name the field."""
    texts = [(field, text) for field in _DATED_FIELDS if (text := getattr(rec, field))]
    if not chronology.problems(_APART.join(text for _, text in texts), rec.created_at, fx.releases):
        return
    for field, text in texts:
        found = chronology.problems(text, rec.created_at, fx.releases)
        if found:
            raise _fail(
                fx.task_id,
                rec.ticket_id,
                field,
                "; ".join(found) + f": a ticket filed at {rec.created_at:%Y-%m-%dT%H:%M}Z can only name dates, "
                "weekdays and releases as they were by then; move the date or version, or the ticket's created_at",
            )


def _check_budget(fx: TaskFixture, tickets: list[Ticket], truth: dict[str, Truth]) -> None:
    order = urgency_order(tickets)
    settled = rules.settle_schedule(
        rules.correct_steps(truth[t.ticket_id].disposition, truth[t.ticket_id].should_escalate) for t in order
    )
    for ticket, used in zip(order, settled, strict=True):
        if rules.late(used, ticket.sla_deadline_step):
            raise _fail(
                fx.task_id,
                ticket.ticket_id,
                "sla_policy",
                f"correct triage in SLA order settles it at step {used}, after its deadline {ticket.sla_deadline_step}",
            )
    used = settled[-1] if settled else 0
    if used > fx.step_budget:
        raise _fail(
            fx.task_id, None, "step_budget", f"{fx.step_budget} is less than the {used} steps correct triage needs"
        )


def _check_live(fx: TaskFixture, by_id: dict[str, TicketRecord], world: World) -> None:
    """A live queue agrees with its tickets: a reply for every reporter but an alert's (all of them, when the
    queue has replies: whether a reply comes must say nothing about the ticket), replies that settle only on
    vague reports and with a truth the handbook gives, duplicates of open earlier tracker tickets, a history
    before the start, and arrivals filed in the step before they show."""
    live, task = fx.live, fx.task_id
    assert live is not None
    for tid, reply in live.replies.items():
        rec = by_id.get(tid)
        if rec is None:
            raise _fail(task, tid, "live.replies", "names no ticket of this task")
        if rec.reporter_type == "monitoring":
            raise _fail(task, tid, "live.replies", "an alert has no reporter to answer")
        if reply.truth is None:
            continue
        if rec.truth.disposition != "needs_info":
            raise _fail(
                task, tid, "live.replies", f"only a needs_info ticket's reply settles it, not {rec.truth.disposition}"
            )
        try:
            # the record's text is the one `build_task` read already: only the truth is new
            _check_record(fx, rec.model_copy(update={"truth": reply.truth}), by_id, world, dates=False)
        except FixtureError as exc:
            raise _fail(task, tid, "live.replies.truth", f"the reply's truth breaks the handbook: {exc}") from None
    if live.replies:
        for rec in fx.tickets:
            if rec.reporter_type != "monitoring" and rec.ticket_id not in live.replies:
                raise _fail(task, rec.ticket_id, "live.replies", "every reporter of a queue with replies needs one")
            if rec.truth.disposition == "needs_info" and live.replies[rec.ticket_id].truth is None:
                raise _fail(task, rec.ticket_id, "live.replies", "a needs_info ticket's reply must settle it")
    backlog = {e.ticket_id: e for e in live.backlog}
    for entry in live.backlog:
        if entry.ticket_id in by_id:
            raise _fail(task, entry.ticket_id, "live.backlog", "a tracker entry's id is also a queue ticket's")
        if entry.updated_at >= live.start:
            raise _fail(
                task, entry.ticket_id, "live.backlog", f"must be filed and updated before the start {live.start}"
            )
    for rec in fx.tickets:
        original = backlog.get(rec.truth.duplicate_of or "")
        if original is not None and (original.status != "open" or original.created_at >= rec.created_at):
            raise _fail(
                task,
                rec.ticket_id,
                "truth.duplicate_of",
                f"'{original.ticket_id}' must be an open tracker ticket filed before it",
            )
    _check_arrivals(fx)


def _check_arrivals(fx: TaskFixture) -> None:
    """Reports there at reset are filed before the start; an arriving one during the step before it shows
    (at the latest as it shows);
    no comment is written after its ticket is seen."""
    live, task = fx.live, fx.task_id
    assert live is not None
    ids = {rec.ticket_id for rec in fx.tickets}
    if unknown := sorted(set(live.arrivals) - ids):
        raise _fail(task, unknown[0], "live.arrivals", "names no ticket of this task")
    step = timedelta(minutes=live.step_minutes)
    for rec in fx.tickets:
        at = live.arrivals.get(rec.ticket_id)
        shown = live.start + (at or 0) * step
        if at is None and rec.created_at >= live.start:
            raise _fail(
                task,
                rec.ticket_id,
                "created_at",
                f"a ticket there at reset must be filed before the start {live.start}",
            )
        if at is not None and not shown - step <= rec.created_at <= shown:
            raise _fail(
                task,
                rec.ticket_id,
                "created_at",
                f"arriving at step {at} it must be filed from {shown - step} to {shown}",
            )
        if rec.comments and rec.comments[-1].time > shown:
            raise _fail(task, rec.ticket_id, "comments", f"a comment dated after the ticket is seen ({shown})")


def _check_live_budget(fx: TaskFixture, tickets: list[Ticket], truth: dict[str, Truth]) -> None:
    """Correct triage of a live queue, most urgent first as tickets arrive and replies come in, meets every
    deadline (an arriving or answered ticket's counted from when it comes) within the budget."""
    run = _LiveRun(fx, {t.ticket_id: t for t in tickets}, truth)
    run.run()
    if run.late is not None:
        tid, at, due = run.late
        raise _fail(
            fx.task_id,
            tid,
            "sla_policy",
            f"correct triage in SLA order settles it at step {at}, after its deadline {due}",
        )
    if run.steps > fx.step_budget:
        raise _fail(
            fx.task_id, None, "step_budget", f"{fx.step_budget} is less than the {run.steps} steps correct triage needs"
        )


@dataclass
class _LiveRun:
    """Correct triage of a live queue as the environment plays it: one step of queue time per action, idle
    time jumped, an arriving or answered ticket's deadline counted from the step it comes at."""

    fx: TaskFixture
    tickets: dict[str, Ticket]
    truth: dict[str, Truth]
    clock: int = 0
    steps: int = 0

    def __post_init__(self) -> None:
        live = self.fx.live
        assert live is not None
        self.coming = {tid: at for tid, at in live.arrivals.items()}
        self.waiting: dict[str, int] = {}
        self.answered: set[str] = set()
        self.due = {tid: t.sla_deadline_step for tid, t in self.tickets.items() if tid not in self.coming}
        self.open = set(self.due)

    def _deliver(self) -> None:
        while True:
            events = sorted(
                [(at, 0, tid) for tid, at in self.coming.items()] + [(at, 1, tid) for tid, at in self.waiting.items()]
            )
            for at, kind, tid in events:
                if at > self.clock:
                    break
                (self.waiting if kind else self.coming).pop(tid)
                deadline = self.tickets[tid].sla_deadline_step
                self.due[tid] = None if deadline is None else deadline + self.steps
                self.open.add(tid)
                if kind:
                    self.answered.add(tid)
            if self.open or not events:
                return
            self.clock = min(at for at, _, _ in events)

    def run(self) -> dict[str, int]:
        """The step at which each ticket is first settled and, in `late`, the first deadline missed."""
        live = self.fx.live
        assert live is not None
        settled: dict[str, int] = {}
        self.late: tuple[str, int, int | None] | None = None
        self._deliver()
        while self.open:
            tid = min(self.open, key=lambda i: (*rules.sla_first(self.due[i]), self.tickets[i].created_at, i))
            reply = live.replies.get(tid)
            settled_by = reply.truth if tid in self.answered and reply is not None else None
            t = settled_by or self.truth[tid]
            n = rules.correct_steps(t.disposition, t.should_escalate)
            if t.duplicate_of is not None and t.duplicate_of in _backlog_ids(self.fx):
                n += 1  # the search that finds the earlier tracker ticket
            for _ in range(n):
                self.steps += 1
                self.clock += 1
            self.open.discard(tid)
            settled.setdefault(tid, self.steps)
            if self.late is None and rules.late(self.steps, self.due[tid]):
                self.late = (tid, self.steps, self.due[tid])
            if t.disposition == "needs_info" and reply is not None and reply.delay is not None:
                self.waiting[tid] = self.clock + reply.delay
            self._deliver()
        return settled


_VISIBLE = tuple(name for name in TicketRecord.model_fields if name != "truth")
"""The fields a ticket record shares with the ticket an agent sees: all but its truth."""


def _visible(rec: TicketRecord, hints: list[str], deadline: int | None) -> Ticket:
    """What an agent sees of `rec`, with the loader's hints and deadline: built from the record's values
    without validating them again. Every constraint of a `Ticket` field is one of `TicketRecord`'s (or
    stricter there, comment times included), the hints are ticket ids and the deadline is a `SlaPolicy`'s
    (at least 1) or None, so validation could only copy the lists."""
    values = {name: getattr(rec, name) for name in _VISIBLE}
    values["suspected_duplicate_ids"], values["sla_deadline_step"] = hints, deadline
    if not _PLAIN_TICKET:
        return Ticket.model_construct(**values)
    # what `model_construct` makes of a value for every field, without its look for aliases and defaults field by field
    ticket = Ticket.__new__(Ticket)
    object.__setattr__(ticket, "__dict__", {name: values[name] for name in _TICKET_FIELDS})
    object.__setattr__(ticket, "__pydantic_fields_set__", set(_TICKET_FIELDS))
    object.__setattr__(ticket, "__pydantic_extra__", None)
    object.__setattr__(ticket, "__pydantic_private__", None)
    return ticket


_TICKET_FIELDS = tuple(Ticket.__pydantic_fields__)
"""A ticket's fields in order: `_visible` gives each a value (the record's, the hints, the deadline)."""
_PLAIN_TICKET = (
    set(_TICKET_FIELDS) == {*_VISIBLE, "suspected_duplicate_ids", "sla_deadline_step"}
    and Ticket.model_config.get("extra") != "allow"
    and not Ticket.__pydantic_root_model__
    and not Ticket.__pydantic_post_init__
    and not Ticket.__private_attributes__
    and all(f.alias is None and f.validation_alias is None for f in Ticket.__pydantic_fields__.values())
)
"""True when a `Ticket` is what `model_construct` would make of `_visible`'s values set as `_visible` sets them: no
field aliased, none left out, no extra values kept, no private attributes, no post-init."""


def build_task(fx: TaskFixture, world: World | None = None) -> Task:
    """Validate a parsed fixture against the handbook and derive its visible hints."""
    try:
        grading.check_difficulty(fx.difficulty)
    except FixtureError as exc:
        raise _fail(fx.task_id, None, "difficulty", str(exc)) from None
    world = world or load_world()
    by_id: dict[str, TicketRecord] = {}
    for rec in fx.tickets:
        if rec.ticket_id in by_id:
            raise _fail(fx.task_id, rec.ticket_id, "ticket_id", "is not unique")
        by_id[rec.ticket_id] = rec
    for rec in fx.tickets:
        _check_record(fx, rec, by_id, world)
    hints = suspected_duplicates(list(fx.tickets))
    deadlines = rules.sla_deadlines(fx.sla_policy)
    tickets = [_visible(rec, hints[rec.ticket_id], deadlines[rec.customer_tier]) for rec in fx.tickets]
    truth = {rec.ticket_id: rec.truth for rec in fx.tickets}
    if fx.live is None:
        _check_budget(fx, tickets, truth)
    else:
        _check_live(fx, by_id, world)
        _check_live_budget(fx, tickets, truth)
    return Task(
        fx.task_id, fx.difficulty, fx.description, fx.step_budget, tuple(tickets), truth, tuple(fx.releases), fx.live
    )


def parse_fixture(raw: dict[str, Any], source: str = "fixture") -> TaskFixture:
    """Parse fixture JSON into a `TaskFixture`, naming the offending ticket on error."""
    try:
        return TaskFixture.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        where = ""
        if len(loc) >= 2 and loc[0] == "tickets" and isinstance(loc[1], int):
            tickets = raw.get("tickets", [])
            tid = tickets[loc[1]].get("ticket_id", f"#{loc[1]}") if isinstance(tickets[loc[1]], dict) else f"#{loc[1]}"
            where = f"ticket {tid}, "
            loc = loc[2:]
        field = ".".join(str(p) for p in loc)
        raise FixtureError(f"{source}: {where}field '{field}': {err['msg']}") from None


def load_task_file(path: Path) -> Task:
    """Load and validate one fixture file."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    fx = parse_fixture(raw, source=path.name)
    if fx.task_id != path.stem:
        raise _fail(fx.task_id, None, "task_id", f"must match the file name '{path.stem}'")
    return build_task(fx)


@cache
def load_fixed_task(task_id: str) -> Task:
    """Load a fixed benchmark task by id (cached per process; tasks are immutable).

    Most callers want `sources.load_task`, which also serves generated tasks (this module
    cannot import it: `sources` imports this module and the generator, which imports it too).
    """
    if task_id not in TASK_IDS:
        raise UnknownTaskError(f"unknown fixed task_id '{task_id}'; choose one of {list(TASK_IDS)}")
    return load_task_file(DATA_DIR / "tasks" / f"{task_id}.json")


def load_all_tasks() -> dict[str, Task]:
    """Every fixed task, checking that ticket ids are unique across tasks."""
    tasks = {tid: load_fixed_task(tid) for tid in TASK_IDS}
    seen: dict[str, str] = {}
    for task in tasks.values():
        for tid in task.ticket_ids:
            if tid in seen:
                raise _fail(task.task_id, tid, "ticket_id", f"also used in {seen[tid]}")
            seen[tid] = task.task_id
    return tasks
