"""Reference policies: `random` (seeded), `heuristic` (handbook rules + keywords) and `oracle` (reads truth).

Each policy maps an observation to an action dict (the `Policy` protocol of `episode`).
`run_episode` plays one episode in-process.
The oracle is for tests and calibration only: it reads the hidden truth.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .actions import ACTION_MODELS, action_type_of
from .env import BugTriageEnv
from .episode import Policy, start
from .models import (
    CLOSE_DISPOSITION,
    UNSETTLED_STATUSES,
    CloseReason,
    Disposition,
    GraderResult,
    ObservationModel,
    Severity,
    Ticket,
    TrackerEntry,
    Truth,
)
from .rules import settle_moves, sla_first
from .search import tokens
from .sources import load_task, task_info
from .tasks import Task, urgency_order

# --------------------------------------------------------------------------- random


@dataclass
class RandomPolicy:
    """Uniform over the action union, with the fields each action draws (`sample`) from what the observation lists."""

    name: str = "random"
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    repeat: int = 0
    """Which repeat of an instance this plays: each repeat draws its own actions (0 is every run's first)."""

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        stream = f"random-policy/{task_id}/{seed}"
        self.rng = random.Random(stream if self.repeat == 0 else f"{stream}/repeat-{self.repeat}")

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        """A uniformly drawn action type, with the fields that action's `sample` draws."""
        model = self.rng.choice(ACTION_MODELS)
        return {"action_type": action_type_of(model), **model.sample(self.rng, obs)}


# --------------------------------------------------------------------------- heuristic

_CLOSE_PATTERNS: list[tuple[CloseReason, str]] = [
    ("won't_fix", r"internet explorer|\bie ?11\b|api v1\b|/v1/|android [4-9]\b(?!\.\d)|ios 1[0-5]\b(?!\.\d)"),
    (
        "resolved",
        r"after (?:upgrading|updating)|fixed (?:in|since|after)|went away after|no longer .* after (?:the )?update|"
        r"went away (?:once|since)|(?:fixed|cured) it\b|(?:gone|fixed|disappeared|resolved) (?:since|after|once|on our side)|"
        r"after moving to",
    ),
    (
        "cannot_reproduce",
        r"can(?:no|')t reproduce|could not reproduce|unable to reproduce|no longer (?:happens|reproduces)|"
        r"not reproducible after|(?:does not|doesn't|did not|didn't) happen (?:again|any ?more)",
    ),
    ("invalid", r"works as (?:documented|designed|intended)|\bspam\b|test ticket|please ignore"),
]
_DEFER_PATTERN = r"feature request|would be (?:nice|great)|please add|it would help if|enhancement|could you add"
_SEVERITY_PATTERNS: list[tuple[Severity, str]] = [
    (
        "sev0",
        r"outage|down for (?:all|everyone)|all customers|every (?:customer|request|api call)|data loss|"
        r"corrupt|another (?:customer|tenant)|other (?:customer|tenant)|nobody can|100% of",
    ),
    (
        "sev1",
        r"crash|can(?:no|')t (?:log ?in|sign in)|unable to (?:log ?in|sign in)|checkout fail|payment.* fail|"
        r"timeout|timed out|no workaround|entire (?:team|org)",
    ),
    ("sev3", r"typo|misaligned|alignment|cosmetic|colou?r|tooltip|spelling|padding|font"),
]
_COMPONENT_PATTERNS: list[tuple[str, str]] = [
    ("sso", r"\bsso\b|saml|okta|azure ad|single sign"),
    (
        "email-delivery",
        r"e-?mails? (?:not|never|were not|are not|late|twice|arriv|bounc)|not receiv\w* (?:the |any )?e-?mail|digest",
    ),
    ("data-export", r"\bexport|\bcsv\b"),
    ("search", r"\bsearch"),
    ("reporting", r"\breport(?!(?: it| this| that|ed\b|ing it| back))|dashboard|analytics|velocity|burn-?down|chart"),
    ("invoicing", r"invoice"),
    ("payments", r"payment|checkout|\bcard\b|charged"),
    ("push-notifications", r"push notif|\bpush(?:es)?\b|notification"),
    ("permissions", r"permission|access denied|\brole\b|shar(?:e|ing)"),
    ("login", r"log ?in|sign ?in|password|2fa"),
    ("file-storage", r"attachment|upload|download"),
    ("editor", r"editor|formatting|saving|document"),
    ("ios-app", r"\bios\b|iphone|ipad"),
    ("android-app", r"android"),
    ("api-gateway", r"\b5\d\d\b|rate limit|gateway"),
    ("public-api", r"\bapi\b|endpoint|webhook"),
    ("database", r"database|postgres|replication|deadlock"),
    ("web-ui", r"\bbutton|dialog|modal|sidebar|checklist|list view|board view|browser|\bzoom"),
]


def _text(t: Ticket) -> str:
    return f"{t.title}\n{t.description}\n{t.log_excerpt or ''}".lower()


def _thread(t: Ticket) -> str:
    """The comment thread, where retests and upgrades are reported."""
    return "\n".join(c.text for c in t.comments).lower()


def heuristic_severity(t: Ticket) -> Severity:
    """Severity from keywords, capped at sev2 outside production."""
    text = _text(t)
    severity: Severity = "sev2"
    for sev, pattern in _SEVERITY_PATTERNS:
        if re.search(pattern, text):
            severity = sev
            break
    if t.environment != "production" and severity in ("sev0", "sev1"):
        severity = "sev2"
    return severity


def heuristic_component(t: Ticket) -> str:
    """A candidate the text points at, else the reporter's first candidate."""
    text = _text(t)
    for comp, pattern in _COMPONENT_PATTERNS:
        if re.search(pattern, text) and comp in t.component_candidates:
            return comp
    return t.component_candidates[0]


CLIENTS = frozenset({"ios-app", "android-app", "public-api", "web-ui"})
"""Components a report names when it names only where it was ("on my iPad", "the API")."""
_CONCRETE = re.compile(
    r"\b(?:crash\w*|closes|freez\w*|error\w*|blank|fails? to|failed to|won't (?:open|load|start|sync)|"
    r"doesn't (?:open|load|start|sync)|[45]\d\d|fails|invalid|empty|garbled|missing|stuck|twice|duplicated?|wrong|"
    r"cut off|clipped|forever|never (?:lists|shows|loads|arrives?|appears?|delivered))\b|'[^']{6,}'",
    re.I,
)
"""Words that tell how something fails (a crash, an error, a quoted message), not only that something is off."""


def named_failure(text: str, feature_request: bool = False) -> bool:
    """Whether a report names what fails: a feature (a component other than a client), or, naming only the
    client, a request or a concrete failure ("closes the second I open it"); "something is off on my iPad" is not."""
    named = mentioned_components(text)
    return bool(named - CLIENTS) or bool(named and (feature_request or _CONCRETE.search(text)))


def mentioned_components(text: str) -> set[str]:
    """Components whose keywords appear in `text`."""
    text = text.lower()
    return {comp for comp, pattern in _COMPONENT_PATTERNS if re.search(pattern, text)}


def version_platform(t: Ticket) -> str | None:
    """The platform the ticket's version names (`web`, `ios`, `android`, `api`...), None without a version."""
    return t.version.split()[0].lower() if t.version else None


def same_defect(t: Ticket, earlier: Ticket) -> bool:
    """Whether the suggested `earlier` report passes the handbook's duplicate check against `t`.

    The same defect is the same component failing the same way in the same environment, and
    a similar symptom on another platform or component is not one. So both must come from the
    same environment, name the same platform where both give a version, and point at a common
    component where both texts point at any.
    """
    if earlier.environment != t.environment:
        return False
    platforms = (version_platform(t), version_platform(earlier))
    if None not in platforms and platforms[0] != platforms[1]:
        return False
    own, theirs = mentioned_components(_text(t)), mentioned_components(_text(earlier))
    return not own or not theirs or bool(own & theirs)


@dataclass(frozen=True)
class Settlement:
    """How the heuristic settled a ticket it read: its disposition and, for a duplicate, the original."""

    disposition: Disposition
    duplicate_of: str | None = None


def original_of(t: Ticket, read: Mapping[str, Ticket], settled: Mapping[str, Settlement]) -> str | None:
    """The earliest report of `t`'s defect among the tracker's suggestions and the reports read before, or None.

    A suggestion counts when the heuristic has read it, settled it as a defect (a bug to fix or
    a duplicate, never a request, a vague report or a closed one) and it passes `same_defect`.
    The suggestions miss real duplicates, so an earlier report read and settled as a defect also
    counts when it reads as the same one without a suggestion (`retold`). A report that is itself
    a duplicate stands for its original: the link goes to the earliest-created report, never to
    another duplicate.
    """
    hinted = set(t.suspected_duplicate_ids)
    originals: set[str] = set()
    for h, earlier in read.items():
        outcome = settled.get(h)
        if h == t.ticket_id or outcome is None or outcome.disposition not in ("fix", "duplicate"):
            continue
        if (h in hinted or (earlier.created_at < t.created_at and retold(t, earlier))) and same_defect(t, earlier):
            originals.add(outcome.duplicate_of or h)
    known = [o for o in originals if o in read]
    return min(known, key=lambda o: (read[o].created_at, o)) if known else None


def retold(t: Ticket, earlier: Ticket) -> bool:
    """Whether `t` re-tells `earlier` with no suggestion between them: both texts point at a common
    component and share at least `RETOLD_MATCH` of their words."""
    own, theirs = _text(t), _text(earlier)
    if not mentioned_components(own) & mentioned_components(theirs):
        return False
    return word_overlap(set(tokens(own)), set(tokens(theirs))) >= RETOLD_MATCH


def word_overlap(a: set[str], b: set[str]) -> float:
    """The share of words two texts' word sets have in common (Jaccard), 0.0 for two empty ones."""
    return len(a & b) / len(a | b) if a | b else 0.0


RETOLD_MATCH = 0.16
"""The share of words two reports pointing at one component must have in common to read as one defect."""


def heuristic_settlement(
    t: Ticket, read: Mapping[str, Ticket] | None = None, settled: Mapping[str, Settlement] | None = None
) -> Settlement:
    """The handbook's rules of thumb for one ticket, in its order: duplicate, request information,
    close, defer, else a bug to fix.

    Only a report of a defect can duplicate one, so a feature request is never linked. `read`
    (tickets already read, by id) and `settled` (how each was settled) let it check the
    tracker's suggested duplicates (`original_of`); without them it links none.
    """
    text = _text(t)
    feature_request = re.search(_DEFER_PATTERN, text) is not None
    original = None if feature_request else original_of(t, read or {}, settled or {})
    if original is not None:
        return Settlement("duplicate", original)
    if (
        t.reporter_type != "monitoring"
        and not t.repro_steps_present
        and not t.logs_present
        and not named_failure(text, feature_request)
    ):
        return Settlement("needs_info")
    for reason, pattern in _CLOSE_PATTERNS:
        if re.search(pattern, f"{text}\n{_thread(t)}"):
            return Settlement(CLOSE_DISPOSITION[reason])
    if feature_request:
        return Settlement("defer")
    return Settlement("fix")


def heuristic_moves(t: Ticket, outcome: Settlement) -> list[dict[str, Any]]:
    """The actions that settle `t` as `outcome` (a bug to fix: keyword severity and component)."""
    if outcome.disposition == "fix":
        return settle_actions(t, "fix", heuristic_severity(t), heuristic_component(t))
    return settle_moves(t, outcome.disposition, duplicate_of=outcome.duplicate_of)


def heuristic_plan(
    t: Ticket, read: Mapping[str, Ticket] | None = None, settled: Mapping[str, Settlement] | None = None
) -> list[dict[str, Any]]:
    """The actions `heuristic_settlement` gives one ticket, in order."""
    return heuristic_moves(t, heuristic_settlement(t, read, settled))


def settle_actions(
    t: Ticket, disposition: Disposition, severity: Severity = "sev2", component: str | None = None
) -> list[dict[str, Any]]:
    """The moves that settle ticket `t` as `disposition` (a truth disposition) by the handbook.

    A bug to fix is escalated when its severity and environment require it, then classified
    (priority from the handbook's table, component default the reporter's first candidate) and
    assigned to the owning team. A duplicate links to the first suggested original.
    """
    hints = [h for h in t.suspected_duplicate_ids if h != t.ticket_id]
    if disposition == "duplicate" and not hints:
        disposition = "fix"
    original = hints[0] if hints else None
    return settle_moves(
        t, disposition, severity=severity, component=component, duplicate_of=original, summary=t.title[:200]
    )


@dataclass(kw_only=True)
class PlanPolicy:
    """Plays, for each focused ticket, the moves `plan` returns; subclasses say what to plan."""

    name: str = "plan"
    _plan: deque[dict[str, Any]] = field(default_factory=deque)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        self._plan = deque()

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        """The moves for the focused `ticket`."""
        raise NotImplementedError

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        current = getattr(obs.current_ticket, "ticket_id", None)
        if not self._plan or self._plan[0].get("ticket_id", current) != current:
            if obs.current_ticket is None:
                return {"action_type": "next_ticket"}
            self._plan = deque(self.plan(obs.current_ticket, obs))
        return self._plan.popleft()


def tracker_original(t: Ticket, found: Sequence[TrackerEntry]) -> str | None:
    """The open tracker ticket among `found` (best match first) that reads as `t`'s defect, or None: the same
    component as the one `t`'s text points at, and enough words in common (`TRACKER_MATCH`)."""
    own = set(tokens(_text(t)))
    for entry in found:
        shared = word_overlap(own, set(tokens(f"{entry.title} {entry.summary}")))
        if entry.status == "open" and entry.component == heuristic_component(t) and shared >= TRACKER_MATCH:
            return entry.ticket_id
    return None


TRACKER_MATCH = 0.12
"""The share of words a report and an open tracker ticket must have in common to be one defect."""

Habit = Literal["needed", "never", "always"]


@dataclass(kw_only=True)
class HeuristicPolicy(PlanPolicy):
    """Handbook rules and keyword matching on the focused ticket; no LLM, no truth.

    It remembers every ticket it reads and how it settled it. Before it settles a ticket with
    open suggested duplicates it has not read, it opens each of them (`next_ticket`, one step
    apiece) and settles it first; back on the ticket, `original_of` checks them against it.

    On a live queue it asks a vague report's reporter for the steps and logs and settles the ticket
    again when the answer comes; where the tracker has a history, it searches it with a report's title
    before settling the report as a new bug, and links it to an open tracker ticket that reads as the
    same defect (`tracker_original`). `asks` and `searches` change those habits for the reference table
    of live queues: `never` (never asks, or never searches: a vague report is settled as a bug) and
    `always` (asks on every ticket first; searches before every action).
    """

    name: str = "heuristic"
    asks: Habit = "needed"
    searches: Habit = "needed"
    read: dict[str, Ticket] = field(default_factory=dict)
    settled: dict[str, Settlement] = field(default_factory=dict)
    opened: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)
    searched: set[str] = field(default_factory=set)
    history: bool = False
    """The task's tracker has a history to search (`TaskInfo.dynamics`)."""
    _searching: bool = False

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        super().reset(task_id, seed, split)
        self.read, self.settled, self.opened, self.asked, self.searched = {}, {}, set(), set(), set()
        self.history, self._searching = "history" in task_info(task_id).dynamics, False

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        if self.searches == "always" and self.history and not self._searching:  # a search before every action
            self._searching = True
            title = obs.current_ticket.title if obs.current_ticket else obs.queue[0].title
            return {"action_type": "search_tracker", "query": title}
        self._searching = False
        return super().act(obs)

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        tid = ticket.ticket_id
        self.read[tid] = ticket
        open_ids = {q.ticket_id for q in obs.queue if q.status in UNSETTLED_STATUSES}
        unread = [
            h for h in ticket.suspected_duplicate_ids if h in open_ids and h not in self.read and h not in self.opened
        ]
        if unread:
            self.opened.add(unread[0])
            return [{"action_type": "next_ticket", "ticket_id": unread[0]}]
        if self.asks == "always" and tid not in self.asked:
            self.asked.add(tid)
            return settle_moves(ticket, "needs_info")
        settlement = heuristic_settlement(ticket, self.read, self.settled)
        if settlement.disposition == "needs_info" and (self.asks == "never" or tid in self.asked):
            settlement = Settlement("fix")  # asked once already: the answer is all there will be
        if settlement.disposition == "needs_info":
            self.asked.add(tid)
        if (
            settlement.disposition == "fix"
            and ticket.reporter_type == "user"
            and self.history
            and self.searches != "never"
        ):
            if tid not in self.searched:  # search first; plan again on the results
                self.searched.add(tid)
                return [{"action_type": "search_tracker", "query": ticket.title}]
            if (original := tracker_original(ticket, obs.search_results)) is not None:
                settlement = Settlement("duplicate", original)
        self.settled[tid] = settlement
        return heuristic_moves(ticket, settlement)


