"""Typed models at every boundary: tickets, fixtures, actions, observations, rewards, state, grades."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

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
Difficulty = Literal["easy", "medium", "hard", "expert"]

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


class SlaPolicy(Strict):
    """Deadline, in steps, that the support desk stamps on paying customers' tickets."""

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


# --------------------------------------------------------------------------- actions


class _ActionBase(Strict):
    ticket_id: TicketId | None = Field(default=None, description="Ticket to act on; omitted means the focused ticket.")


class ClassifyAction(_ActionBase):
    """Set a ticket's severity, priority and component."""

    action_type: Literal["classify"] = "classify"
    severity: Severity = Field(description="Impact as the handbook rates it: sev0 (worst) to sev3.")
    priority: Priority = Field(description="The handbook's priority for this severity and the customer's tier.")
    component: str = Field(min_length=1, max_length=64, description="The owning component, one of the components.")


class AssignAction(_ActionBase):
    """Assign a ticket to the team that owns its component."""

    action_type: Literal["assign"] = "assign"
    team: str = Field(min_length=1, max_length=64, description="The owning team, one of the teams.")


class MarkDuplicateAction(_ActionBase):
    """Settle a ticket as a duplicate of an earlier report of the same defect."""

    action_type: Literal["mark_duplicate"] = "mark_duplicate"
    duplicate_of: TicketId = Field(description="Id of the earliest report of the same defect.")


class RequestInfoAction(_ActionBase):
    """Settle a ticket as awaiting information from its reporter."""

    action_type: Literal["request_info"] = "request_info"
    missing: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=10, description="What the reporter should send, such as repro or logs."
    )
    question: ShortText | None = Field(default=None, description="A short question for the reporter.")


class DeferAction(_ActionBase):
    """Settle a ticket into the backlog."""

    action_type: Literal["defer"] = "defer"
    reason: ShortText = Field(min_length=1, description="Why it waits, in a few words.")


class CloseAction(_ActionBase):
    """Settle a ticket as closed."""

    action_type: Literal["close"] = "close"
    reason: CloseReason = Field(description="Why it is closed, by the handbook's rules.")


class EscalateIncidentAction(_ActionBase):
    """Page the incident commander about a ticket."""

    action_type: Literal["escalate_incident"] = "escalate_incident"
    summary: ShortText | None = Field(default=None, description="A one-line summary of the incident.")


class NextTicketAction(Strict):
    """Move the focus to the next open ticket, or to the ticket named."""

    action_type: Literal["next_ticket"] = "next_ticket"
    ticket_id: TicketId | None = Field(
        default=None, description="Ticket to focus; omitted means the next open ticket in the queue."
    )


ActionModel = Annotated[
    ClassifyAction
    | AssignAction
    | MarkDuplicateAction
    | RequestInfoAction
    | DeferAction
    | CloseAction
    | EscalateIncidentAction
    | NextTicketAction,
    Field(discriminator="action_type"),
]
ACTION_ADAPTER: TypeAdapter[ActionModel] = TypeAdapter(ActionModel)
ACTION_MODELS: tuple[type[Strict], ...] = get_args(get_args(ActionModel)[0])
"""The members of the action union, in order: the one list of actions everything else derives from."""
ACTION_TYPES: tuple[str, ...] = tuple(model.model_fields["action_type"].default for model in ACTION_MODELS)


# --------------------------------------------------------------------------- triage state


TicketStatus = Literal["open", "classified", "assigned", "triaged", "duplicate", "awaiting_info", "deferred", "closed"]

UNSETTLED_STATUSES: frozenset[str] = frozenset({"open", "classified", "assigned"})


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

    @property
    def status(self) -> TicketStatus:
        """The ticket's triage status as the queue shows it."""
        if self.duplicate_of is not None:
            return "duplicate"
        if self.close_reason is not None:
            return "closed"
        if self.deferred:
            return "deferred"
        if self.info_requested:
            return "awaiting_info"
        if self.severity is not None and self.team is not None:
            return "triaged"
        if self.severity is not None:
            return "classified"
        if self.team is not None:
            return "assigned"
        return "open"

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


class ActionResult(Strict):
    """Outcome of the last action, worded for an LLM to act on."""

    status: Literal["ok", "error"]
    action_type: str | None
    ticket_id: str | None
    message: str


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


class RewardComponent(StrEnum):
    """Named reward components (SPEC section 7), each a fixed value."""

    CORRECT_SEVERITY = "correct_severity"
    CORRECT_PRIORITY = "correct_priority"
    CORRECT_COMPONENT = "correct_component"
    CORRECT_TEAM = "correct_team"
    CORRECT_DUPLICATE = "correct_duplicate"
    CORRECT_REQUEST_INFO = "correct_request_info"
    CORRECT_ESCALATION = "correct_escalation"
    CORRECT_OUTCOME = "correct_outcome"
    DESTRUCTIVE = "destructive_action"
    WRONG_OUTCOME = "wrong_outcome"
    UNNEEDED_REQUEST_INFO = "unneeded_request_info"
    FALSE_ESCALATION = "false_escalation"
    MISSED_ESCALATION = "missed_escalation"
    RELABEL = "relabel"
    INVALID_ACTION = "invalid_action"
    NO_OP = "no_op"
    TICKET_SWITCH = "ticket_switch"
    SLA_BREACH = "sla_breach"
    CRITICAL_DONE_BONUS = "critical_done_bonus"
    CRITICAL_LEFT_PENALTY = "critical_left_penalty"


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
    """Deterministic grade of an episode (SPEC section 8.4)."""

    task_id: str
    score: float = Field(ge=0.0, le=1.0)
    subscores: dict[str, float]
    mistakes: list[str]
    passed: bool
