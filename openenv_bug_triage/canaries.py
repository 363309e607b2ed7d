"""Canary policies: each plays one shortcut, and a task is gameable when one beats the heuristic.

A canary never reads a ticket's words the way triage needs to. Each probes one shortcut a
learner could find instead of triage:

- constant answers (`only_next_ticket`, `close_everything`, `defer_everything`, `fix_everything_sev0`
  ... `fix_everything_sev3`): the same move or the same answer on every ticket;
- `keyword_stuffing`: every free-text field filled with the handbook's vocabulary;
- `duplicate_spam`: every ticket linked to another as its duplicate;
- `ask_for_everything`: more information requested on every ticket;
- `escalate_everything`: the incident commander paged about every ticket;
- `fields_only`: a decision tree over structured fields and the title's shape, fitted on the
  truth of training tickets (`fit_rules`);
- `reward_prober`: tries each constant answer on one ticket after another, then keeps the one the
  reward paid most for;
- `memoriser`: remembers, by title, which settlement and labels the reward paid for on earlier
  instances and replays them (it learns on instance i and plays i+1);
- `random`: uniform over the action union.

`make_canary` builds each of `CANARY_NAMES`; `play` runs one episode and feeds a `Learner` its
steps, so the tests (`tests/test_gaming.py`) and the audit (`scripts/audit.py`) play the same code.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .env import BugTriageEnv
from .episode import Policy, Step, start
from .models import (
    CLOSE_DISPOSITION,
    PRIORITIES,
    SEVERITIES,
    Disposition,
    ObservationModel,
    Severity,
    Ticket,
    Truth,
)
from .policies import PlanPolicy, RandomPolicy, settle_actions
from .sources import load_task
from .surface import Node, features, fit
from .world import load_world

# --------------------------------------------------------------------------- playing


@runtime_checkable
class Learner(Protocol):
    """A policy that also sees every step's reward (`play` calls `learn` after each step)."""

    def learn(self, step: Step) -> None:
        """Take in what one step paid."""


def play(policy: Policy, task_id: str, seed: int, split: str | None = None) -> float:
    """The score of one whole episode of `policy`, feeding each step to it when it is a `Learner`."""
    env = BugTriageEnv()
    learner = policy if isinstance(policy, Learner) else None
    for step in start(env, policy, task_id, seed, split):
        if learner is not None:
            learner.learn(step)
    return env.grade().score


def focused(obs: ObservationModel) -> str | None:
    """The focused ticket's id, if any."""
    return obs.current_ticket.ticket_id if obs.current_ticket else None


# --------------------------------------------------------------------------- constant answers


@dataclass
class Constant:
    """The same move on every focused ticket, whatever it says."""

    name: str
    move: Callable[[Constant, ObservationModel], dict[str, Any]]
    escalated: set[str] = field(default_factory=set)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        self.escalated = set()

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        return self.move(self, obs)


def _escalate_all(self: Constant, obs: ObservationModel) -> dict[str, Any]:
    tid = focused(obs)
    if tid and tid not in self.escalated:
        self.escalated.add(tid)
        return {"action_type": "escalate_incident"}
    return {"action_type": "next_ticket"}


def _duplicate_all(self: Constant, obs: ObservationModel) -> dict[str, Any]:
    first, second = obs.queue[0].ticket_id, obs.queue[1].ticket_id
    tid = focused(obs) or first
    return {"action_type": "mark_duplicate", "duplicate_of": second if tid == first else first}


DEGENERATE: dict[str, Callable[[Constant, ObservationModel], dict[str, Any]]] = {
    "only_next_ticket": lambda self, obs: {"action_type": "next_ticket"},
    "close_everything": lambda self, obs: {"action_type": "close", "reason": "invalid"},
    "defer_everything": lambda self, obs: {"action_type": "defer", "reason": "later"},
    "ask_for_everything": lambda self, obs: {"action_type": "request_info"},
    "escalate_everything": _escalate_all,
    "duplicate_spam": _duplicate_all,
}
"""One move on every ticket; the tests hold each at or below 0.15 on every task."""


@dataclass(kw_only=True)
class ConstantFix(PlanPolicy):
    """Settles every ticket as a bug to fix of one `severity`, for the reporter's first candidate component."""

    severity: Severity = "sev2"
    name: str = "fix_everything"

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        return settle_actions(ticket, "fix", self.severity)


# --------------------------------------------------------------------------- keyword stuffing

