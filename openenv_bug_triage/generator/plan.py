"""The plan of one instance: which scenarios, roles, environments, scopes, tiers, times and ids."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from .. import rules
from ..catalogue import (
    BILLING,
    PAID_FEATURES,
    Catalogue,
    Defect,
    Partition,
    Phrases,
    Story,
    from_outside,
    load_catalogue,
    load_phrases,
    paying_only,
)
from ..models import Disposition, Environment, Tier
from ..world import World, load_world
from . import compose, kinds, notes
from .facts import (
    INSTALLED,
    PLATFORM_OF,
    Kind,
    Scope,
    alert_scopes,
    alert_span,
    scope_options,
    unsupported_report,
)
from .levels import Level
from .personas import SEATS, defect_seats
from .voice import browsers_named


@dataclass(eq=False)
class Slot:
    """One ticket while the instance is being drawn (mutable until rendered)."""

    kind: Kind
    scenario: Defect | Story
    role: str = "fix"
    """fix, duplicate, near, wont_fix, cannot_reproduce, resolved, fixed_release, invalid, defer, needs_info."""
    original: Slot | None = None
    monitoring: bool = False
    environment: Environment = "production"
    scope: Scope | None = None
    title_variant: int = 0
    symptom_variant: int = 0
    tier: Tier = "free"
    minute: int = 0
    ticket_id: str = ""
    scope_values: dict[str, object] | None = None
    """Who, rate, time and counts its scope sentence states; a duplicate reuses its original's."""
    exposure_trap: str | None = None
    """How an exposure of customer data is told as a trap: `environment` or `retest` (see `kinds`)."""
    clean_retest: bool = False
    """A retest on the current release passed, though the truth stays a bug to fix (an exposure)."""
    case: str | None = None
    """A hard case of a bug to fix (`kinds.CASES`), or None."""
    blamed: str | None = None
    """The component a `wrong_cause` reporter blames."""
    second: Defect | None = None
    """The second, less severe problem of a `two_problems` report."""
    retold: bool = False
    """A duplicate re-told by its own reporter: own steps, numbers and build."""
    release_note: str | None = None
    """How a customer's report is told against the release notes (`notes.NOTE_KINDS`), or None."""
    noted: Defect | None = None
    """The look-alike defect a `similar` release note fixes."""
    steps_style: str | None = None
    """How its report gave its steps (`retell.STYLES`), once rendered; None: no steps."""
    said: frozenset[str] = frozenset()
    """The long sentences its report holds, once rendered: what a duplicate must say its own way."""
    subject: str = ""
    title: str = ""
    """The ticket's title as filed (its subject dressed), which a duplicate's title must not read as."""
    """Its title before the reporter dressed it, once rendered."""
    writer: str | None = None
    """The first name of the customer who wrote it, once rendered: none of its duplicates is theirs."""
    onset: datetime | None = None
    """When the failure began, shortly before its first report (set on a group's first report, once rendered)."""
    first_fault: datetime | None = None
    """When the first failing line of every log of the failure falls, a little before `onset` (set on a group's
    first report, once rendered): the reports and the alert of one failure show it starting at one instant."""
    shift: int | None = None
    """By how many days its scenario's dates move (set on a group's first report, once rendered): one
    world for every report of the defect, its dates on or before the onset."""


QUEUE_MINUTES = 3 * 24 * 60
"""Tickets are filed over this many minutes from the queue's start."""
RETOLD_GAP = 24 * 60
"""A re-told duplicate is filed at least this many minutes after its original."""
ALERT_LAG = 20
"""An alert that duplicates a user's report is filed at most this many minutes after its metric's span (`alert_span`)
has passed since the report: the customer wrote in minutes after the failure began, the alert fired once it had
lasted the span, and was filed a minute or two later."""
INCIDENT_SPAN = 12 * 60
"""Every report of an outage (a failure of the whole service that hits everyone, `is_outage`) is filed within this
many minutes of its first: nobody is locked out of saving for days, so nobody re-tells it days later either."""
RETEST_GAP = 4 * 60
"""Fewest minutes between a report and the retest or upgrade comment that settles it: nobody retests on
another build five minutes after filing, so such a report is not filed in the queue's last hours."""