# --------------------------------------------------------------------------- oracle


def oracle_actions(task: Task | str) -> list[dict[str, Any]]:
    """The correct triage of every ticket of `task` (a loaded task or a fixed task id), most urgent SLA first.

    Reads hidden truth. For a generated task pass `load_task(task_id, seed=..., split=...)`.
    """
    task = load_task(task) if isinstance(task, str) else task
    return [
        move for ticket in urgency_order(task.tickets) for move in truth_moves(ticket, task.truth[ticket.ticket_id])
    ]


def truth_moves(ticket: Ticket, t: Truth) -> list[dict[str, Any]]:
    """The moves that settle `ticket` exactly as its truth `t` says."""
    return settle_moves(
        ticket,
        t.disposition,
        severity=t.true_severity,
        component=t.true_component,
        duplicate_of=t.duplicate_of,
        escalate=t.should_escalate,
    )


@dataclass
class ReplayPolicy:
    """Plays `actions` in order, then `next_ticket` for as long as the episode lasts."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    name: str = "replay"
    _plan: deque[dict[str, Any]] = field(default_factory=deque)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        """Start again from the first action."""
        self._plan = deque(self.actions)

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        """The next action of the list, or `next_ticket` once it is used up."""
        return self._plan.popleft() if self._plan else {"action_type": "next_ticket"}


def truth_now(task: Task, tid: str, status: str) -> Truth:
    """A ticket's truth as the oracle settles it: on a live queue, a ticket whose reporter answered what
    the oracle asked (every item its reply settles) has the reply's truth."""
    reply = task.live.replies.get(tid) if task.live is not None else None
    settled = reply.truth if reply is not None else None
    return settled if status == "answered" and settled is not None else task.truth[tid]


