"""Scenario kinds that make real triage hard, drawn at per-level rates (`Rates` in `levels.json`).

Exposures of customer data are told as traps: seen only in staging or development (still
sev0 and escalated), or retested clean on the current release (still a bug to fix, since a
leak that cannot be reproduced may still have happened).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from .. import chronology, rules
from ..catalogue import PAID_FEATURES, Defect, Partition, Phrases, Story, paying_only
from ..models import Environment
from . import retell
from .facts import Scope, scope_options
from .levels import Level


class SlotLike(Protocol):
    """What these functions read and set of a planned slot (`plan.Slot`, which imports this module)."""

    scenario: Defect | Story
    role: str
    monitoring: bool
    environment: Environment
    scope: Scope | None
    minute: int
    exposure_trap: str | None
    clean_retest: bool
    case: str | None
    blamed: str | None
    second: Defect | None
    retold: bool
    release_note: str | None
    noted: Defect | None

    @property
    def original(self) -> SlotLike | None: ...


class Drawer(Protocol):
    """The planner: its RNG and level."""

    @property
    def rng(self) -> random.Random: ...
    @property
    def level(self) -> Level: ...


class Teller(Protocol):
    """The renderer: its RNG, its planner, the phrase pools of its partition."""

    @property
    def r(self) -> random.Random: ...
    @property
    def b(self) -> Drawer: ...
    @property
    def phrases(self) -> Phrases: ...
    @property
    def partition(self) -> Partition: ...
    @property
    def created(self) -> datetime: ...
    @property
    def reported(self) -> str: ...
    @property
    def temper(self) -> str: ...
    @property
    def reporter(self) -> str: ...
    @property
    def tags(self) -> frozenset[str]: ...
    @property
    def device(self) -> str | None: ...
    @property
    def used(self) -> set[str]: ...
    def pick(self, pool: str, **values: object) -> str: ...
    def local(self, text: str, shift: int | None = None) -> str: ...
    def local_to(self, scenario: Defect, text: str) -> str: ...
    def release_day(self) -> str: ...


TABLET = re.compile(r"\b(?:iPad|tablet)s?\b", re.I)
PHONE = re.compile(r"\b(?:iPhone|phone|handset)s?\b", re.I)
"""A wording that names a tablet, or a phone."""
_OTHER_VOICE = re.compile(r"(?i:\bsorry for my english\b)|^[a-z]")
"""A wording in a voice of its own: an apology for the writer's English, or typed all in lower case."""
_HEADED = re.compile(r"^[A-Z][\w ,.'-]{0,40}: ")
"""A wording that opens with a field header ("Layout: German locale, ..."), as a form or a tester writes."""
_CLOSED = re.compile(r"[.!?)'\"]$")


def closed(text: str) -> str:
    """`text` ending in a full stop when it ends without one (a casual wording, before the next sentence)."""
    return text if _CLOSED.search(text.rstrip()) else text.rstrip() + "."


EXPOSURE_TRAPS: tuple[str, ...] = ("environment", "retest")
"""How an exposure is told: outside production, or with a passing retest on the current release."""


def take_out(defects: list[Defect], d: Defect) -> None:
    """Remove `d` itself from `defects`: found by identity, not compared field by field as `list.remove` would."""
    defects[:] = [x for x in defects if x is not d]


_APPS = ("ios-app", "android-app")
"""Clients installed on a device: the build a retest runs is the one that failed, unchanged."""


def _may_pass_a_retest(d: Defect) -> bool:
    """A clean retest on the same app build is believable only where something else could have changed:
    not for an app's fault that fails every time (the same code does the same thing)."""
    return d.component not in _APPS or d.intermittent is not False


def draw_exposure(planner: Drawer, defects: list[Defect], room: int) -> tuple[Defect, str] | None:
    """At most one bug to fix that a clean retest must not close, drawn at the level's `exposure` rate.

    Outside production it exposes customer data (sev0 anywhere); with a clean retest it exposes
    customer data or has already lost some (`rules.data_lost`: the loss happened whatever a retest
    shows today). The defect is taken out of `defects` (the planner's remaining ones) and returned
    with the trap it will be told as; `room` is how many bugs to fix are still to be drawn.
    """
    r = planner.rng
    if room < 1 or not r.random() < planner.level.rates.exposure:
        return None
    trap = r.choice(EXPOSURE_TRAPS)
    fits = [
        d
        for d in defects
        if (d.exposure or (trap == "retest" and rules.data_lost(d.impact, d.component, "production")))
        and (trap != "retest" or _may_pass_a_retest(d))
    ]
    if not fits:
        return None
    d = r.choice(fits)
    take_out(defects, d)
    return d, trap