@lru_cache(maxsize=4096)
def _tokens(text: str) -> frozenset[str]:
    """The longer words of a catalogue wording (read once per process)."""
    return frozenset(re.findall(r"[a-z]{4,}", text.lower()))


def _overlap(a: str, b: str) -> float:
    ta, tb = _tokens(a), _tokens(b)
    return len(ta & tb) / len(ta | tb) if ta | tb else 1.0


class Planner:
    """Draws one instance from one RNG; every random choice goes through `self.rng`."""

    def __init__(self, level: Level, partition: Partition, rng: random.Random) -> None:
        self.level = level
        self.partition = partition
        self.rng = rng
        self.world = load_world()
        self.phrases: Phrases = load_phrases()
        cat: Catalogue = load_catalogue()
        self.defects = [d for d in cat.defects if d.partition == partition]
        self.features = [s for s in cat.features if s.partition == partition]
        self.invalid = [s for s in cat.invalid if s.partition == partition]
        self.vague = [s for s in cat.vague if s.partition == partition]
        self.unused: list[Defect] = []
        """The partition's defects no ticket of the planned queue reports (set by `plan`)."""

    # ---------------------------------------------------------------- plan

    def plan(self) -> list[Slot]:
        lv, r = self.level, self.rng
        defects = list(self.defects)
        r.shuffle(defects)
        slots: list[Slot] = []

        def take(pred: Callable[[Defect], bool]) -> Defect:
            for i, d in enumerate(defects):
                if pred(d):
                    return defects.pop(i)
            raise ValueError(f"generator catalogue: not enough {self.partition} defects for {lv.task_id}")

        # scarcest first: near-duplicate pairs (families), won't-fix platforms, alert pairs, then the rest
        for _ in range(lv.near_duplicates):  # two defects that look alike but are not the same
            pair = next(
                (
                    (a, b)
                    for a in defects
                    if a.family is not None  # most defects have no family: no second loop for them
                    for b in defects
                    if a.family == b.family and a.component != b.component
                ),
                None,
            )
            if pair is None:
                raise ValueError(f"generator catalogue: not enough {self.partition} defect families for {lv.task_id}")
            defects[:] = [d for d in defects if d is not pair[0] and d is not pair[1]]
            slots.append(Slot("defect", pair[0]))
            slots.append(Slot("defect", pair[1], role="near"))
        reasons = [r.choice(["invalid", "won't_fix", "cannot_reproduce", "resolved"]) for _ in range(lv.outcomes.close)]
        closes = [  # a report from an unsupported browser is best of a defect whose wordings name no other browser
            Slot("defect", self._take_first(take, [_unsupported_unnamed, unsupported_report]), role="wont_fix")
            for reason in reasons
            if reason == "won't_fix"
        ]
        originals: list[Slot] = []
        for _ in range(lv.alert_pairs):
            d = take(lambda d: d.alert is not None and d.impact in ("core", "critical"))
            slots.append(Slot("defect", d))
            originals.append(slots[-1])
        exposure = kinds.draw_exposure(self, defects, lv.fix_count - len(slots))
        if exposure is not None:  # a leak of customer data, told as a trap
            slots.append(Slot("defect", exposure[0], exposure_trap=exposure[1]))
        parts: set[str] = set()  # a queue never holds two composed defects of one surface (see `compose.draw`)
        n_surfaces = len(compose.load_parts(self.partition).surfaces)
        while len(slots) < lv.fix_count:
            used = sum(part.startswith("surface:") for part in parts)
            if lv.rates.composed and r.random() < lv.rates.composed and used < n_surfaces:
                slots.append(Slot("defect", compose.draw(self.partition, r, parts)))
            else:
                slots.append(Slot("defect", take(lambda d: True)))
        fixes = list(slots)
        invalid = r.sample(self.invalid, reasons.count("invalid"))
        for reason in reasons:
            if reason == "invalid":
                closes.append(Slot("invalid", invalid.pop(), role="invalid"))
            elif reason == "resolved":  # gone after upgrading: only an installed app lags behind a fix
                try:
                    closes.append(Slot("defect", take(_upgradable), role=reason))
                except ValueError:  # no app defect left: a clean retest closes it instead
                    closes.append(Slot("defect", take(_retest_settles), role="cannot_reproduce"))
            elif reason != "won't_fix":  # a clean retest settles neither an exposure nor data already lost
                closes.append(Slot("defect", take(_retest_settles), role=reason))
        slots.extend(closes)
        for story in r.sample(self.features, lv.outcomes.defer):
            slots.append(Slot("feature", story, role="defer"))
        for story in r.sample(self.vague, lv.outcomes.needs_info):
            slots.append(Slot("vague", story, role="needs_info"))

        # environment and scope of every defect-based ticket
        for s in slots:
            if s.kind == "defect":
                self._draw_environment_and_scope(s)
        for orig in originals:
            orig.environment = "production"
            # originals hold the alert defects `take` returned above; a Slot's scenario is typed Defect | Story
            orig.scope = self._alert_scope(orig.scenario)  # type: ignore[arg-type]

        # duplicates: alert pairs first, then duplicates of random bugs to fix
        dups: list[Slot] = []
        for orig in originals:
            dup = self._duplicate_of(orig)
            if r.random() < 0.5:
                orig.monitoring = True
            else:
                dup.monitoring = True
            dups.append(dup)
        while len(dups) < lv.outcomes.duplicate:
            dups.append(self._duplicate_of(r.choice(fixes)))
        slots.extend(dups)
        alerted = {id(d.original) for d in dups if d.monitoring}  # one alert per failure: its duplicate's
        for s in slots:
            if (
                not s.monitoring
                and s.kind == "defect"
                and s.role in ("fix", "near")
                and s.original is None
                and id(s) not in alerted
            ):
                scenario = s.scenario
                if (
                    isinstance(scenario, Defect)
                    and scenario.alert is not None
                    and s.environment == "production"
                    and r.random() < lv.rates.monitoring
                ):
                    s.monitoring = True
                    if s.scope not in alert_scopes(scenario):
                        s.scope = self._alert_scope(scenario)
        kinds.place_exposure_traps(self, slots)
        kinds.assign_cases(self, slots, defects)
        notes.assign_release_notes(self, slots, defects)
        told = {d.feature.lower() for s in slots for d in (s.scenario, s.second) if isinstance(d, Defect)}
        self.unused = [d for d in defects if d.feature.lower() not in told]  # a note must not read as fixing a ticket
        for s in slots:  # a duplicate reports what its original does (an alert may have re-scoped it)
            if s.original is not None:
                s.scope, s.environment = s.original.scope, s.original.environment
        self._variants(slots)
        self._tiers_times_ids(slots)
        return slots

    def _take_first(
        self, take: Callable[[Callable[[Defect], bool]], Defect], preds: list[Callable[[Defect], bool]]
    ) -> Defect:
        """The first remaining defect that the first satisfiable predicate of `preds` accepts."""
        for pred in preds[:-1]:
            try:
                return take(pred)
            except ValueError:
                continue
        return take(preds[-1])

    def _alert_scope(self, d: Defect) -> Scope:
        """One of the scopes an alert on `d` may state (`alert_scopes`)."""
        return self.rng.choice(alert_scopes(d))

    def _draw_environment_and_scope(self, s: Slot) -> None:
        r, d = self.rng, s.scenario
        assert isinstance(d, Defect)
        # a billing fault is told by the people it charged: a test build takes no real card (no "bank shows the debit")
        # nor is a past incident (a failover's lost writes) met on one: it happened once, in production
        if (
            s.role in ("fix", "near")
            and r.random() < self.level.rates.non_production
            and d.component not in BILLING
            and not d.past
        ):
            s.environment = r.choice(["staging", "development"])
        if s.environment != "production" or s.role not in ("fix", "near"):
            return
        options = scope_options(d)
        s.scope = r.choice(options) if options and (d.impact != "cosmetic" or r.random() < 0.5) else None

    def _duplicate_of(self, orig: Slot) -> Slot:
        dup = Slot("defect", orig.scenario, role="duplicate", original=orig)
        dup.environment, dup.scope = orig.environment, orig.scope
        return dup

    def _variants(self, slots: list[Slot]) -> None:
        """Wordings: every ticket any variant; a duplicate another than its original's and, where the
        defect has enough, than those of the group's earlier duplicates (two reporters never write alike)."""
        r = self.rng
        for s in slots:
            if s.original is None and isinstance(s.scenario, Defect):
                s.title_variant = r.randrange(len(s.scenario.titles))
                s.symptom_variant = r.randrange(len(s.scenario.symptoms))
        taken: dict[int, tuple[set[int], set[int]]] = {}  # per original: the titles and symptoms its group uses
        for s in slots:
            if s.original is None or not isinstance(s.scenario, Defect):
                continue
            d, o = s.scenario, s.original
            used_titles, used_symptoms = taken.setdefault(id(o), ({o.title_variant}, {o.symptom_variant}))
            titles = [i for i in range(len(d.titles)) if i not in used_titles]
            titles = titles or [i for i in range(len(d.titles)) if i != o.title_variant]
            symptoms = [i for i in range(len(d.symptoms)) if i not in used_symptoms]
            symptoms = symptoms or [i for i in range(len(d.symptoms)) if i != o.symptom_variant]
            if r.random() < self.level.dissimilar_duplicate_rate:
                s.title_variant = min(titles, key=lambda i: _overlap(d.titles[i], d.titles[o.title_variant]))
                s.symptom_variant = min(symptoms, key=lambda i: _overlap(d.symptoms[i], d.symptoms[o.symptom_variant]))
            else:
                s.title_variant, s.symptom_variant = r.choice(titles), r.choice(symptoms)
            used_titles.add(s.title_variant)
            used_symptoms.add(s.symptom_variant)

    def _tiers_times_ids(self, slots: list[Slot]) -> None:
        """Tiers shuffled over tickets, times over three days (originals before duplicates), ids by time."""
        r = self.rng
        tiers: list[Tier] = [t for t, n in sorted(self.level.tiers.items()) for _ in range(n)]
        r.shuffle(tiers)
        minutes = sorted(r.sample(range(QUEUE_MINUTES), len(slots)))
        order = list(range(len(slots)))
        r.shuffle(order)
        for s, tier, pos in zip(slots, tiers, order, strict=True):
            s.tier, s.minute = tier, minutes[pos]
        _paying(slots)
        for s in slots:  # an original is always reported before its duplicates
            if s.original is not None and s.minute < s.original.minute:
                s.minute, s.original.minute = s.original.minute, s.minute
        groups: dict[int, list[Slot]] = {}
        for s in slots:
            root = s.original or s
            groups.setdefault(id(root), []).append(s)
        for members in groups.values():
            times = sorted(m.minute for m in members)
            root = next(m for m in members if m.original is None)
            rest = [m for m in members if m is not root]
            r.shuffle(rest)
            root.minute = times[0]
            for m, t in zip(rest, times[1:], strict=True):
                m.minute = t
        for s in slots:  # an outage's reports come within its span: it is fixed in hours, and told the once
            o = s.original
            if o is not None and is_outage(o):
                s.retold = False
                if s.minute > o.minute + INCIDENT_SPAN:
                    s.minute = o.minute + r.randrange(10, INCIDENT_SPAN)
        for s in slots:  # a re-told duplicate comes from another reporter, at least a day after the original
            o = s.original
            if not s.retold or o is None or s.minute >= o.minute + RETOLD_GAP:
                continue
            if o.minute + RETOLD_GAP < QUEUE_MINUTES:
                s.minute = r.randrange(o.minute + RETOLD_GAP, min(QUEUE_MINUTES, o.minute + 2 * RETOLD_GAP))
            elif s.minute >= RETOLD_GAP:  # the original moves earlier, still before all its duplicates
                o.minute = r.randrange(max(0, s.minute - 2 * RETOLD_GAP), s.minute - RETOLD_GAP + 1)
            else:
                s.retold = False
        for s in slots:  # an alert on a failure already reported fires once its span has passed, soon after the report
            o = s.original  # (an alert is never re-told: see kinds.assign_cases)
            if s.monitoring and not s.retold and o is not None and isinstance(s.scenario, Defect):
                span = alert_span(s.scenario)
                if not o.minute + span + 3 <= s.minute <= o.minute + span + ALERT_LAG:
                    s.minute = min(QUEUE_MINUTES - 1, o.minute + span + r.randrange(3, 9))
        _room_to_retest(slots)
        deadline = rules.sla_deadlines(self.level.sla_policy)
        for _ in range(100):  # reshuffle tiers until correct triage in SLA order meets every deadline
            if _sla_feasible(slots, deadline, self.world):
                break
            tiers = [s.tier for s in slots]
            r.shuffle(tiers)
            for s, tier in zip(slots, tiers, strict=True):
                s.tier = tier
            _paying(slots)
        number = r.randrange(1000, 60000)
        for s in sorted(slots, key=lambda s: s.minute):
            number += r.randrange(1, 30)
            s.ticket_id = f"LRK-{number}"