def live_oracle_moves(task: Task, tid: str, status: str) -> list[dict[str, Any]]:
    """The correct moves for ticket `tid` of a live queue as it stands: ask for what settles a vague report,
    settle an answered one by its reply's truth, search the tracker before linking an earlier tracker ticket."""
    t = truth_now(task, tid, status)
    moves = truth_moves(task.by_id[tid], t)
    history = {e.ticket_id: e for e in task.live.backlog} if task.live is not None else {}
    if t.duplicate_of in history:  # it knows what to look for: the words of the earlier ticket's title
        moves.insert(0, {"action_type": "search_tracker", "query": history[t.duplicate_of].title})
    return moves


@dataclass
class OraclePolicy(ReplayPolicy):
    """Plays the correct triage from the hidden truth. For tests and calibration only.

    On a static queue it replays `oracle_actions`; on a live one it plans each ticket as it stands
    (`live_oracle_moves`), most urgent first, as tickets arrive and replies come in.
    """

    name: str = "oracle"
    _task: Task | None = None

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        """Plan the correct triage of this instance."""
        task = load_task(task_id, seed, split)
        self._task = task if task.live is not None else None
        self._plan = deque() if task.live is not None else deque(oracle_actions(task))

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        task = self._task
        if task is None:
            return super().act(obs)
        unsettled = {q.ticket_id: q for q in obs.queue if q.status in UNSETTLED_STATUSES}
        if not self._plan or self._plan[0].get("ticket_id", self._plan[-1]["ticket_id"]) not in unsettled:
            if not unsettled:
                return {"action_type": "next_ticket"}
            tid = min(
                unsettled,
                key=lambda i: (*sla_first(unsettled[i].sla_deadline_step), task.by_id[i].created_at, i),
            )
            self._plan = deque(live_oracle_moves(task, tid, unsettled[tid].status))
        return self._plan.popleft()