def place_exposure_traps(planner: Drawer, slots: Sequence[SlotLike]) -> None:
    """Tell each exposure trap: move it outside production, or give it a clean retest.

    Either way it is a user's or QA's report (not an alert), and its truth stays sev0, a bug
    to fix, escalated.
    """
    r = planner.rng
    for s in slots:
        if s.exposure_trap is None:
            continue
        s.monitoring = False
        if s.exposure_trap == "environment":
            s.environment = r.choice(["staging", "development"])
            s.scope = None
        else:
            if s.environment != "production":
                assert isinstance(s.scenario, Defect)
                s.environment, s.scope = "production", r.choice(scope_options(s.scenario))
            s.clean_retest = True


# --------------------------------------------------------------------------- the hard parts of real triage

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|my|me|we|we're|our|us)\b", re.I)
"""A customer's own voice in a wording ("the task I tapped on", "our invoices")."""

CASES: tuple[str, ...] = ("feature_attached", "wrong_cause", "two_problems", "regression")
"""Kinds of bug to fix told in a harder way; each has a rate of the same name in `Rates`."""

AREA: dict[str, str] = {
    "web-ui": "the web app's pages",
    "editor": "the editor",
    "ios-app": "the iPhone app",
    "android-app": "the Android app",
    "api-gateway": "your API servers",
    "public-api": "the API",
    "login": "the login system",
    "sso": "single sign-on",
    "permissions": "the sharing settings",
    "payments": "the payment provider",
    "invoicing": "the invoicing",
    "email-delivery": "your email sending",
    "push-notifications": "push notifications",
    "search": "the search",
    "reporting": "the reports",
    "data-export": "the export feature",
    "database": "your database",
    "file-storage": "the file storage",
}
"""How a customer names the part of the product they blame (a guess, not evidence)."""

CONFUSABLE: dict[str, tuple[str, ...]] = {
    "web-ui": ("editor", "search", "permissions"),
    "editor": ("web-ui", "file-storage", "database"),
    "ios-app": ("push-notifications", "login", "database"),
    "android-app": ("push-notifications", "login", "database"),
    "api-gateway": ("public-api", "login", "database"),
    "public-api": ("api-gateway", "permissions", "database"),
    "login": ("sso", "permissions", "email-delivery"),
    "sso": ("login", "permissions"),
    "permissions": ("login", "sso"),
    "payments": ("invoicing", "login"),
    "invoicing": ("payments", "email-delivery"),
    "email-delivery": ("push-notifications", "permissions"),
    "push-notifications": ("email-delivery", "permissions"),
    "search": ("database", "permissions"),
    "reporting": ("database", "data-export"),
    "data-export": ("reporting", "file-storage"),
    "database": ("api-gateway", "search"),
    "file-storage": ("database", "editor"),
}
"""Per component, the parts a customer who meets its symptom could plausibly blame instead (a form's
misfiled components aside): the screen next to it, the service behind it, the step before it."""


def neighbours(component: str) -> tuple[str, ...]:
    """The components a form's guess beside `component` plausibly names: those `CONFUSABLE` pairs with it either
    way round. The relation is symmetric, so a pair of guesses does not tell which of the two is the truth."""
    return _NEIGHBOURS[component]


_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    c: tuple(sorted({*CONFUSABLE[c], *(x for x, near in CONFUSABLE.items() if c in near)} - {c})) for c in CONFUSABLE
}


SCREENS: frozenset[str] = frozenset({"web-ui", "editor", "ios-app", "android-app"})
"""Parts a reader blames for how something looks."""


def blame_options(d: Defect) -> list[str]:
    """What a reporter of `d` may wrongly blame: its misfiled components, else the parts confused with it;
    for a glitch in how something looks, only a screen when one is among them; for a defect only free
    customers meet, nothing only paying customers have (none may be left)."""
    if d.misfiled:
        options = list(d.misfiled)
    else:
        options = [c for c in CONFUSABLE[d.component] if c != d.component]
        if d.impact == "cosmetic":
            options = [c for c in options if c in SCREENS] or options
    if set(d.tiers) == {"free"}:
        options = [c for c in options if c not in PAID_FEATURES]
    return options


_DAY_OF_MONTH = re.compile(r"\bthe \d{1,2}(?:st|nd|rd|th)\b")


def _names_a_day(text: str) -> bool:
    """True when `text` dates the failure to a day ("renewed on the 14th", "on 12 March"): a day no update it blames
    can be set after."""
    return _DAY_OF_MONTH.search(text) is not None or chronology.names_dates(text)


