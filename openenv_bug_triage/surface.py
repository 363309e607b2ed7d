"""Does a ticket's surface give its labels away? A decision tree on structured fields measures it.

The tree sees only structured fields, never the text. It is trained on tickets of one split
and scored on another, once with the fields the handbook makes causal (environment, tier,
reporter type, repro and log presence, component candidates, and whether a tester's retest or the
reporter's follow-up is in the comments, which carry that evidence) and once with the non-causal
ones added (attachments, version present, title case and style, description length, hour, ticket id,
what the reporter's voice leaves on the surface: a greeting, a sign-off, a note on what is attached,
typing noise; and whether support commented). If the second scores clearly higher, a surface
feature carries a label.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .generator.noise import load_noise
from .models import ObservationModel, Ticket, Truth
from .policies import PlanPolicy, settle_actions

Row = tuple[object, ...]

CAUSAL_FIELDS: tuple[str, ...] = (
    "environment",
    "tier",
    "reporter",
    "repro",
    "logs",
    "first_candidate",
    "candidate_count",
    "retested",
    "followed_up",
)
NON_CAUSAL_FIELDS: tuple[str, ...] = (
    "attachments",
    "version_present",
    "title_case",
    "length_bucket",
    "hour_bucket",
    "id_digit",
    "title_bang",
    "title_words",
    "title_style",
    "greeting",
    "signed",
    "attachment_mention",
    "noise_marks",
    "support_comment",
)
TARGETS: tuple[str, ...] = ("disposition", "severity", "component")


_GREETING = re.compile(r"^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening|day)|morning|greetings|hiya)\b", re.I)
_ATTACHED = re.compile(r"\battach|\bscreenshot|\brecording|\bvideo\b|\bHAR\b", re.I)
_NOISE = re.compile(r"(?<![\w'])i(?![\w])|```|\[e\.g\.|\*\*")


_WORDS = frozenset({"than", "where", "triad", "wan", "u", "tho", "bc"})
"""Slips of the noise table that are words or abbreviations of their own, found in clean text too."""


@cache
def _typos() -> re.Pattern[str]:
    """Any typo of the noise pass's table that is not itself a word ("teh", "becuase"; not "there" or "than")."""
    table = load_noise().typos
    words = {slip for slips in table.values() for slip in slips} - set(table) - _WORDS
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + r")\b")


def _title_style(title: str) -> str:
    if re.match(r"(?:re|fwd):", title, re.I):
        return "reply"
    if title.startswith("[") or re.match(r"^[\w ]{2,20}: ", title):
        return "prefix"
    if re.search(r"\(\d[\d.]*\)$", title):
        return "build"
    return "plain"


