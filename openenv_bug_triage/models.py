"""Typed models at every boundary: tickets, fixtures, observations, rewards, state, grades (actions: `actions`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

Severity = Literal["sev0", "sev1", "sev2", "sev3"]
Priority = Literal["p0", "p1", "p2", "p3"]
Tier = Literal["free", "pro", "enterprise"]
ReporterType = Literal["user", "qa", "monitoring"]
Environment = Literal["production", "staging", "development"]
CloseReason = Literal["invalid", "won't_fix", "cannot_reproduce", "resolved"]
Disposition = Literal[
    "fix",
    "duplicate",
    "needs_info",
    "defer",
    "close_invalid",
    "close_wont_fix",
    "close_cannot_reproduce",
    "close_resolved",
]
Difficulty = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
"""A difficulty is the name of a grading profile in `data/grading.json` (easy, medium, hard and expert
today): a level of a new difficulty is data, with no code to change."""
Platform = Literal["web", "ios", "android", "api"]

SEVERITIES: tuple[Severity, ...] = ("sev0", "sev1", "sev2", "sev3")
PRIORITIES: tuple[Priority, ...] = ("p0", "p1", "p2", "p3")
CLOSE_REASONS: tuple[CloseReason, ...] = ("invalid", "won't_fix", "cannot_reproduce", "resolved")
CLOSE_DISPOSITION: dict[CloseReason, Disposition] = {
    "invalid": "close_invalid",
    "won't_fix": "close_wont_fix",
    "cannot_reproduce": "close_cannot_reproduce",
    "resolved": "close_resolved",
}

TicketId = Annotated[str, Field(min_length=1, max_length=64)]
ShortText = Annotated[str, Field(max_length=2000)]


class Strict(BaseModel):
    """Base for every model here: unknown fields are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- tickets

CommentRole = Literal["reporter", "qa", "support"]


class Comment(Strict):
    """One comment on a ticket after it was filed: a retest, an update from the reporter, a note from support."""

    author: str = Field(min_length=1, max_length=120)
    role: CommentRole
    time: datetime
    text: str = Field(min_length=1, max_length=2000)


def _no_comments(comments: list[Comment]) -> bool:
    return not comments


def _comments_after_filing(created_at: datetime, comments: list[Comment]) -> None:
    for comment in comments:
        if comment.time <= created_at:
            raise ValueError(f"comment by {comment.author!r} at {comment.time} must come after created_at {created_at}")
    if [c.time for c in comments] != sorted(c.time for c in comments):
        raise ValueError("comments must be in time order, oldest first")


class Ticket(Strict):
    """What an agent sees of a bug report. Never holds hidden truth."""

    ticket_id: TicketId
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    reporter_type: ReporterType
    service: str
    component_candidates: list[str]
    created_at: datetime
    customer_tier: Tier
    environment: Environment
    version: str | None = None
    affected_users: int | None = Field(default=None, ge=0)
    log_excerpt: str | None = None
    repro_steps_present: bool
    logs_present: bool
    attachments_count: int = Field(ge=0)
    suspected_duplicate_ids: list[str] = Field(default_factory=list)
    sla_deadline_step: int | None = Field(default=None, ge=1)
    comments: list[Comment] = Field(
        default_factory=list,
        exclude_if=_no_comments,
        description="Comments after filing, oldest first (retests, updates); left out of the output when empty.",
    )

    @model_validator(mode="after")
    def _comment_times(self) -> Ticket:
        _comments_after_filing(self.created_at, self.comments)
        return self


class Truth(Strict):
    """Hidden ground truth for one ticket; stays on the server until the episode ends."""

    true_severity: Severity
    true_priority: Priority
    true_component: str
    true_assignee_team: str
    duplicate_of: str | None = None
    needs_more_info: bool
    should_escalate: bool
    disposition: Disposition


