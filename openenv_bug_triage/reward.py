"""Dense reward shaping: one weighted list of named components, each counted by a pure function of the step.

A step's reward is `sum(weight * count)` over `COMPONENTS`, clamped to [-1, 1]; `RewardModel`
reports each component that fired, under its name and in the list's order. A component counts
either what the action's own rules named (`count` left None: the action counted it, in `Taken.terms`
when it needs no truth, else in `BaseAction.terms`, which the environment calls with the truth after
the change; see the modules under `actions/`), or something about the step as a whole (a
function of `StepFacts`). `reward_table()` prints the README's table from the same list.

Nothing here can be farmed: labels earn only on the first `classify` / `assign` of a
bug to fix (never on tickets the handbook settles otherwise), each settlement happens once
(settled tickets are final), and every repeat is a no-op that costs a little.

Nothing here is a side channel: the truth enters a reward only through whether the action
was right (and, for a wrong settlement, whether it lost a real bug). Charges for relabelling,
no-ops and switching are the same whatever the ticket turns out to be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .models import Ticket, TicketProgress, Truth
from .rules import is_critical, outcome_correct, settled_on_time

Components = dict[str, float]


@dataclass(frozen=True)
class StepFacts:
    """Everything a reward component may look at: what the action counted and the episode around it."""

    terms: Mapping[str, int] = field(default_factory=dict)
    """The reward components the action's own rules counted (`Taken.terms` and `BaseAction.terms`)."""
    invalid: bool = False
    no_op: bool = False
    tickets: Iterable[Ticket] = ()
    before: Mapping[str, TicketProgress] = field(default_factory=dict)
    """Every ticket's progress before the step."""
    after: Mapping[str, TicketProgress] = field(default_factory=dict)
    step: int = 0
    truth: Mapping[str, Truth] = field(default_factory=dict)
    done: bool = False
    truncated: bool = False
    """The step spent the budget with tickets unsettled."""


@dataclass(frozen=True)
class Component:
    """One named reward component: its weight per count, when it counts, and how."""

    name: str
    weight: float
    when: str
    """When it fires, in a few words (the README's table)."""
    count: Callable[[StepFacts], int] | None = None
    """How many times it fires this step; None: as often as the action's terms (`StepFacts.terms`) say."""
    at_end: bool = False
    """It can only fire on the step that ends the episode (its `count` is not even asked on the others)."""

    def times(self, facts: StepFacts) -> int:
        """How many times this component fires in the step `facts` describe."""
        return facts.terms.get(self.name, 0) if self.count is None else self.count(facts)


# --------------------------------------------------------------------------- step-wide counts (the handbook's predicates are in `rules`)


def sla_breaches(facts: StepFacts) -> int:
    """Breaches charged at this step (each late ticket once).

    A ticket is charged at the step its deadline passes unless it is settled on time by then,
    and at any later step that makes an on-time ticket late (a settled ticket changed after its
    deadline: its final state was not reached in time).
    """
    breached = 0
    step = facts.step
    for t in facts.tickets:
        deadline = t.sla_deadline_step
        if deadline is None or deadline > step - 1:
            continue
        late = not settled_on_time(t, facts.after[t.ticket_id])
        breached += late and (deadline == step - 1 or settled_on_time(t, facts.before[t.ticket_id]))
    return breached


def missed_escalations(facts: StepFacts) -> int:
    """At the end: incidents never escalated."""
    if not facts.done:
        return 0
    return sum(1 for tid, t in facts.truth.items() if t.should_escalate and not facts.after[tid].escalated)


def _critical(facts: StepFacts) -> list[str]:
    return [tid for tid, t in facts.truth.items() if is_critical(t)]


def critical_all_right(facts: StepFacts) -> int:
    """At the end: 1 when every sev0/sev1 bug ended exactly right."""
    return int(facts.done and all(outcome_correct(facts.truth[tid], facts.after[tid]) for tid in _critical(facts)))


def critical_left(facts: StepFacts) -> int:
    """At the end of a spent budget: 1 when a sev0/sev1 bug is unsettled."""
    return int(facts.truncated and any(not facts.after[tid].settled for tid in _critical(facts)))


# --------------------------------------------------------------------------- the weighted list

