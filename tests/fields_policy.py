"""A policy that never reads ticket text: rules over structured fields, fitted on every fixed task.

It probes whether the fixtures carry their labels in surface fields (attachments, `version`,
title case, reporter type...). `fit_rules` grows a small decision tree (Gini, depth-limited)
that maps a ticket's structured fields to the plan the truth asks for, trained on all the
fixed tasks' tickets at once, so it is the best such rule set for exactly the data it is then
scored on. `FieldsOnlyPolicy` plays those rules.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openenv_bug_triage.models import CLOSE_REASONS, ObservationModel, Ticket, Truth
from openenv_bug_triage.tasks import TASK_IDS, load_task
from openenv_bug_triage.world import load_world

MAX_DEPTH = 4
"""At most 16 rules: deeper trees memorise 48 tickets one or two at a time."""
MIN_LEAF = 2

Test = tuple[str, Callable[[Ticket], bool]]


def _caps_word(title: str) -> bool:
    return any(len(w) >= 4 and w.isalpha() and w.isupper() for w in title.split())


def feature_tests() -> list[Test]:
    """Yes/no questions about a ticket's structured fields and the shape (not the words) of its title."""
    tests: list[Test] = [
        ("attachments>0", lambda t: t.attachments_count > 0),
        ("version set", lambda t: t.version is not None),
        ("affected_users set", lambda t: t.affected_users is not None),
        ("log_excerpt set", lambda t: t.log_excerpt is not None),
        ("repro steps", lambda t: t.repro_steps_present),
        ("logs", lambda t: t.logs_present),
        ("duplicate hint", lambda t: bool(t.suspected_duplicate_ids)),
        ("sla deadline", lambda t: t.sla_deadline_step is not None),
        ("title starts lowercase", lambda t: t.title[:1].islower()),
        ("title has a CAPS word", lambda t: _caps_word(t.title)),
        ("title starts with [", lambda t: t.title.startswith("[")),
        ("several candidates", lambda t: len(t.component_candidates) > 1),
    ]
    for name, values in (
        ("reporter_type", ("user", "qa", "monitoring")),
        ("customer_tier", ("free", "pro", "enterprise")),
        ("environment", ("production", "staging", "development")),
    ):
        tests.extend((f"{name}={v}", lambda t, n=name, v=v: getattr(t, n) == v) for v in values)
    for prefix in ("web", "iOS", "Android"):
        tests.append((f"version {prefix}", lambda t, p=prefix: (t.version or "").startswith(p)))
    return tests


def plan_class(truth: Truth) -> str:
    """What the truth asks for, as one class: a settlement, or `fix:<severity>`."""
    return f"fix:{truth.true_severity}" if truth.disposition == "fix" else truth.disposition


@dataclass(frozen=True)
class Node:
    """A leaf (`label`) or a question with the subtrees for yes and no."""

    label: str
    question: Test | None = None
    yes: Node | None = None
    no: Node | None = None

    def predict(self, ticket: Ticket) -> str:
        node = self
        while node.question is not None:
            node = node.yes if node.question[1](ticket) else node.no  # type: ignore[assignment]
        return node.label

    def rules(self, indent: str = "") -> str:
        if self.question is None:
            return f"{indent}-> {self.label}\n"
        return (
            f"{indent}if {self.question[0]}:\n{self.yes.rules(indent + '  ')}"  # type: ignore[union-attr]
            f"{indent}else:\n{self.no.rules(indent + '  ')}"  # type: ignore[union-attr]
        )


def _gini(labels: Sequence[str]) -> float:
    n = len(labels)
    return 1.0 - sum((c / n) ** 2 for c in Counter(labels).values()) if n else 0.0


def _majority(labels: Sequence[str]) -> str:
    counts = Counter(labels)
    return max(sorted(counts), key=lambda k: counts[k])


def _grow(rows: list[tuple[Ticket, str]], tests: list[Test], depth: int) -> Node:
    labels = [label for _, label in rows]
    leaf = Node(_majority(labels))
    if depth == 0 or _gini(labels) == 0.0:
        return leaf
    best: tuple[float, Test, list, list] | None = None
    for test in tests:
        yes = [r for r in rows if test[1](r[0])]
        no = [r for r in rows if not test[1](r[0])]
        if len(yes) < MIN_LEAF or len(no) < MIN_LEAF:
            continue
        impurity = (len(yes) * _gini([x for _, x in yes]) + len(no) * _gini([x for _, x in no])) / len(rows)
        if best is None or impurity < best[0] - 1e-12:
            best = (impurity, test, yes, no)
    if best is None or best[0] >= _gini(labels) - 1e-12:
        return leaf
    _, test, yes, no = best
    return Node(leaf.label, test, _grow(yes, tests, depth - 1), _grow(no, tests, depth - 1))


def training_rows(task_ids: Sequence[str] = TASK_IDS) -> list[tuple[Ticket, str]]:
    """Every ticket of `task_ids` with its plan class."""
    rows = []
    for task_id in task_ids:
        task = load_task(task_id)
        rows.extend((t, plan_class(task.truth[t.ticket_id])) for t in task.tickets)
    return rows


def fit_rules(max_depth: int = MAX_DEPTH) -> Node:
    """The depth-limited decision tree over structured fields that best fits every fixed task."""
    return _grow(training_rows(), feature_tests(), max_depth)


def fields_plan(ticket: Ticket, label: str) -> list[dict[str, Any]]:
    """The actions for one ticket once the rules have given it `label`."""
    world = load_world()
    tid = ticket.ticket_id
    if label == "duplicate":
        hints = [h for h in ticket.suspected_duplicate_ids if h != tid]
        label = "fix:sev2" if not hints else label
        if hints:
            return [{"action_type": "mark_duplicate", "ticket_id": tid, "duplicate_of": hints[0]}]
    if label == "needs_info":
        return [{"action_type": "request_info", "ticket_id": tid, "missing": ["repro", "logs"]}]
    if label == "defer":
        return [{"action_type": "defer", "ticket_id": tid, "reason": "feature request"}]
    if label.startswith("close_"):
        reason = next(r for r in CLOSE_REASONS if label == "close_" + r.replace("'", ""))
        return [{"action_type": "close", "ticket_id": tid, "reason": reason}]
    severity = label.split(":")[1]
    component = ticket.component_candidates[0]
    plan: list[dict[str, Any]] = []
    if world.needs_escalation(severity, ticket.environment):
        plan.append({"action_type": "escalate_incident", "ticket_id": tid})
    plan.append(
        {
            "action_type": "classify",
            "ticket_id": tid,
            "severity": severity,
            "priority": world.priority_for(severity, ticket.customer_tier),
            "component": component,
        }
    )
    plan.append({"action_type": "assign", "ticket_id": tid, "team": world.owner[component]})
    return plan


@dataclass
class FieldsOnlyPolicy:
    """Plays `fit_rules()` on the focused ticket; never reads title words, description or logs."""

    name: str = "fields_only"
    tree: Node = field(default_factory=fit_rules)
    _plan: deque = field(default_factory=deque)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        self._plan = deque()

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        if not self._plan or self._plan[0]["ticket_id"] != getattr(obs.current_ticket, "ticket_id", None):
            if obs.current_ticket is None:
                return {"action_type": "next_ticket"}
            self._plan = deque(fields_plan(obs.current_ticket, self.tree.predict(obs.current_ticket)))
        return self._plan.popleft()