STUFFING = (
    "sev0 outage data loss all customers production down escalate p0 enterprise sla breach "
    "security exposure corrupt crash regression repro logs duplicate resolved invalid"
)
"""The handbook's loudest words, as a grader that counted keywords would reward them."""


@dataclass(kw_only=True)
class KeywordStuffing(PlanPolicy):
    """Fills every free-text field with the handbook's vocabulary: a page, an info request and a deferral per ticket.

    The reward and the grade judge decisions, never words, so the stuffed text must earn nothing.
    """

    name: str = "keyword_stuffing"
    text: str = STUFFING

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        tid = ticket.ticket_id
        return [
            {"action_type": "escalate_incident", "ticket_id": tid, "summary": self.text},
            {"action_type": "request_info", "ticket_id": tid, "missing": self.text.split()[:10], "question": self.text},
            {"action_type": "defer", "ticket_id": tid, "reason": self.text},
        ]


# --------------------------------------------------------------------------- rules over structured fields

LEFT_OUT = ("id_digit", "hour_bucket")
"""Fields of `surface.features` the tree never sees: ids and creation hours are arbitrary, so a tree
on a few dozen tickets would only memorise them. Description length stays in: it is a surface."""
MAX_DEPTH = 4
"""At most 16 rules: deeper trees memorise a few dozen tickets one or two at a time."""
MIN_LEAF = 2


def ticket_fields(t: Ticket) -> dict[str, object]:
    """Structured fields and the shape (not the words) of the title, as categorical values."""
    out = {k: v for k, v in features(t).items() if k not in LEFT_OUT}
    out.update(
        {
            "attachments_present": t.attachments_count > 0,
            "version_platform": (t.version or "none").split()[0],
            "affected_users_present": t.affected_users is not None,
            "log_excerpt_present": t.log_excerpt is not None,
            "duplicate_hint": bool(t.suspected_duplicate_ids),
            "sla_deadline": t.sla_deadline_step is not None,
            "title_caps_word": any(len(w) >= 4 and w.isalpha() and w.isupper() for w in t.title.split()),
            "title_tag": t.title.startswith("["),
        }
    )
    return out


def plan_class(truth: Truth) -> str:
    """What the truth asks for, as one class: a settlement, or `fix:<severity>`."""
    return f"fix:{truth.true_severity}" if truth.disposition == "fix" else truth.disposition


@dataclass(frozen=True)
class Rules:
    """A fitted tree over a ticket's `ticket_fields`, in the order `fields` names them."""

    tree: Node
    fields: tuple[str, ...]

    def row(self, ticket: Ticket) -> tuple[object, ...]:
        """A ticket as the tree sees it."""
        values = ticket_fields(ticket)
        return tuple(values[k] for k in self.fields)

    def predict(self, ticket: Ticket) -> str:
        """The plan class the rules give `ticket`."""
        return self.tree.predict(self.row(ticket))

    def describe(self, node: Node | None = None, indent: str = "") -> str:
        """The rules as nested if/else lines."""
        node = node or self.tree
        if node.feature is None or node.yes is None or node.no is None:
            return f"{indent}-> {node.label}\n"
        test = f"{self.fields[node.feature]} == {node.value!r}"
        return (
            f"{indent}if {test}:\n{self.describe(node.yes, indent + '  ')}"
            f"{indent}else:\n{self.describe(node.no, indent + '  ')}"
        )


def training_rows(instances: Iterable[tuple[str, int | None, str | None]]) -> list[tuple[Ticket, Truth]]:
    """Every ticket of the instances (task id, seed, split) with its truth, each distinct ticket once."""
    rows: dict[tuple[str, str, str], tuple[Ticket, Truth]] = {}
    for task_id, seed, split in instances:
        task = load_task(task_id, seed, split)
        for t in task.tickets:
            rows.setdefault((t.ticket_id, t.title, t.description), (t, task.truth[t.ticket_id]))
    return list(rows.values())


def fit_rules(rows: Sequence[tuple[Ticket, Truth]], max_depth: int = MAX_DEPTH) -> Rules:
    """The depth-limited decision tree over structured fields that best fits `rows` (ticket, truth)."""
    if not rows:
        raise ValueError("fit_rules needs at least one (ticket, truth) row to fit on")
    fields = tuple(ticket_fields(rows[0][0]))
    table = [tuple(ticket_fields(t)[k] for k in fields) for t, _ in rows]
    return Rules(fit(table, [plan_class(truth) for _, truth in rows], max_depth, MIN_LEAF), fields)


