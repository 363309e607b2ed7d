"""Seeded generator of triage queues: facts first, truth by the handbook's rules, text last.

For each ticket the generator draws latent facts (scenario, environment, tier, reporter,
scope of impact, evidence present, traps), derives the truth from the facts with
`derive_truth` (the handbook, rule by rule), and only then renders the text from the
scenario's wordings and the phrase pools in `data/generator/`. Fields the handbook does not
make causal (attachments, version, title case, wording style, hour, ticket id) are drawn
independently of the truth. The result goes through the same loader checks as a fixture.

Splits: `train` instances use only `train` scenarios and phrases and `test` instances only
`test` ones (validation ones too, until the `validation` partition is written); each split
seeds its RNG from its own name, so no two splits share an instance.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .catalogue import Catalogue, Defect, Partition, Phrases, Story, load_catalogue, load_phrases
from .errors import InvalidSeedError, InvalidSplitError, UnknownTaskError
from .models import (
    Difficulty,
    Disposition,
    Environment,
    ReporterType,
    Severity,
    SlaPolicy,
    TaskFixture,
    Tier,
    Truth,
)
from .tasks import Task, build_task
from .world import DATA_DIR, World, load_world

Split = Literal["train", "validation", "test"]
SPLITS: tuple[Split, ...] = ("train", "validation", "test")
TRAIN_MAX_SEED = 2**31 - 1
Scope = Literal["everyone", "segment", "degraded", "workaround", "few"]
Kind = Literal["defect", "feature", "invalid", "vague"]
Platform = Literal["web", "ios", "android", "api"]

PLATFORM_OF: dict[str, Platform] = {
    "web-ui": "web",
    "editor": "web",
    "ios-app": "ios",
    "android-app": "android",
    "public-api": "api",
    "api-gateway": "api",
}
"""Components whose reports name a client platform (and so can be on an unsupported one)."""
UNSUPPORTABLE: frozenset[str] = frozenset({"web-ui", "editor", "ios-app", "android-app"})
"""Components whose whole report can be about an unsupported browser or OS (won't-fix tickets)."""


# --------------------------------------------------------------------------- level profiles


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rates(_Model):
    """Per-ticket probabilities of each trap and surface variation (each drawn independently)."""

    non_production: float = Field(ge=0, le=1)
    loud: float = Field(ge=0, le=1)
    quiet: float = Field(ge=0, le=1)
    urgency: float = Field(ge=0, le=1)
    injection: float = Field(ge=0, le=1)
    misfiled: float = Field(ge=0, le=1)
    supported_decoy: float = Field(ge=0, le=1)
    monitoring: float = Field(ge=0, le=1)
    terse_title: float = Field(ge=0, le=1)


class Outcomes(_Model):
    """How many tickets of each kind other than bugs to fix a queue holds."""

    duplicate: int = Field(ge=0)
    needs_info: int = Field(ge=0)
    defer: int = Field(ge=0)
    close: int = Field(ge=0)


class Level(_Model):
    """One generated task: its size, tiers, SLA and budget rules, outcome mix and trap rates."""

    task_id: str
    difficulty: Difficulty
    description: str
    tickets: int = Field(ge=4)
    tiers: dict[Tier, int]
    sla_steps_per_ticket: float = Field(ge=1)
    budget_slack: int = Field(ge=0)
    outcomes: Outcomes
    near_duplicates: int = Field(ge=0)
    alert_pairs: int = Field(ge=0)
    dissimilar_duplicate_rate: float = Field(ge=0, le=1)
    rates: Rates

    @property
    def fix_count(self) -> int:
        """Bugs to fix in every instance (originals of duplicates and near-duplicates included)."""
        o = self.outcomes
        return self.tickets - o.duplicate - o.needs_info - o.defer - o.close

    @property
    def step_budget(self) -> int:
        """Enough for the correct triage of any instance: every ticket once, every bug twice more."""
        return self.tickets + 2 * self.fix_count + self.budget_slack

    @property
    def sla_policy(self) -> SlaPolicy:
        """Deadlines from the tier counts (visible), never from the truth."""
        enterprise = math.ceil(self.sla_steps_per_ticket * self.tiers.get("enterprise", 0)) or 1
        pro = enterprise + math.ceil(self.sla_steps_per_ticket * self.tiers.get("pro", 0))
        return SlaPolicy(enterprise=enterprise, pro=pro)


class Levels(_Model):
    """`data/generator/levels.json`."""

    split_sizes: dict[Literal["validation", "test"], int]
    levels: list[Level]


@cache
def load_levels() -> Levels:
    """The generated tasks' profiles (read once per process)."""
    levels = Levels.model_validate_json((DATA_DIR / "generator" / "levels.json").read_text(encoding="utf-8"))
    for level in levels.levels:
        if sum(level.tiers.values()) != level.tickets:
            raise ValueError(f"levels.json: {level.task_id}: tiers must add up to {level.tickets} tickets")
        if level.fix_count < 1 + level.near_duplicates:
            raise ValueError(f"levels.json: {level.task_id}: too few bugs to fix for the outcome mix")
    return levels


def level_of(task_id: str) -> Level:
    """The profile of a generated task id."""
    for level in load_levels().levels:
        if level.task_id == task_id:
            return level
    ids = [lv.task_id for lv in load_levels().levels]
    raise UnknownTaskError(f"unknown generated task_id '{task_id}'; choose one of {ids}")


def split_size(split: str) -> int | None:
    """Instances per level in `split`: None for the unbounded train split."""
    if split == "train":
        return None
    sizes = load_levels().split_sizes
    if split not in sizes:
        raise InvalidSplitError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
    return sizes[split]


def check_seed(split: str, seed: object) -> int:
    """`seed` if it names an instance of `split`, else a typed error saying the range."""
    size = split_size(split)
    top = TRAIN_MAX_SEED if size is None else size - 1
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        raise InvalidSeedError(f"seed for the {split} split must be an integer from 0 to {top}, got {seed!r}")
    return seed


# --------------------------------------------------------------------------- facts and truth


@dataclass(frozen=True)
class TicketFacts:
    """The latent facts of one generated ticket; the truth is a function of these alone."""

    ticket_id: str
    kind: Kind
    scenario: str
    component: str
    environment: Environment
    tier: Tier
    reporter: ReporterType
    impact: str | None = None
    scope: Scope | None = None
    duplicate_of: str | None = None
    unsupported: bool = False
    retest_clean: bool = False
    fixed_in_current: bool = False
    repro: bool = False
    logs: bool = False
    traps: tuple[str, ...] = ()
    evidence: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """(rule, text) pairs: the rendered sentences each deciding fact shows up in."""


def severity_for(impact: str | None, scope: Scope | None, environment: Environment) -> Severity:
    """Handbook section 3: severity from the impact class, the scope and the environment."""
    if impact == "critical":
        severity: Severity = "sev0"
    elif impact == "core":
        by_scope: dict[str, Severity] = {"everyone": "sev0", "segment": "sev1", "degraded": "sev1"}
        severity = by_scope.get(scope or "", "sev2")
    elif impact == "minor":
        severity = "sev2"
    else:
        severity = "sev3"
    if environment != "production" and severity in ("sev0", "sev1"):
        severity = "sev2"  # staging and development are at most sev2
    return severity


def disposition_for(f: TicketFacts) -> Disposition:
    """Handbook section 5, in its order: duplicate, request info, close, defer, else fix."""
    if f.duplicate_of is not None:
        return "duplicate"
    if f.kind == "vague":
        return "needs_info"
    if f.kind == "invalid":
        return "close_invalid"
    if f.unsupported:
        return "close_wont_fix"
    if f.retest_clean:
        return "close_cannot_reproduce"
    if f.fixed_in_current:
        return "close_resolved"
    if f.kind == "feature":
        return "defer"
    return "fix"


def derive_truth(f: TicketFacts, world: World) -> Truth:
    """The hidden truth of a ticket, from its facts by the handbook's rules."""
    disposition = disposition_for(f)
    severity = severity_for(f.impact, f.scope, f.environment) if f.kind == "defect" else "sev3"
    return Truth(
        true_severity=severity,
        true_priority=world.priority_for(severity, f.tier),
        true_component=f.component,
        true_assignee_team=world.owner[f.component],
        duplicate_of=f.duplicate_of,
        needs_more_info=disposition == "needs_info",
        should_escalate=disposition == "fix" and world.needs_escalation(severity, f.environment),
        disposition=disposition,
    )


def _unsupported_report(d: Defect) -> bool:
    """A defect that can be the whole story of a report from an unsupported browser or OS:
    client-side (not global), in a platform component, and losing no data."""
    return d.component in UNSUPPORTABLE and not d.global_ and d.impact != "critical"


def scope_options(d: Defect) -> list[Scope]:
    """Scopes a production report of `d` may state, chosen so that one severity follows.

    A core failure that can hit everyone is stated as hitting everyone, a group, or more than
    5% of attempts; a narrower core failure hits a group or has a workaround. "Only a few
    users" is never said of a core failure: the handbook judges a defect by everyone in the
    same situation, and a reader cannot tell how many that is.
    """
    segment: list[Scope] = ["segment"] if d.segment else []
    if d.impact == "critical":
        everyone: list[Scope] = ["everyone"] if d.global_ else []
        return segment + everyone or ["segment"]
    if d.impact == "core":
        if d.global_:
            return ["everyone", "degraded", *segment]
        return ["workaround", *segment]
    if d.impact == "minor":
        return ["workaround", "few"]
    return ["few"]


# --------------------------------------------------------------------------- instance plan


@dataclass(eq=False)
class _Slot:
    """One ticket while the instance is being drawn (mutable until rendered)."""

    kind: Kind
    scenario: Defect | Story
    role: str = "fix"
    """fix, duplicate, near, wont_fix, cannot_reproduce, resolved, invalid, defer, needs_info."""
    original: _Slot | None = None
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


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def _overlap(a: str, b: str) -> float:
    ta, tb = _tokens(a), _tokens(b)
    return len(ta & tb) / len(ta | tb) if ta | tb else 1.0


class _Builder:
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

    # ---------------------------------------------------------------- plan

    def plan(self) -> list[_Slot]:
        lv, r = self.level, self.rng
        defects = list(self.defects)
        r.shuffle(defects)
        slots: list[_Slot] = []

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
                    for b in defects
                    if a.family is not None and a.family == b.family and a.component != b.component
                ),
                None,
            )
            if pair is None:
                raise ValueError(f"generator catalogue: not enough {self.partition} defect families for {lv.task_id}")
            defects[:] = [d for d in defects if d is not pair[0] and d is not pair[1]]
            slots.append(_Slot("defect", pair[0]))
            slots.append(_Slot("defect", pair[1], role="near"))
        reasons = [r.choice(["invalid", "won't_fix", "cannot_reproduce", "resolved"]) for _ in range(lv.outcomes.close)]
        closes = [
            _Slot("defect", take(_unsupported_report), role="wont_fix") for reason in reasons if reason == "won't_fix"
        ]
        originals: list[_Slot] = []
        for _ in range(lv.alert_pairs):
            d = take(lambda d: d.alert is not None and d.impact in ("core", "critical"))
            slots.append(_Slot("defect", d))
            originals.append(slots[-1])
        while len(slots) < lv.fix_count:
            slots.append(_Slot("defect", take(lambda d: True)))
        fixes = list(slots)
        invalid = r.sample(self.invalid, reasons.count("invalid"))
        for reason in reasons:
            if reason == "invalid":
                closes.append(_Slot("invalid", invalid.pop(), role="invalid"))
            elif reason != "won't_fix":
                closes.append(_Slot("defect", take(lambda d: True), role=reason))
        slots.extend(closes)
        for story in r.sample(self.features, lv.outcomes.defer):
            slots.append(_Slot("feature", story, role="defer"))
        for story in r.sample(self.vague, lv.outcomes.needs_info):
            slots.append(_Slot("vague", story, role="needs_info"))

        # environment and scope of every defect-based ticket
        for s in slots:
            if s.kind == "defect":
                self._draw_environment_and_scope(s)
        for orig in originals:
            orig.environment = "production"
            # originals hold the alert defects `take` returned above; a _Slot's scenario is typed Defect | Story
            orig.scope = self._alert_scope(orig.scenario)  # type: ignore[arg-type]

        # duplicates: alert pairs first, then duplicates of random bugs to fix
        dups: list[_Slot] = []
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
        for s in slots:
            if not s.monitoring and s.kind == "defect" and s.role in ("fix", "near") and s.original is None:
                scenario = s.scenario
                if (
                    isinstance(scenario, Defect)
                    and scenario.alert is not None
                    and s.environment == "production"
                    and r.random() < lv.rates.monitoring
                ):
                    s.monitoring = True
                    if s.scope not in ("everyone", "segment"):
                        s.scope = self._alert_scope(scenario)
        for s in slots:  # a duplicate reports what its original does (an alert may have re-scoped it)
            if s.original is not None:
                s.scope, s.environment = s.original.scope, s.original.environment
        self._variants(slots)
        self._tiers_times_ids(slots)
        return slots

    def _alert_scope(self, d: Defect) -> Scope:
        """An alert states who is hit; its metric already gives the rate, so never a second rate."""
        options: list[Scope] = ["segment"] if d.segment else []
        if d.global_:
            options.append("everyone")
        return self.rng.choice(options or ["everyone"])

    def _draw_environment_and_scope(self, s: _Slot) -> None:
        r, d = self.rng, s.scenario
        assert isinstance(d, Defect)
        if s.role in ("fix", "near") and r.random() < self.level.rates.non_production:
            s.environment = r.choice(["staging", "development"])
        if s.environment != "production" or s.role not in ("fix", "near"):
            return
        s.scope = r.choice(scope_options(d)) if d.impact != "cosmetic" or r.random() < 0.5 else None

    def _duplicate_of(self, orig: _Slot) -> _Slot:
        dup = _Slot("defect", orig.scenario, role="duplicate", original=orig)
        dup.environment, dup.scope = orig.environment, orig.scope
        return dup

    def _variants(self, slots: list[_Slot]) -> None:
        """Wordings: every ticket any variant; a duplicate another than its original's."""
        r = self.rng
        for s in slots:
            if s.original is None and isinstance(s.scenario, Defect):
                s.title_variant = r.randrange(len(s.scenario.titles))
                s.symptom_variant = r.randrange(len(s.scenario.symptoms))
        for s in slots:
            if s.original is None or not isinstance(s.scenario, Defect):
                continue
            d, o = s.scenario, s.original
            titles = [i for i in range(len(d.titles)) if i != o.title_variant]
            symptoms = [i for i in range(len(d.symptoms)) if i != o.symptom_variant]
            if r.random() < self.level.dissimilar_duplicate_rate:
                s.title_variant = min(titles, key=lambda i: _overlap(d.titles[i], d.titles[o.title_variant]))
                s.symptom_variant = min(symptoms, key=lambda i: _overlap(d.symptoms[i], d.symptoms[o.symptom_variant]))
            else:
                s.title_variant, s.symptom_variant = r.choice(titles), r.choice(symptoms)

    def _tiers_times_ids(self, slots: list[_Slot]) -> None:
        """Tiers shuffled over tickets, times over three days (originals before duplicates), ids by time."""
        r = self.rng
        tiers: list[Tier] = [t for t, n in sorted(self.level.tiers.items()) for _ in range(n)]
        r.shuffle(tiers)
        minutes = sorted(r.sample(range(3 * 24 * 60), len(slots)))
        order = list(range(len(slots)))
        r.shuffle(order)
        for s, tier, pos in zip(slots, tiers, order, strict=True):
            s.tier, s.minute = tier, minutes[pos]
        for s in slots:  # an original is always reported before its duplicates
            if s.original is not None and s.minute < s.original.minute:
                s.minute, s.original.minute = s.original.minute, s.minute
        groups: dict[int, list[_Slot]] = {}
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
        policy = self.level.sla_policy
        deadline = {"enterprise": policy.enterprise, "pro": policy.pro}
        for _ in range(100):  # reshuffle tiers until correct triage in SLA order meets every deadline
            if _sla_feasible(slots, deadline, self.world):
                break
            tiers = [s.tier for s in slots]
            r.shuffle(tiers)
            for s, tier in zip(slots, tiers, strict=True):
                s.tier = tier
        number = r.randrange(1000, 60000)
        for s in sorted(slots, key=lambda s: s.minute):
            number += r.randrange(1, 30)
            s.ticket_id = f"LRK-{number}"


