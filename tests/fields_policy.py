"""A policy that never reads ticket text: rules over structured fields, fitted on every fixed task.

It probes whether the fixed fixtures carry their labels in surface fields (attachments,
`version`, title case, reporter type...). `fit_rules` grows a small decision tree
(`openenv_bug_triage.surface.fit`: Gini, `field == value` splits, depth-limited) that maps a
ticket's structured fields to the plan its truth asks for, trained on all the fixed tasks'
tickets at once, so it is the best such rule set for exactly the tickets it is then scored on.
`FieldsOnlyPolicy` plays those rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from openenv_bug_triage.models import ObservationModel, Ticket, Truth
from openenv_bug_triage.policies import PlanPolicy, settle_actions
from openenv_bug_triage.sources import load_task
from openenv_bug_triage.surface import Node, features, fit
from openenv_bug_triage.tasks import TASK_IDS

MAX_DEPTH = 4
"""At most 16 rules: deeper trees memorise 48 tickets one or two at a time."""
MIN_LEAF = 2
LEFT_OUT = ("id_digit", "hour_bucket")
"""Fields of `surface.features` left out: ids and creation hours are arbitrary, so a tree on 48
tickets would only memorise them. Description length stays in: it is a surface, not the text."""


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


FIELD_NAMES: tuple[str, ...] = tuple(ticket_fields(load_task(TASK_IDS[0]).tickets[0]))


def row(t: Ticket) -> tuple[object, ...]:
    """A ticket as the tree sees it."""
    values = ticket_fields(t)
    return tuple(values[k] for k in FIELD_NAMES)


def plan_class(truth: Truth) -> str:
    """What the truth asks for, as one class: a settlement, or `fix:<severity>`."""
    return f"fix:{truth.true_severity}" if truth.disposition == "fix" else truth.disposition


def training_rows(task_ids: Sequence[str] = TASK_IDS) -> list[tuple[Ticket, str]]:
    """Every ticket of `task_ids` with its plan class."""
    rows = []
    for task_id in task_ids:
        task = load_task(task_id)
        rows.extend((t, plan_class(task.truth[t.ticket_id])) for t in task.tickets)
    return rows


@dataclass(frozen=True)
class Rules:
    """A fitted tree over `row(ticket)`."""

    tree: Node

    def predict(self, ticket: Ticket) -> str:
        return self.tree.predict(row(ticket))

    def describe(self, node: Node | None = None, indent: str = "") -> str:
        """The rules as nested if/else lines."""
        node = node or self.tree
        if node.feature is None:
            return f"{indent}-> {node.label}\n"
        test = f"{FIELD_NAMES[node.feature]} == {node.value!r}"
        return (
            f"{indent}if {test}:\n{self.describe(node.yes, indent + '  ')}"
            f"{indent}else:\n{self.describe(node.no, indent + '  ')}"
        )


def fit_rules(max_depth: int = MAX_DEPTH) -> Rules:
    """The depth-limited decision tree over structured fields that best fits every fixed task."""
    rows = training_rows()
    return Rules(fit([row(t) for t, _ in rows], [label for _, label in rows], max_depth, MIN_LEAF))


def fields_plan(ticket: Ticket, label: str) -> list[dict[str, Any]]:
    """The actions for one ticket once the rules have given it `label` ("fix:sev1", "defer", ...)."""
    disposition, _, severity = label.partition(":")
    return settle_actions(ticket, disposition, severity or "sev2")  # type: ignore[arg-type]


@dataclass(kw_only=True)
class FieldsOnlyPolicy(PlanPolicy):
    """Plays `fit_rules()` on the focused ticket; never reads title words, description or logs."""

    name: str = "fields_only"
    rules: Rules = field(default_factory=fit_rules)

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        return fields_plan(ticket, self.rules.predict(ticket))