def assign_cases(planner: Drawer, slots: Sequence[SlotLike], defects: list[Defect]) -> None:
    """Draw which bugs to fix are told as a hard case, and which duplicates are re-told.

    Only a customer's own report of a bug to fix (no alert, no near-duplicate, no exposure
    trap, no exposure of customer data) becomes a case; a second problem is a cosmetic defect of another component taken
    from the planner's remaining `defects`, so the reported defect is always the more severe.
    """
    r, rates = planner.rng, planner.level.rates
    for s in slots:
        d = s.scenario
        if s.role == "duplicate":  # an alert is never re-told: it fires when the failure its original reports starts
            s.retold = r.random() < rates.retold and not s.monitoring
            continue
        if not isinstance(d, Defect) or s.role != "fix" or s.monitoring or s.exposure_trap is not None:
            continue
        if d.exposure:  # one who saw another company's data reports that alone: no wish or second glitch beside it
            continue
        if s.environment != "production":  # a staging or development build is reported by a tester, not a customer
            continue
        for case in CASES:
            if r.random() < getattr(rates, case):
                s.case = case
                break
        if s.case == "regression" and any(map(_names_a_day, d.symptoms)):
            s.case = None  # "renewed on the 14th" beside "no trouble before the 27 December update": no start to blame
            continue
        if s.case == "wrong_cause":
            blamed = blame_options(d)
            if not blamed:
                s.case = None
                continue
            s.blamed = r.choice(blamed)
        elif s.case == "two_problems":
            seconds = [
                x for x in defects if x.impact == "cosmetic" and x.component != d.component and _one_plan_meets(d, x)
            ]
            if not seconds or d.impact == "cosmetic":
                s.case = None
                continue
            s.second = r.choice(seconds)
            take_out(defects, s.second)


def _one_plan_meets(d: Defect, second: Defect) -> bool:
    """True when a customer on some plan meets both `d` and a `second` problem told beside it."""
    plans = set(d.tiers) & set(second.tiers)
    return bool(plans - {"free"}) or (bool(plans) and not paying_only(second))


def case_lines(renderer: Teller, s: SlotLike, evidence: list[tuple[str, str]], traps: list[str]) -> list[str]:
    """The sentences that tell a slot's case; each is recorded as evidence and as a trap."""
    if s.case is None:
        return []
    r = renderer.r
    feature = renderer.local(s.scenario.feature) if isinstance(s.scenario, Defect) else ""
    if s.case == "feature_attached":
        lines = [renderer.pick("case_feature_attached")]
    elif s.case == "wrong_cause":
        assert s.blamed is not None
        lines = [renderer.pick("case_wrong_cause", area=AREA[s.blamed])]
    elif s.case == "regression":  # told in the reporter's words about their own feature, not a stock line
        lines = [renderer.pick("case_regression", day=renderer.release_day(), feature=feature)]
        # one who plays it down asks for nothing back, and a tester reports the change, not a wish
        if r.random() < 0.5 and renderer.temper != "quiet" and renderer.reporter == "user":
            lines.append(renderer.pick("case_regression_request"))
    else:
        assert s.second is not None
        told = [x for x in s.second.symptoms if not _HEADED.match(x)] or s.second.symptoms  # a sentence, not a form
        if renderer.reporter == "qa":  # a tester tells the second problem as seen, not in a customer's first person
            told = [x for x in told if not _FIRST_PERSON.search(x)] or s.second.titles[:1]
        other = {"tablet": PHONE, "phone": TABLET}.get(renderer.device or "")
        if other is not None:  # no iPad layout beside "on my phone": the writer's one kind of device
            told = [x for x in told if not other.search(x)] or told
        # one writer, one register: no apology for their English or all-lower-case typing in a second voice
        told = [x for x in told if not _OTHER_VOICE.search(x)] or told
        symptom = closed(renderer.local_to(s.second, r.choice(told)))  # its dates, too, before the ticket
        lines = [renderer.pick("case_second_problem", symptom=symptom)]
    evidence.extend((f"case:{s.case}", line) for line in lines)
    traps.append(s.case)
    return lines


def blamed_first(s: SlotLike, candidates: list[str]) -> list[str]:
    """The reporter's form names the component they blame first (a guess the evidence overrules)."""
    if s.blamed is None:
        return candidates
    return [s.blamed, *(c for c in candidates if c != s.blamed)]


def retold_steps(renderer: Teller, s: SlotLike, steps: list[str]) -> list[str]:
    """A re-told duplicate's own steps: every one (a step left out is often the one that sets the failure off,
    "Choose 'Archive project' and confirm", or the one a later step needs), some worded in the reporter's own way."""
    if not s.retold:
        return steps
    own = retell.reworded(steps, renderer.r)
    if own == list(steps) and len(steps) > 2:  # no step reworded: the first two done as one, as people write them
        own = [f"{steps[0].rstrip('.')} and {retell.lower_first(steps[1])}", *steps[2:]]
    return own


def own_counts(renderer: Teller) -> dict[str, object]:
    """A duplicate's reporter's own share of failures and counts: each reporter sees their own workspace."""
    r = renderer.r
    return {"pct": r.randrange(8, 51), "m": r.randrange(12, 400), "n": r.randrange(1, 4)}


def own_numbers(renderer: Teller, shared: dict[str, object]) -> dict[str, object]:
    """A re-told duplicate's own rate, onset and counts; who is hit and the workaround stay the original's."""
    onset = renderer.created - timedelta(minutes=renderer.r.randrange(4, 90))  # shortly before its own report
    return {**shared, "time": f"{onset:%H:%M} UTC", "onset": onset, **own_counts(renderer)}