def _correct_steps(s: _Slot, world: World) -> int:
    if s.role not in ("fix", "near") or s.original is not None:
        return 1
    impact = s.scenario.impact if isinstance(s.scenario, Defect) else None
    return 2 + int(world.needs_escalation(severity_for(impact, s.scope, s.environment), s.environment))


def _sla_feasible(slots: list[_Slot], deadline: dict[str, int], world: World) -> bool:
    """True when working tickets in SLA order, each correctly, settles every one by its deadline."""
    used = 0
    for s in sorted(slots, key=lambda s: (deadline.get(s.tier) is None, deadline.get(s.tier, 0), s.minute)):
        used += _correct_steps(s, world)
        if s.tier in deadline and used > deadline[s.tier]:
            return False
    return True


# --------------------------------------------------------------------------- rendering


_ALERT_TAG = re.compile(r"^\s*\[P\d\]\s*")
"""An alert's own priority tag, dropped: the handbook sets severity from impact, not from the alerting rule."""


def _numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))


_VERSION_FORMATS: dict[str, str] = {
    "web": "web 2026.{a}.{b}",
    "ios": "iOS app 5.{a}.{b}",
    "android": "Android app 5.{a}.{b}",
    "api": "API v2 build 2026.{a}.{b}",
}


class _Renderer:
    """Turns planned slots into ticket records, recording which sentence carries each fact."""

    def __init__(self, builder: _Builder) -> None:
        self.b = builder
        self.r = builder.rng
        self.partition = builder.partition
        self.phrases = builder.phrases

    def pick(self, pool: str, **values: object) -> str:
        return self.r.choice(self.phrases.pool(pool, self.partition)).format(**values)

    def version(self, component: str, current: bool = False) -> str:
        platform = PLATFORM_OF.get(component, "web")
        a = 11 if current else self.r.randrange(8, 12)
        b = 4 if current else self.r.randrange(0, 5)
        return _VERSION_FORMATS[platform].format(a=a, b=b)

    def render(self, s: _Slot, base: datetime) -> tuple[dict[str, Any], TicketFacts]:
        r, lv = self.r, self.b.level
        self.reported = self.version(s.scenario.component)  # the one build this report speaks of
        evidence: list[tuple[str, str]] = []
        traps: list[str] = []
        reporter: ReporterType = "user"
        repro = logs = False
        log_excerpt: str | None = None
        scenario = s.scenario
        if isinstance(scenario, Defect):
            d = scenario
            if s.monitoring:
                reporter = "monitoring"
            elif s.role == "cannot_reproduce":
                reporter = "qa" if r.random() < 0.6 else "user"
            elif s.role in ("fix", "near", "duplicate"):
                reporter = "qa" if r.random() < 0.3 else "user"
            repro = reporter != "monitoring" and r.random() < (0.85 if reporter == "qa" else 0.45)
            logs = reporter == "monitoring" or r.random() < (0.4 if reporter == "qa" else 0.2)
            if s.role == "cannot_reproduce":  # retried with steps, and nothing in the logs shows it
                repro, logs = True, False
            if logs:
                log_excerpt = r.choice(d.logs)
            title, body = self._defect_text(s, d, reporter, repro, evidence, traps)
        else:
            story = scenario
            title = r.choice(story.titles)
            text = r.choice(story.texts)
            evidence.append((s.kind, text))
            body = self._user_wrap(text, traps)
        if reporter == "user":
            if r.random() < lv.rates.terse_title:
                title = self.pick("terse_title")  # "Bug", "Help please": a title that says nothing, on any kind
            target = r.randrange(7, 14)  # words, drawn apart from the truth, so title length says nothing of it
            for affix in r.sample(self.phrases.pool("title_affix", self.partition), 3):
                if len(title.split()) < target:
                    title = affix.format(title=title)
        if reporter == "user" and r.random() < lv.rates.loud:
            title = self.pick("loud_title", title=title)
            traps.append("loud")
        title = self._case(title)
        candidates = self._candidates(s.scenario.component, s.scenario.misfiled, traps)
        attachments = r.choice([0, 0, 0, 1, 1, 2, 3])
        version = self.reported if r.random() < 0.7 else None
        created = base + timedelta(minutes=s.minute)
        record = {
            "ticket_id": s.ticket_id,
            "title": title,
            "description": body,
            "reporter_type": reporter,
            "service": self.b.world.service_of[candidates[0]],
            "component_candidates": candidates,
            "created_at": created.strftime("%Y-%m-%dT%H:%M:00Z"),
            "customer_tier": s.tier,
            "environment": s.environment,
            "version": version,
            "affected_users": None,
            "log_excerpt": log_excerpt,
            "repro_steps_present": repro,
            "logs_present": logs,
            "attachments_count": attachments,
        }
        facts = TicketFacts(
            ticket_id=s.ticket_id,
            kind=s.kind,
            scenario=s.scenario.id,
            component=s.scenario.component,
            environment=s.environment,
            tier=s.tier,
            reporter=reporter,
            impact=scenario.impact if isinstance(scenario, Defect) else None,
            scope=s.scope,
            duplicate_of=s.original.ticket_id if s.original else None,
            unsupported=s.role == "wont_fix",
            retest_clean=s.role == "cannot_reproduce",
            fixed_in_current=s.role == "resolved",
            repro=repro,
            logs=logs,
            traps=tuple(traps),
            evidence=tuple(evidence),
        )
        return record, facts

    def _defect_text(
        self,
        s: _Slot,
        d: Defect,
        reporter: ReporterType,
        repro: bool,
        evidence: list[tuple[str, str]],
        traps: list[str],
    ) -> tuple[str, str]:
        r, lv = self.r, self.b.level
        platform = PLATFORM_OF.get(d.component, "web")
        if reporter == "monitoring":
            assert d.alert is not None
            body = self.pick("monitoring_body", time=self._scope_values(s, d)["time"], metric=d.alert.metric)
            scope_line = self._scope_sentence(s, d, alert=True)
            evidence.append((f"scope:{s.scope}", scope_line))
            evidence.append(("symptom", d.alert.metric))
            return _ALERT_TAG.sub("", d.alert.title), f"{body} {scope_line}"
        symptom = d.symptoms[s.symptom_variant]
        evidence.append(("critical" if d.impact == "critical" else "symptom", symptom))
        lines: list[str] = []
        if s.role == "wont_fix":
            sentence = self.pick(f"unsupported_{platform}")
            evidence.append(("unsupported", sentence))
            lines.append(sentence)
        elif d.component in PLATFORM_OF and r.random() < lv.rates.supported_decoy:
            lines.append(self.pick(f"supported_{platform}"))
            traps.append("supported_platform_decoy")
        if s.environment != "production":
            sentence = self.pick(f"env_{s.environment}", version=self.reported)
            evidence.append(("environment", sentence))
            lines.append(sentence)
        elif s.scope is not None:
            sentence = self._scope_sentence(s, d, alert=False)
            evidence.append((f"scope:{s.scope}", sentence))
            lines.append(sentence)
        if s.role == "cannot_reproduce":
            sentence = self.pick("retest_clean", version=self.version(d.component, current=True))
            evidence.append(("retest", sentence))
        elif s.role == "resolved":
            sentence = self.pick("resolved_after_upgrade", version=self.version(d.component, current=True))
            evidence.append(("resolved", sentence))
        else:
            sentence = ""
        title = d.titles[s.title_variant]
        if reporter == "user" and r.random() < 0.25:  # customers often name only the feature in the subject
            title = self.pick("feature_title", feature=d.feature)
            title = title[:1].upper() + title[1:]
        if reporter == "qa":
            parts = [self.pick("opener_qa", version=self.reported), " ".join([symptom, *lines])]
            if repro:
                parts.append("Steps to reproduce:\n" + _numbered(d.steps))
            if sentence:
                parts.append(sentence)
            return title, "\n\n".join(parts)
        body = " ".join([symptom, *lines])
        if repro:
            body += "\n\n" + self.pick("steps_header_user") + "\n" + _numbered(d.steps)
        if sentence:
            body += "\n\n" + sentence
        return title, self._user_wrap(body, traps)

    def _scope_values(self, s: _Slot, d: Defect) -> dict[str, object]:
        """Who is hit, the rate, the onset and the counts: drawn once per defect, shared by its duplicates."""
        root = s.original or s
        if root.scope_values is None:
            r = self.r
            root.scope_values = {
                "feature": d.feature,
                "who": r.choice(d.segment) if d.segment else "",
                "workaround": r.choice(d.workaround) if d.workaround else "",
                "pct": r.randrange(8, 60),
                "time": f"{r.randrange(24):02d}:{r.randrange(60):02d} UTC",
                "m": r.randrange(12, 400),
                "n": r.randrange(1, 4),
            }
        return root.scope_values

    def _scope_sentence(self, s: _Slot, d: Defect, alert: bool) -> str:
        pool = f"alert_{s.scope}" if alert else f"scope_{s.scope}"
        return self.pick(pool, **self._scope_values(s, d))

    def _user_wrap(self, body: str, traps: list[str]) -> str:
        """A customer's framing: opener or quiet opener, claims, planted instructions, sign-off."""
        r, rates = self.r, self.b.level.rates
        if r.random() < rates.quiet:
            opener = self.pick("quiet_opener")
            traps.append("quiet")
        else:
            opener = self.pick("opener_user" if r.random() < 0.5 else "opener_user_terse")
        extra: list[str] = []
        if r.random() < rates.urgency:
            extra.append(self.pick("urgency_claim"))
            traps.append("urgency_claim")
        if "loud" in traps or r.random() < rates.loud / 2:
            extra.append(self.pick("loud_sentence"))
        if r.random() < rates.injection:
            extra.append(self.pick("injection"))
            traps.append("injection")
        # padding towards a length drawn apart from the truth, so that length says nothing of it:
        # at most one sentence about who the customer is, then neutral remarks
        target = r.randrange(400, 900)
        who = r.choice(self.phrases.pool("context_user", self.partition))
        fillers = self.phrases.pool("filler_user", self.partition)
        fillers = r.sample(fillers, min(len(fillers), 6))
        context: list[str] = []
        length = len(opener) + len(body)
        for sentence in [who, *fillers]:
            if length >= target:
                break
            context.append(sentence)
            length += len(sentence) + 1
        text = " ".join([opener, *context, body])
        if extra:
            text += "\n\n" + " ".join(extra)
        if r.random() < 0.6:
            text += "\n\n" + self.pick("closer_user")
        return text

    def _case(self, title: str) -> str:
        x = self.r.random()
        if x < 0.15:
            return title.lower()
        if x < 0.25:
            return title[:1].upper() + title[1:]
        return title

    def _candidates(self, component: str, misfiled: list[str], traps: list[str]) -> list[str]:
        r = self.r
        decoys = list(misfiled) or [c for c in self.b.world.components if c != component]
        k = r.choice([0, 1, 1, 2])
        chosen = r.sample(decoys, min(k, len(decoys)))
        if r.random() < self.b.level.rates.misfiled:
            traps.append("misfiled")
            return chosen or [r.choice(decoys)]
        out = [component, *chosen]
        r.shuffle(out)
        return out