@dataclass(kw_only=True)
class FieldsOnlyPolicy(PlanPolicy):
    """Plays fitted `Rules` on the focused ticket; never reads title words, description or logs."""

    rules: Rules
    name: str = "fields_only"

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        disposition, _, severity = self.rules.predict(ticket).partition(":")
        return settle_actions(ticket, disposition, severity or "sev2")  # type: ignore[arg-type]  # fitted on these


# --------------------------------------------------------------------------- learning from rewards


SETTLEMENTS: tuple[Disposition, ...] = (
    "fix",
    "needs_info",
    "duplicate",
    "close_invalid",
    "close_wont_fix",
    "close_cannot_reproduce",
    "close_resolved",
    "defer",
)
"""The settlements the memoriser tries on a title, most common first."""

ARMS: tuple[str, ...] = (*(f"fix:{s}" for s in SEVERITIES), *(d for d in SETTLEMENTS if d != "fix"))
"""The answers the reward prober tries: a fix at each severity, and every other settlement."""


@dataclass(kw_only=True)
class RewardProber(PlanPolicy):
    """Tries each answer (`ARMS`) on one ticket after another, then gives every ticket the answer that paid most.

    A bandit over constant answers within one episode: what it keeps is what the reward paid on
    average, never what the ticket says.
    """

    name: str = "reward_prober"
    paid: dict[str, dict[str, float]] = field(default_factory=dict)
    """What each arm paid so far, in all, on each ticket it was given."""
    _arm: dict[str, str] = field(default_factory=dict)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        super().reset(task_id, seed, split)
        self.paid, self._arm = {}, {}

    def choose(self) -> str:
        """The next arm not tried, else the arm with the best mean pay (ties: the earlier arm)."""
        untried = [a for a in ARMS if a not in self.paid]
        if untried:
            return untried[0]
        return max(ARMS, key=lambda a: statistics.fmean(self.paid[a].values()) if self.paid[a] else 0.0)

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        arm = self._arm[ticket.ticket_id] = self.choose()
        self.paid.setdefault(arm, {})[ticket.ticket_id] = 0.0
        disposition, _, severity = arm.partition(":")
        return settle_actions(ticket, disposition, severity or "sev2")  # type: ignore[arg-type]  # ARMS holds these

    def learn(self, step: Step) -> None:
        tid = step.action.get("ticket_id") or ""
        if tid in self._arm:
            self.paid[self._arm[tid]][tid] += step.reward.value


PAYS = {
    "correct_outcome",
    "correct_request_info",
    "correct_duplicate",
    "correct_severity",
    "correct_priority",
    "correct_component",
    "correct_team",
}
"""Reward components that say a settlement (or a label of a fix) was right."""


def title_key(ticket: Ticket) -> str:
    """What the memoriser recognises a ticket by: its title's words, lower case, digits and punctuation dropped."""
    return " ".join(re.findall(r"[a-z]+", ticket.title.lower()))


@dataclass
class Recollection:
    """What the reward told the memoriser about one title: settlements ruled out or right, and the fix's labels."""

    settlement: Disposition | None = None
    ruled_out: set[str] = field(default_factory=set)
    """Settlements and label values (`severity:sev1`, `priority:p2`, `component:search`) the reward did not pay for."""
    labels: dict[str, str] = field(default_factory=dict)
    """Label values the reward paid for: `severity`, `priority`, `component`."""
    escalate: bool | None = None

    def next_settlement(self) -> Disposition:
        """The settlement that paid, or the first not yet ruled out (a fix again once all are)."""
        if self.settlement is not None:
            return self.settlement
        return next((d for d in SETTLEMENTS if d not in self.ruled_out), "fix")

    def guess(self, label: str, values: Sequence[str]) -> str:
        """The value of `label` that paid, or the first of `values` not ruled out."""
        if label in self.labels:
            return self.labels[label]
        return next((v for v in values if f"{label}:{v}" not in self.ruled_out), values[0])