class TicketRecord(Strict):
    """One ticket as a fixture stores it: the visible report plus its `truth`.

    `suspected_duplicate_ids` and `sla_deadline_step` are derived by the loader from
    visible data, so fixtures do not carry them.
    """

    ticket_id: TicketId
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    reporter_type: ReporterType
    service: str
    component_candidates: list[str] = Field(min_length=1)
    created_at: datetime
    customer_tier: Tier
    environment: Environment
    version: str | None = None
    affected_users: int | None = Field(default=None, ge=0)
    log_excerpt: str | None = None
    repro_steps_present: bool
    logs_present: bool
    attachments_count: int = Field(ge=0)
    truth: Truth
    comments: list[Comment] = Field(default_factory=list, exclude_if=_no_comments)

    @model_validator(mode="after")
    def _comment_times(self) -> TicketRecord:
        _comments_after_filing(self.created_at, self.comments)
        return self


class Release(Strict):
    """One production release of a Larkspur client or of the API: which version went live when."""

    platform: Platform
    version: str = Field(min_length=1, max_length=32, description="As tickets name it, e.g. 2026.3.1 or 5.14.0.")
    released_at: datetime
    notes: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="Release notes: one line per defect the release fixes, e.g. 'Fixed: a problem with ...'.",
    )

    @model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """A release without notes dumps as it did before notes existed (fixtures round-trip unchanged)."""
        out: dict[str, object] = handler(self)
        if not self.notes:
            out.pop("notes", None)
        return out


# --------------------------------------------------------------------------- the live tracker (issue 16)

InfoItem = Literal["repro", "logs", "version", "environment", "screenshot"]
"""What a reporter can be asked to send: steps to reproduce, logs, the version, where it happens, a screenshot."""
INFO_ITEMS: tuple[InfoItem, ...] = ("repro", "logs", "version", "environment", "screenshot")


class ReporterReply(Strict):
    """How a live queue's reporter answers `request_info` (hidden from the agent until the reply arrives).

    The reply to an ask holds `opener` and, for each item asked that the reporter `has`, its text; when it
    holds none, it is `nothing` alone. A reply that holds one of the `settles` items decides the ticket:
    from then on its truth is `truth` (the rule function applied to the facts the reporter gave). Every
    reporter of a live queue but an alert's has one (a reply's coming says nothing about the ticket); only a
    vague report's settles anything.
    """

    author: str = Field(min_length=1, max_length=120)
    delay: int | None = Field(ge=1, le=200, description="Queue steps from the ask to the reply; None: never answers.")
    opener: str = Field(min_length=1, max_length=600)
    has: dict[InfoItem, str] = Field(description="What the reporter can send, in their own words.")
    nothing: str = Field(min_length=1, max_length=600, description="Their reply when asked for nothing they can send.")
    settles: list[InfoItem] = Field(default_factory=list, description="Items whose answer decides the ticket.")
    truth: Truth | None = Field(default=None, description="The ticket's truth once it is settled (with `settles`).")
    log_excerpt: str | None = Field(default=None, max_length=6000, description="What `logs` pastes into the ticket.")
    version: str | None = Field(default=None, max_length=64, description="What `version` fills in.")
    support: str | None = Field(
        default=None,
        max_length=2000,
        description="Support's note after a reply that settles the ticket: how far beyond the reporter's workspace "
        "the defect reaches (only support sees that far).",
    )
    support_author: str | None = Field(default=None, max_length=120)

    @model_validator(mode="after")
    def _settles_what_it_has(self) -> ReporterReply:
        if missing := [item for item in self.settles if item not in self.has]:
            raise ValueError(f"settles {missing}, which the reporter does not have (`has`)")
        if ("logs" in self.has) != (self.log_excerpt is not None):
            raise ValueError("log_excerpt must be given exactly when the reporter has logs")
        if (self.support is None) != (self.support_author is None):
            raise ValueError("support's note needs its author, and an author a note")
        if (self.truth is None) != (not self.settles):
            raise ValueError("a reply has a truth exactly when it settles something (`settles`)")
        if self.truth is not None and self.truth.disposition == "needs_info":
            raise ValueError("a reply that settles the ticket must leave a truth other than needs_info")
        return self


