"""The latent facts of a generated ticket, and its truth derived from them by the handbook's rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from .. import rules
from ..catalogue import Defect
from ..models import Disposition, Environment, ReporterType, Tier, Truth
from ..world import World
from .personas import defect_seats

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
INSTALLED: frozenset[Platform] = frozenset({"ios", "android"})
"""Clients a customer installs and may not have updated. The web app and the API are hosted: every
customer uses the build deployed when they use it, so only an app can lag behind a release."""
UNSUPPORTABLE: frozenset[str] = frozenset({"web-ui", "editor", "ios-app", "android-app"})
"""Components whose whole report can be about an unsupported browser or OS (won't-fix tickets)."""


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
    reporter_tags: frozenset[str] = field(default=frozenset(), compare=False)
    """What the reporter and the ticket are, as phrase tags (`catalogue.Tag`): every phrase fits them."""
    organisation: str | None = field(default=None, compare=False)
    """The customer's organisation, or the account an alert is filed on (None for QA)."""
    person: tuple[str, str] | None = field(default=None, compare=False)
    """The customer's name and role (None for QA and alerts)."""
    length: str = field(default="", compare=False)
    """How much a customer wrote: `terse`, `plain`, `padded` or `long` (empty for QA and alerts)."""
    noisy: bool = field(default=False, compare=False)
    """The customer's text went through the noise pass (typos, lower-case "i", markdown...)."""
    exposure: bool = False
    """The defect shows customer data to the wrong people (sev0 and escalated anywhere)."""
    case: str | None = None
    """A hard case of a bug to fix (`kinds.CASES`): feature_attached, wrong_cause, two_problems, regression."""
    second_component: str | None = None
    second_impact: str | None = None
    """The second problem of a `two_problems` report: its component and impact class."""
    fixed_in_release: bool = False
    """The report is on a build older than a release whose notes fix its defect (`rules.fixed_by_release`)."""
    began: datetime | None = field(default=None, compare=False)
    """When the failure it reports began, as its wording, scope sentence and log tell it (None for no defect)."""
    shipped: datetime | None = field(default=None, compare=False)
    """When the build it reports on shipped (its platform's current release for one not released yet)."""


REQUESTING_CASES: frozenset[str] = frozenset({"feature_attached", "regression"})
"""Cases whose report also asks for something (a feature, the old behaviour back)."""


def disposition_for(f: TicketFacts) -> Disposition:
    """How the handbook settles a ticket with these facts."""
    return rules.disposition_for(
        duplicate=f.duplicate_of is not None,
        vague=f.kind == "vague",
        invalid=f.kind == "invalid",
        unsupported=f.unsupported,
        retest_clean=f.retest_clean,
        fixed_in_current=f.fixed_in_current,
        feature=f.kind == "feature" or f.case in REQUESTING_CASES,
        exposure=f.exposure,
        defect=f.kind == "defect",
        fixed_in_release=f.fixed_in_release,
        lost=f.kind == "defect" and rules.data_lost(f.impact, f.component, f.environment),
    )


def derive_truth(f: TicketFacts, world: World) -> Truth:
    """The hidden truth of a ticket, from its facts by the handbook's rules."""
    disposition = disposition_for(f)
    severity = (
        rules.severity_for(f.impact, f.scope, f.environment, exposure=f.exposure) if f.kind == "defect" else "sev3"
    )
    component = f.component
    if f.second_component is not None:  # two problems in one report: triage the more severe
        second = rules.severity_for(f.second_impact, None, f.environment)
        if rules.triaged_problem([severity, second]) == 1:
            component, severity = f.second_component, second
    return Truth(
        true_severity=severity,
        true_priority=rules.priority_for(severity, f.tier, world),
        true_component=component,
        true_assignee_team=world.owner[component],
        duplicate_of=f.duplicate_of,
        needs_more_info=disposition == "needs_info",
        should_escalate=rules.should_escalate(disposition, severity, f.environment, world, exposure=f.exposure),
        disposition=disposition,
    )


_RECENT_OS = re.compile(r"\bdark (?:mode|theme|appearance)\b|\bwidgets?\b|\bdynamic colou?r\b", re.I)
"""What only a recent OS has (the old phones an unsupported report names have no system dark mode)."""


_METRIC_SPAN = re.compile(r"\b(?:over|for|in) (\d+) min\b|\b(\d+)-minute\b|\b(?:over|in) (1) h\b")
"""The span an alert's metric is measured over ("over 15 min", "1,240 in 15 min", "over 1 h")."""


def alert_span(d: Defect) -> int:
    """The minutes the metric of `d`'s alert is measured over (0 when it names none, or `d` has no alert): the alert
    fires once the failure has lasted that long, so "64% over 10 min" has been failing for ten minutes when it fires."""
    span = _METRIC_SPAN.search(d.alert.metric) if d.alert is not None else None
    if span is None:
        return 0
    return int(span[1] or span[2]) if span[3] is None else 60 * int(span[3])


def unsupported_report(d: Defect) -> bool:
    """A defect that can be the whole story of a report from an unsupported browser or OS:
    client-side (not global), in a platform component, losing no data, and met without a feature
    only recent systems have."""
    return (
        d.component in UNSUPPORTABLE
        and not d.global_
        and d.impact != "critical"
        and not any(_RECENT_OS.search(t) for t in (*d.symptoms, *d.titles, *d.steps))
    )


def alert_scopes(d: Defect) -> list[Scope]:
    """Scopes an alert on `d` may state: its metric already gives the rate, so never a second rate,
    and a metric of partial failure (`Alert.partial`) is never said to hit everyone."""
    options: list[Scope] = ["segment"] if d.segment else []
    if d.global_ and not (d.alert is not None and d.alert.partial):
        options.append("everyone")
    return options


_WORKSPACE = re.compile(r"\bworkspaces?\b")


def workspace_wide(d: Defect) -> bool:
    """True when what triggers `d` is the workspace's (its size, name, domain or settings): everyone in a workspace
    that meets it is hit, so no one says only a few of their colleagues see it."""
    return defect_seats(d) > 0 or any(_WORKSPACE.search(s) for s in d.segment)


def scope_options(d: Defect) -> list[Scope]:
    """Scopes a production report of `d` may state, chosen so that one severity follows.

    A core failure that can hit everyone is stated as hitting everyone, a group, or (unless it
    is known to fail every time) more than 5% of attempts; a narrower core failure hits a group
    or has a workaround. "Only a few users" is never said of a core failure: the handbook
    judges a defect by everyone in the same situation, and a reader cannot tell how many that is.
    Nor is it said of a defect that hits everyone who uses the feature or one object everyone who
    opens it sees (`reach` "everyone" or "object"), or whose trigger is the workspace's
    (`workspace_wide`), so a cosmetic defect of these has no scope to state.
    """
    segment: list[Scope] = ["segment"] if d.segment else []
    if d.impact == "critical":
        everyone: list[Scope] = ["everyone"] if d.global_ else []
        return segment + everyone or ["segment"]
    if d.impact == "core":
        if d.global_:
            rate: list[Scope] = [] if d.intermittent is False else ["degraded"]
            return ["everyone", *rate, *segment]
        return ["workaround", *segment]
    few: list[Scope] = [] if d.reach in ("everyone", "object") or workspace_wide(d) else ["few"]
    if d.impact == "minor":
        return ["workaround", *few]
    return few