TRACKER_OPENED = datetime(2025, 1, 1, tzinfo=UTC)
IDS_PER_DAY = 250
"""The tracker's numbering: about this many tickets a day since it opened, so a later queue has higher ids."""


def number_by_date(slots: list[Slot], base: datetime) -> None:
    """Move the queue's ticket numbers (their order and gaps kept) to where the tracker's count stood at `base`,
    so one product's queues agree: a queue of October has higher numbers than one of April."""
    numbers = [int(s.ticket_id.removeprefix("LRK-")) for s in slots]
    shift = 1000 + (base - TRACKER_OPENED).days * IDS_PER_DAY + min(numbers) % IDS_PER_DAY - min(numbers)
    for s, n in zip(slots, numbers, strict=True):
        s.ticket_id = f"LRK-{n + shift}"


def is_outage(s: Slot) -> bool:
    """The ticket reports an outage: a failure of the whole service (`global`, not a past incident) that hits
    everyone in production."""
    d = s.scenario
    return (
        isinstance(d, Defect) and d.global_ and not d.past and s.scope == "everyone" and s.environment == "production"
    )


def _room_to_retest(slots: list[Slot]) -> None:
    """Swap each report settled by a later retest or upgrade comment that was filed in the queue's last
    `RETEST_GAP` minutes with an earlier report that needs no such comment, where both stand alone (no
    duplicate of either, so every original stays before its duplicates)."""
    late = QUEUE_MINUTES - RETEST_GAP
    grouped = {id(s) for s in slots if s.original is not None} | {id(s.original) for s in slots if s.original}

    def settled_later(s: Slot) -> bool:
        return s.role in ("cannot_reproduce", "resolved") or s.clean_retest

    for s in sorted(slots, key=lambda s: s.minute):
        if s.minute < late or not settled_later(s) or id(s) in grouped:
            continue
        spare = [o for o in slots if o.minute < late and not settled_later(o) and id(o) not in grouped]
        if spare:
            other = max(spare, key=lambda o: o.minute)  # the latest one: the queue's order moves least
            s.minute, other.minute = other.minute, s.minute