COMPONENTS: tuple[Component, ...] = (
    Component("correct_severity", 0.20, "the **first** `classify` of a bug to fix gets the severity right"),
    Component("correct_priority", 0.15, "the **first** `classify` of a bug to fix gets the priority right"),
    Component("correct_component", 0.15, "the **first** `classify` of a bug to fix gets the component right"),
    Component("correct_team", 0.10, "the first `assign` of a bug to fix names the owning team"),
    Component("correct_duplicate", 0.15, "linked to the right original"),
    Component("correct_request_info", 0.10, "the ticket needed information"),
    Component("correct_escalation", 0.15, "the ticket is a sev0/sev1 production incident"),
    Component("correct_outcome", 0.10, "closed with the right reason, or deferred, as the handbook says"),
    Component("destructive_action", -0.20, "a real bug closed, deferred or marked duplicate"),
    Component("wrong_outcome", -0.05, "another ticket closed, deferred or linked wrongly"),
    Component("unneeded_request_info", -0.05, "information requested on a ticket that had enough"),
    Component("false_escalation", -0.10, "escalating anything but a sev0/sev1 production incident"),
    Component("relabel", -0.05, "changing a label or team already set, on any ticket"),
    Component("invalid_action", -0.05, "the action failed validation", lambda f: int(f.invalid)),
    Component("no_op", -0.02, "the action changed nothing (a repeat)", lambda f: int(f.no_op)),
    Component("ticket_switch", -0.01, "`next_ticket` away from an unsettled ticket"),
    Component(
        "sla_breach",
        -0.05,
        "each time, at the step a ticket's deadline passes without it settled, or at a later step that changes "
        "a ticket settled on time (its final state came late)",
        sla_breaches,
    ),
    Component(
        "missed_escalation",
        -0.15,
        "each time, at the end, for each incident never escalated",
        missed_escalations,
        at_end=True,
    ),
    Component(
        "critical_done_bonus",
        0.10,
        "at the end, if every sev0/sev1 bug ended exactly right",
        critical_all_right,
        at_end=True,
    ),
    Component(
        "critical_left_penalty",
        -0.10,
        "at the end, if the budget ran out with a sev0/sev1 bug unsettled",
        critical_left,
        at_end=True,
    ),
)
"""Every reward component, in the order a step's breakdown lists them."""
WEIGHTS: dict[str, float] = {c.name: c.weight for c in COMPONENTS}
_ORDER = {c.name: i for i, c in enumerate(COMPONENTS)}
_BY_ACTION = frozenset(c.name for c in COMPONENTS if c.count is None)
_EVERY_STEP = tuple(c for c in COMPONENTS if c.count is not None and not c.at_end)
_AT_END = tuple(c for c in COMPONENTS if c.at_end)


def evaluate(facts: StepFacts) -> Components:
    """The components that fire in this step, each `weight * count`, in `COMPONENTS` order.

    Only the components that can fire are asked (those the action's terms name, the step-wide ones, and on
    the last step the end-of-episode ones); the result is what asking every component would give."""
    counts = {name: n for name, n in facts.terms.items() if n and name in _BY_ACTION}
    for component in _EVERY_STEP + _AT_END if facts.done else _EVERY_STEP:
        if n := component.times(facts):
            counts[component.name] = n
    names = sorted(counts, key=_ORDER.__getitem__) if len(counts) > 1 else counts
    return {name: round(WEIGHTS[name] * counts[name], 10) for name in names}


def combine(*parts: Components) -> tuple[float, Components]:
    """Sum named components and clamp the step reward to [-1, 1]."""
    merged: Components = {}
    for part in parts:
        for name, value in part.items():
            merged[name] = round(merged.get(name, 0.0) + value, 10)
    total = max(-1.0, min(1.0, round(sum(merged.values()), 10)))
    return total, merged


def score(facts: StepFacts) -> tuple[float, Components]:
    """The step's clamped reward and its components."""
    return combine(evaluate(facts))


def reward_table() -> str:
    """The README's table of components, printed from `COMPONENTS`."""
    rows = ["| component | value | when |", "|---|---|---|"]
    for c in COMPONENTS:
        value = f"{c.weight:+.2f}".replace("-", "−")
        each = " each" if c.when.startswith("each time") else ""
        when = c.when.removeprefix("each time, ")
        rows.append(f"| `{c.name}` | {value}{each} | {when} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(reward_table())