# --------------------------------------------------------------------------- entry point


@dataclass(frozen=True)
class GeneratedTask:
    """A generated instance: the task the env plays, and the facts behind it (trainer side)."""

    task: Task
    facts: dict[str, TicketFacts]
    split: Split
    seed: int


def partition_of(split: str) -> Partition:
    """The catalogue partition a split draws from.

    Until the validation partition is written, validation instances draw from `test` material.
    """
    return "train" if split == "train" else "test"


def generate(task_id: str, seed: int, split: str = "train") -> GeneratedTask:
    """The instance of generated task `task_id` named by (`split`, `seed`); same arguments, same bytes."""
    level = level_of(task_id)
    seed = check_seed(split, seed)
    rng = random.Random(f"bug-triage/{task_id}/{split}/{seed}")
    builder = _Builder(level, partition_of(split), rng)
    slots = builder.plan()
    renderer = _Renderer(builder)
    base = datetime(2026, 1, 5, 6, 0) + timedelta(days=rng.randrange(320), minutes=rng.randrange(600))
    records, facts = [], {}
    world = builder.world
    for s in sorted(slots, key=lambda s: s.minute):
        record, f = renderer.render(s, base)
        record["truth"] = derive_truth(f, world).model_dump()
        records.append(record)
        facts[f.ticket_id] = f
    fixture = TaskFixture.model_validate(
        {
            "task_id": level.task_id,
            "difficulty": level.difficulty,
            "description": level.description,
            "step_budget": level.step_budget,
            "sla_policy": level.sla_policy.model_dump(),
            "tickets": records,
        }
    )
    # check_seed has refused any split outside SPLITS, but cannot narrow the str to the Split literal
    return GeneratedTask(build_task(fixture, world), facts, split, seed)  # type: ignore[arg-type]


__all__ = [
    "SPLITS",
    "TRAIN_MAX_SEED",
    "GeneratedTask",
    "Level",
    "TicketFacts",
    "check_seed",
    "derive_truth",
    "disposition_for",
    "generate",
    "level_of",
    "load_levels",
    "severity_for",
    "split_size",
]