TrackerStatus = Literal["open", "closed"]
TrackerResolution = Literal["fixed", "duplicate", "won't_fix", "invalid", "cannot_reproduce"]


class TrackerEntry(Strict):
    """An earlier ticket of the tracker's history: what `search_tracker` finds and `mark_duplicate` may point at."""

    ticket_id: TicketId
    title: str = Field(min_length=1, max_length=300)
    summary: str = Field(min_length=1, max_length=3000)
    component: str
    status: TrackerStatus
    resolution: TrackerResolution | None = None
    fixed_in: str | None = Field(default=None, max_length=32, description="The release whose notes fix it.")
    created_at: datetime
    updated_at: datetime

    @model_validator(mode="after")
    def _closed_has_resolution(self) -> TrackerEntry:
        if (self.status == "closed") != (self.resolution is not None):
            raise ValueError("a closed entry needs a resolution, an open one none")
        if self.fixed_in is not None and self.resolution != "fixed":
            raise ValueError("fixed_in is only for entries resolved as fixed")
        if self.updated_at < self.created_at:
            raise ValueError("updated_at must not come before created_at")
        return self


class LiveQueue(Strict):
    """What makes a queue live (opt-in per generated level): reporters who answer, a history to search,
    tickets that arrive during the episode. Every part is hidden from the agent until the episode shows it."""

    start: datetime = Field(description="The queue's time at step 0; each step of queue time is `step_minutes`.")
    step_minutes: int = Field(default=10, ge=1, le=240)
    replies: dict[TicketId, ReporterReply] = Field(default_factory=dict)
    arrivals: dict[TicketId, int] = Field(
        default_factory=dict, description="Queue step at which a ticket arrives; tickets not named are there at reset."
    )
    backlog: list[TrackerEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _arrivals_after_start(self) -> LiveQueue:
        if bad := [tid for tid, at in self.arrivals.items() if at < 1]:
            raise ValueError(f"arrivals {bad} must come at step 1 or later")
        ids = [e.ticket_id for e in self.backlog]
        if len(set(ids)) != len(ids):
            raise ValueError("backlog ticket ids must be unique")
        return self


class SlaPolicy(Strict):
    """Deadline, in steps, that the tracker stamps on tickets whose `customer_tier` is a paid plan."""

    enterprise: int = Field(ge=1)
    pro: int = Field(ge=1)


class TaskFixture(Strict):
    """A task file under `data/tasks/`."""

    task_id: str
    difficulty: Difficulty
    description: str
    step_budget: int = Field(ge=1)
    sla_policy: SlaPolicy
    tickets: list[TicketRecord] = Field(min_length=1)
    releases: list[Release] = Field(default_factory=list)
    """The release calendar up to the queue's time, oldest first (empty when the task has none)."""
    live: LiveQueue | None = Field(default=None, exclude_if=lambda v: v is None)
    """Reporters who answer, a history to search, arrivals (None: a static queue, as every fixed task)."""


# --------------------------------------------------------------------------- actions
# The action models and their union live in `openenv_bug_triage.actions`, one module per action.


# --------------------------------------------------------------------------- triage state


TicketStatus = Literal[
    "open", "answered", "classified", "assigned", "triaged", "duplicate", "awaiting_info", "deferred", "closed"
]
"""`answered`: on a live queue, the reporter answered a request for information and the ticket is back to settle."""

UNSETTLED_STATUSES: frozenset[str] = frozenset({"open", "answered", "classified", "assigned"})


def _false(value: bool) -> bool:
    return not value


def _none(value: object) -> bool:
    return value is None


def _empty(value: list[object]) -> bool:
    return not value


class TicketProgress(Strict):
    """What the agent has done to one ticket. Built only from the agent's own actions."""

    severity: Severity | None = None
    priority: Priority | None = None
    component: str | None = None
    team: str | None = None
    duplicate_of: str | None = None
    close_reason: CloseReason | None = None
    deferred: bool = False
    info_requested: bool = False
    escalated: bool = False
    classify_count: int = 0
    assign_count: int = 0
    settled_at_step: int | None = None
    answered: bool = Field(default=False, exclude_if=_false)
    """On a live queue: the reporter answered the last request for information (left out while False)."""

    @property
    def status(self) -> TicketStatus:
        """The ticket's triage status as the queue shows it."""
        if self.duplicate_of is not None:
            return "duplicate"
        if self.close_reason is not None:
            return "closed"
        if self.deferred:
            return "deferred"
        if self.info_requested and not self.answered:
            return "awaiting_info"
        if self.severity is not None and self.team is not None:
            return "triaged"
        if self.severity is not None:
            return "classified"
        if self.team is not None:
            return "assigned"
        return "answered" if self.answered else "open"

    @property
    def settled(self) -> bool:
        """True once the ticket needs no more triage."""
        return self.status not in UNSETTLED_STATUSES

    @property
    def final(self) -> bool:
        """True once the ticket can no longer be changed (all settlements but `triaged`)."""
        return self.status in ("duplicate", "awaiting_info", "deferred", "closed")


# --------------------------------------------------------------------------- observation


class QueueEntry(Strict):
    """One line of the queue: enough to link duplicates and plan work."""

    ticket_id: str
    title: str
    customer_tier: Tier
    status: TicketStatus
    sla_deadline_step: int | None
    escalated: bool
    arrived_at_step: int | None = Field(default=None, exclude_if=_none)
    """On a live queue, the step a ticket arrived at during the episode (left out for tickets there at reset)."""


class ActionResult(Strict):
    """Outcome of the last action, worded for an LLM to act on."""

    status: Literal["ok", "error"]
    action_type: str | None
    ticket_id: str | None
    message: str


QueueEventKind = Literal["arrived", "answered"]


class QueueEvent(Strict):
    """Something the queue did by itself on a live queue: a ticket arrived, or its reporter answered."""

    ticket_id: str
    kind: QueueEventKind
    step: int = Field(ge=0, description="The step it happened at (0: at reset).")


class ObservationModel(Strict):
    """Everything the agent sees after `reset` or `step`."""

    task_id: str
    current_ticket: Ticket | None
    queue: list[QueueEntry]
    remaining_count: int = Field(ge=0)
    urgent_count: int = Field(ge=0)
    sla_at_risk_count: int = Field(ge=0)
    last_action_result: ActionResult | None
    available_teams: list[str]
    available_components: list[str]
    steps_used: int = Field(ge=0)
    steps_remaining: int = Field(ge=0)
    score_breakdown: dict[str, float]
    releases: list[Release] = Field(
        default_factory=list,
        description="Releases up to the queue's time, oldest first: the latest of a platform is its current release.",
    )
    events: list[QueueEvent] = Field(
        default_factory=list,
        exclude_if=_empty,
        description="Live queues: tickets that arrived and replies that came in since the last observation.",
    )
    search_results: list[TrackerEntry] = Field(
        default_factory=list,
        exclude_if=_empty,
        description="Live queues: what the last `search_tracker` found, best match first.",
    )


class RewardModel(Strict):
    """Reward for one step: the clamped total, its named parts, and the running sum."""

    value: float = Field(ge=-1.0, le=1.0)
    components: dict[str, float]
    cumulative: float


class StateModel(Strict):
    """Episode state as `state()` reports it: ids, counters and the agent's own progress."""

    episode_id: str | None
    task_id: str
    seed: int
    split: str | None = None
    """The split of a generated task's instance; None for a fixed task."""
    step_count: int = Field(ge=0)
    step_budget: int = Field(ge=1)
    done: bool
    focus_index: int = Field(ge=0)
    ticket_order: list[str]
    progress: dict[str, TicketProgress]
    cumulative_reward: float
    invalid_actions: int = Field(ge=0)
    no_op_actions: int = Field(ge=0)


class GraderResult(Strict):
    """Deterministic grade of an episode: the score in [0, 1], its subscores, the mistakes named, passed or not."""

    task_id: str
    score: float = Field(ge=0.0, le=1.0)
    subscores: dict[str, float]
    mistakes: list[str]
    passed: bool