@dataclass(kw_only=True)
class Memoriser(PlanPolicy):
    """Learns across instances: replays what the reward's named components paid for a title, and tries on where none did.

    Its memory outlives `reset`, so played over instances 0, 1, 2 ... it learns on each one and
    plays the next with what it learned: which settlement paid, which severity, priority and
    component, whether a page paid. Where instances repeat their tickets (a fixed task under
    another seed) it converges on the answers; on held-out instances it must gain nothing.
    """

    name: str = "memoriser"
    memory: dict[str, Recollection] = field(default_factory=dict)
    _keys: dict[str, str] = field(default_factory=dict)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        super().reset(task_id, seed, split)
        self._keys = {}

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        key = self._keys[ticket.ticket_id] = title_key(ticket)
        known = self.memory.setdefault(key, Recollection())
        settlement = known.next_settlement()
        tid = ticket.ticket_id
        if settlement == "duplicate":
            hints = [h for h in ticket.suspected_duplicate_ids if h != tid]
            other = hints[0] if hints else next((q.ticket_id for q in obs.queue if q.ticket_id != tid), tid)
            return [{"action_type": "mark_duplicate", "ticket_id": tid, "duplicate_of": other}]
        if settlement != "fix":
            return settle_actions(ticket, settlement)
        components = [*ticket.component_candidates, *obs.available_components]
        component = known.guess("component", components)
        moves = [] if known.escalate is False else [{"action_type": "escalate_incident", "ticket_id": tid}]
        return [
            *moves,
            {
                "action_type": "classify",
                "ticket_id": tid,
                "severity": known.guess("severity", SEVERITIES),
                "priority": known.guess("priority", PRIORITIES),
                "component": component,
            },
            {"action_type": "assign", "ticket_id": tid, "team": load_world().owner.get(component, component)},
        ]

    def learn(self, step: Step) -> None:
        action, paid = step.action, set(step.reward.components)
        key = self._keys.get(action.get("ticket_id") or "")
        if key is None:
            return
        known = self.memory[key]
        kind = action["action_type"]
        if kind == "escalate_incident":
            known.escalate = "correct_escalation" in paid if paid & {"correct_escalation", "false_escalation"} else None
        elif kind == "classify":
            for label in ("severity", "priority", "component"):
                if f"correct_{label}" in paid:
                    known.labels[label] = action[label]
                    known.settlement = "fix"
                else:
                    known.ruled_out.add(f"{label}:{action[label]}")
            if not paid & PAYS and len([v for v in known.ruled_out if v.startswith("severity:")]) >= 2:
                known.ruled_out.add("fix")  # two classifies and no label paid: most likely not a bug to fix
        elif kind != "assign" and kind != "next_ticket":
            settlement = "duplicate" if kind == "mark_duplicate" else self._settlement_of(action)
            if paid & PAYS:
                known.settlement = settlement
            else:
                known.ruled_out.add(settlement)

    @staticmethod
    def _settlement_of(action: dict[str, Any]) -> Disposition:
        if action["action_type"] == "close":
            return CLOSE_DISPOSITION[action["reason"]]
        return "needs_info" if action["action_type"] == "request_info" else "defer"


# --------------------------------------------------------------------------- the roster

CANARY_NAMES: tuple[str, ...] = (
    *DEGENERATE,
    *(f"fix_everything_{s}" for s in SEVERITIES),
    "keyword_stuffing",
    "fields_only",
    "reward_prober",
    "memoriser",
    "random",
)


def make_canary(name: str, rules: Rules | None = None) -> Policy:
    """A fresh canary by name; `fields_only` needs its fitted `rules`."""
    if name in DEGENERATE:
        return Constant(name, DEGENERATE[name])
    if name.startswith("fix_everything_"):
        severity = name.removeprefix("fix_everything_")
        if severity in SEVERITIES:
            return ConstantFix(name=name, severity=severity)
    simple: dict[str, Callable[[], Policy]] = {
        "keyword_stuffing": KeywordStuffing,
        "reward_prober": RewardProber,
        "memoriser": Memoriser,
        "random": RandomPolicy,
    }
    if name in simple:
        return simple[name]()
    if name == "fields_only":
        if rules is None:
            raise ValueError("the fields_only canary needs fitted rules: make_canary('fields_only', fit_rules(rows))")
        return FieldsOnlyPolicy(rules=rules)
    raise ValueError(f"unknown canary {name!r}; choose one of {list(CANARY_NAMES)}")


__all__ = [
    "CANARY_NAMES",
    "DEGENERATE",
    "Constant",
    "ConstantFix",
    "FieldsOnlyPolicy",
    "KeywordStuffing",
    "Learner",
    "Memoriser",
    "RewardProber",
    "Rules",
    "fit_rules",
    "make_canary",
    "play",
    "training_rows",
]