def _needed_seats(s: Slot) -> int:
    """The seats a customer needs to have seen the defect of `s` (a workspace size it names)."""
    d = s.scenario
    return defect_seats(d) if isinstance(d, Defect) else 0


def _paid(s: Slot) -> bool:
    """True when only a paying customer could write the report of `s`: its defect or story, its second
    problem, or the feature its reporter blames is one only paying plans have."""
    return paying_only(s.scenario) or (s.second is not None and paying_only(s.second)) or s.blamed in PAID_FEATURES


def _fits_tier(s: Slot, tier: Tier) -> bool:
    """True when a customer on `tier` could write the report of `s`: a paid plan for a paying-only report,
    seats enough for the workspace it names, a plan its defect names (`Defect.tiers`), and the free plan for spam."""
    d = s.scenario
    return (
        not (tier == "free" and _paid(s))
        and (tier == "free" or not from_outside(d))
        and SEATS[tier][1] >= _needed_seats(s)
        and (not isinstance(d, Defect) or tier in d.tiers)
    )


def _paying(slots: list[Slot]) -> None:
    """Give each report a plan whose customer could write it (`_fits_tier`), swapping tiers with the first
    report (in queue order, so the swap is deterministic) that the other's plan fits in turn; with no such
    report, the first plan that fits it."""
    for s in slots:
        if _fits_tier(s, s.tier):
            continue
        other = next((o for o in slots if _fits_tier(s, o.tier) and _fits_tier(o, s.tier)), None)
        if other is not None:
            s.tier, other.tier = other.tier, s.tier
        else:
            s.tier = next((t for t in SEATS if _fits_tier(s, t)), s.tier)