POLICIES: dict[str, type] = {"random": RandomPolicy, "heuristic": HeuristicPolicy, "oracle": OraclePolicy}
DETERMINISTIC = frozenset({"heuristic", "oracle"})
"""The policies that play an instance the same way every time: a repeat replays the same episode."""


def policy_for_repeat(name: str, repeat: int = 0) -> Policy:
    """A fresh policy of `POLICIES[name]` for the `repeat`-th play of an instance (only `random` draws anew)."""
    if name == "random":
        return RandomPolicy(repeat=repeat)
    policy: Policy = POLICIES[name]()
    return policy


@dataclass(frozen=True)
class EpisodeResult:
    """What one in-process episode produced: the full grade and the copy the agent saw."""

    task_id: str
    seed: int
    grade: GraderResult
    agent_grade: GraderResult
    steps: int
    rewards: tuple[float, ...]
    invalid_actions: int
    reward_components: dict[str, float] = field(default_factory=dict)
    """Each reward component summed over the episode."""


def run_episode(policy: Policy, task_id: str, seed: int = 42, split: str | None = None) -> EpisodeResult:
    """Play one whole episode of `task_id` (for a generated task: of `split`, default train) in-process."""
    env = BugTriageEnv()
    episode = start(env, policy, task_id, seed, split).play()
    state = env.state()
    return EpisodeResult(
        task_id,
        seed,
        env.grade(),
        episode.agent_grade,
        state.step_count,
        episode.rewards,
        state.invalid_actions,
        episode.reward_components,
    )