def features(t: Ticket) -> dict[str, object]:
    """Every structured field the tree may use, as categorical values."""
    title = t.title
    if title == title.lower():
        case = "lower"
    elif title[:1].isupper() and title[1:] == title[1:].lower():
        case = "sentence"
    else:
        case = "mixed"
    return {
        "environment": t.environment,
        "tier": t.customer_tier,
        "reporter": t.reporter_type,
        "repro": t.repro_steps_present,
        "logs": t.logs_present,
        "first_candidate": t.component_candidates[0],
        "candidate_count": len(t.component_candidates),
        "attachments": t.attachments_count,
        "version_present": t.version is not None,
        "title_case": case,
        "length_bucket": min(len(t.description) // 250, 6),
        "hour_bucket": t.created_at.hour // 4,
        "id_digit": t.ticket_id[-1],
        "title_bang": "!" in title,
        "title_words": min(len(title.split()) // 2, 6),
        "title_style": _title_style(title),
        "greeting": bool(_GREETING.match(t.description)),
        "signed": len(t.description.rsplit("\n\n", 1)[-1].split()) <= 8,
        "attachment_mention": bool(_ATTACHED.search(t.description)),
        "noise_marks": bool(_NOISE.search(t.description) or _typos().search(t.description)),
        "retested": any(c.role == "qa" for c in t.comments),
        "followed_up": any(c.role == "reporter" for c in t.comments),
        "support_comment": any(c.role == "support" for c in t.comments),
    }


def target(truth: Truth, name: str) -> str:
    """The label a tree predicts: disposition, severity (of bugs to fix) or component."""
    if name == "disposition":
        return truth.disposition
    if name == "severity":
        return truth.true_severity
    return truth.true_component


def _gini(counts: Counter[str]) -> float:
    n = sum(counts.values())
    return 1.0 - sum((c / n) ** 2 for c in counts.values()) if n else 0.0


@dataclass
class Node:
    """A fitted tree: a leaf's label, or a test `row[feature] == value` with two children."""

    label: str
    feature: int | None = None
    value: object = None
    yes: Node | None = None
    no: Node | None = None

    def predict(self, row: Row) -> str:
        node = self
        while node.feature is not None:
            # `fit` gives every node that tests a feature both children
            node = node.yes if row[node.feature] == node.value else node.no  # type: ignore[assignment]
        return node.label


def fit(rows: Sequence[Row], labels: Sequence[str], max_depth: int = 8, min_leaf: int = 10) -> Node:
    """A CART tree with Gini splits of the form `feature == value`."""
    total = Counter(labels)
    node = Node(label=min(total, key=lambda k: (-total[k], k)))
    n = len(labels)
    if max_depth == 0 or len(total) == 1 or n < 2 * min_leaf:
        return node
    best: tuple[float, int, object] | None = None
    parent = n * _gini(total)
    for f in range(len(rows[0])):
        by_value: dict[object, Counter[str]] = {}
        for row, label in zip(rows, labels, strict=True):
            by_value.setdefault(row[f], Counter())[label] += 1
        for value, left in sorted(by_value.items(), key=lambda kv: repr(kv[0])):
            nl = sum(left.values())
            if nl < min_leaf or n - nl < min_leaf:
                continue
            score = nl * _gini(left) + (n - nl) * _gini(total - left)
            if score < parent - 1e-9 and (best is None or score < best[0]):
                best = (score, f, value)
    if best is None:
        return node
    _, f, value = best
    yes = [i for i, row in enumerate(rows) if row[f] == value]
    no = [i for i, row in enumerate(rows) if row[f] != value]
    node.feature, node.value = f, value
    node.yes = fit([rows[i] for i in yes], [labels[i] for i in yes], max_depth - 1, min_leaf)
    node.no = fit([rows[i] for i in no], [labels[i] for i in no], max_depth - 1, min_leaf)
    return node


def accuracy(tree: Node, rows: Sequence[Row], labels: Sequence[str]) -> float:
    """Share of `rows` the tree labels right."""
    return sum(tree.predict(r) == y for r, y in zip(rows, labels, strict=True)) / len(labels)


@dataclass(frozen=True)
class SurfaceReport:
    """Held-out accuracy with causal fields only and with every field, per target."""

    target: str
    causal: float
    all_fields: float

    @property
    def gain(self) -> float:
        return self.all_fields - self.causal


def surface_report(
    train: Iterable[tuple[Ticket, Truth]], test: Iterable[tuple[Ticket, Truth]], name: str, min_leaf: int = 25
) -> SurfaceReport:
    """Fit on `train`, score on `test`, for one target (severity only over bugs to fix).

    `min_leaf` keeps the tree from splitting on a handful of tickets, which on random fields
    (ids, hours) only fits noise.
    """

    def table(pairs: Iterable[tuple[Ticket, Truth]], fields: tuple[str, ...]) -> tuple[list[Row], list[str]]:
        rows, labels = [], []
        for ticket, truth in pairs:
            if name == "severity" and truth.disposition != "fix":
                continue
            f = features(ticket)
            rows.append(tuple(f[k] for k in fields))
            labels.append(target(truth, name))
        return rows, labels

    train, test = list(train), list(test)
    scores = []
    for fields in (CAUSAL_FIELDS, CAUSAL_FIELDS + NON_CAUSAL_FIELDS):
        rows, labels = table(train, fields)
        test_rows, test_labels = table(test, fields)
        scores.append(accuracy(fit(rows, labels, min_leaf=min_leaf), test_rows, test_labels))
    return SurfaceReport(name, scores[0], scores[1])


@dataclass(kw_only=True)
class StructuredFieldPolicy(PlanPolicy):
    """A policy that never reads text: decision trees on causal structured fields pick each move.

    Fitted on one split's tickets and truth (`fit_structured_policy`), it measures how far a
    policy gets from the fields alone; the tests check that it stays below the text heuristic.
    """

    disposition: Node
    severity: Node
    name: str = "structured_fields"

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        row = _row(ticket, CAUSAL_FIELDS)
        # the severity tree predicts one of the Severity labels it was fitted on; Node.label is a plain str
        return settle_actions(ticket, self.disposition.predict(row), self.severity.predict(row))  # type: ignore[arg-type]


def _row(t: Ticket, fields: tuple[str, ...]) -> Row:
    f = features(t)
    return tuple(f[k] for k in fields)


def fit_structured_policy(pairs: Iterable[tuple[Ticket, Truth]]) -> StructuredFieldPolicy:
    """Fit the field-only policy's trees on (ticket, truth) pairs, e.g. every ticket of many train instances."""
    pairs = list(pairs)
    fixes = [(t, tr) for t, tr in pairs if tr.disposition == "fix"]
    disposition = fit([_row(t, CAUSAL_FIELDS) for t, _ in pairs], [tr.disposition for _, tr in pairs])
    severity = fit([_row(t, CAUSAL_FIELDS) for t, _ in fixes], [tr.true_severity for _, tr in fixes])
    return StructuredFieldPolicy(disposition=disposition, severity=severity)