def _retest_settles(d: Defect) -> bool:
    """A defect whose report a clean retest can close: no exposure, no customer data already lost, and no glitch in
    looks that shows the same on every load (a misspelt header does not put itself right on the same build)."""
    steady_glitch = d.impact == "cosmetic" and not d.intermittent
    return not d.exposure and not rules.data_lost(d.impact, d.component, "production") and not steady_glitch


_DESKTOP_OS = re.compile(r"\b(?:macOS|Mac|MacBook|Linux|Ubuntu|ChromeOS|Chromebook)\b")
"""A desktop system other than Windows: no Internet Explorer 11 there."""


def _unsupported_unnamed(d: Defect) -> bool:
    """A defect an unsupported browser's report can be of, whose wordings name no browser and no desktop system
    but Windows (Internet Explorer 11 runs there only)."""
    told = (*d.symptoms, *d.steps, *d.titles)
    return unsupported_report(d) and not any(browsers_named(t) or _DESKTOP_OS.search(t) for t in told)


def _upgradable(d: Defect) -> bool:
    """A defect a customer's upgrade can fix: of an app they install (`INSTALLED`), not an exposure."""
    return not d.exposure and PLATFORM_OF.get(d.component) in INSTALLED


_DISPOSITION_OF_ROLE: dict[str, Disposition] = {
    "fix": "fix",
    "near": "fix",
    "duplicate": "duplicate",
    "wont_fix": "close_wont_fix",
    "cannot_reproduce": "close_cannot_reproduce",
    "resolved": "close_resolved",
    "fixed_release": "close_resolved",
    "invalid": "close_invalid",
    "defer": "defer",
    "needs_info": "needs_info",
}
"""How the handbook settles a ticket planned in each role."""


def _correct_steps(s: Slot, world: World) -> int:
    disposition = _DISPOSITION_OF_ROLE[s.role]
    if disposition != "fix":
        return rules.correct_steps(disposition, escalate=False)
    impact = s.scenario.impact if isinstance(s.scenario, Defect) else None
    exposure = isinstance(s.scenario, Defect) and s.scenario.exposure
    severity = rules.severity_for(impact, s.scope, s.environment, exposure=exposure)
    escalate = rules.should_escalate("fix", severity, s.environment, world, exposure=exposure)
    return rules.correct_steps("fix", escalate)


def _sla_feasible(slots: list[Slot], deadline: dict[Tier, int | None], world: World) -> bool:
    """True when working tickets in SLA order, each correctly, settles every one by its deadline."""
    order = sorted(slots, key=lambda s: (*rules.sla_first(deadline[s.tier]), s.minute))
    settled = rules.settle_schedule(_correct_steps(s, world) for s in order)
    return not any(rules.late(at, deadline[s.tier]) for s, at in zip(order, settled, strict=True))
