"""The generator's scenario catalogue and phrase pools (`data/generator/*.json`), as typed models.

A domain expert extends the generator by editing those files, not Python: every defect,
feature request, invalid report and vague report is a scenario with its own wordings, and
every sentence the generator adds around them comes from a phrase pool. Each scenario and
each pool entry belongs to one partition, `train`, `validation` or `test`, and instances of
a split are made only from its own partition's material.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache, cached_property
from typing import Annotated, Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import FixtureError
from .models import Tier
from .world import DATA_DIR, load_world

Partition = Literal["train", "validation", "test"]
TIERS: tuple[Tier, ...] = get_args(Tier)
Impact = Literal["critical", "core", "minor", "cosmetic"]
Reach = Literal["user", "object", "everyone"]
Line = Annotated[str, Field(min_length=3, max_length=600)]
Lines = Annotated[list[Line], Field(min_length=1)]
LogExcerpt = Annotated[str, Field(min_length=3, max_length=4000)]
"""A log excerpt: up to a few dozen lines, so longer than a sentence."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Alert(_Model):
    """How monitoring reports the defect: an alert title and a metric line."""

    title: Line
    metric: Line
    partial: bool = False
    """The metric shows at most half of attempts failing (or slow, timing-out requests): severe
    degradation by the handbook, so the alert never states that everyone is hit."""


class Defect(_Model):
    """A real defect in one component, with every wording the generator may use for it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    component: str
    partition: Partition
    impact: Impact
    feature: Line
    """The workflow or feature that fails, as a noun phrase ("signing in through Okta")."""
    global_: bool = Field(default=False, alias="global")
    """The failure can hit every customer on every client at once (server-side, core)."""
    segment: list[Line] = Field(default_factory=list)
    """Who is hit when the scope is a segment: a platform, region, SSO provider, one organisation."""
    workaround: list[Line] = Field(default_factory=list)
    titles: Annotated[list[Line], Field(min_length=3)]
    symptoms: Annotated[list[Line], Field(min_length=3)]
    unchecked: list[Line] = Field(default_factory=list)
    """A display glitch's symptom with no word on whether the data is intact (empty: none written): a customer whom
    support answers tells only the glitch, and support's comment says it checked the data."""
    steps: Annotated[list[Line], Field(min_length=2, max_length=8)]
    retold_steps: list[Line] = Field(default_factory=list)
    """The same steps in a second reporter's words, one for one (empty: none written): a duplicate gives these, so
    that two people's reports of one defect do not share their steps word for word."""
    logs: Annotated[list[LogExcerpt], Field(min_length=1)]
    alert: Alert | None = None
    misfiled: list[str] = Field(default_factory=list)
    family: str | None = None
    intermittent: bool | None = None
    """True when it fails only sometimes (only then may a report state a failure rate); None: not stated."""
    reach: Reach | None = None
    """What one occurrence hits: one user's account or settings, one object (a document, a project),
    or everyone in the situation; None: not stated."""
    internal: list[Line] = Field(default_factory=list)
    """The mechanism as the engineers would put it; never rendered: a tester states behaviour and a
    test matrix, an alert what it measured, and the mechanism shows only in the logs."""
    past: bool = False
    """A past incident (a failover lost a window of writes): it happened once and no run makes it fail again, so
    no tester reports it from a run or a test build, and no report states a share of tries or a matrix."""
    exposure: bool = False
    """Customer data shown to the wrong people: sev0 and escalated anywhere, never closed on a retest."""
    error_box: bool = False
    """Its failure shows the reporter an error message on a page, form or app screen, so a pasted
    error box fits it (False: the feature works wrongly, stays silent or shows only a status)."""
    paid: bool = False
    """Only a paying customer can report it: it names their plan's charges, seats or limits (billing
    defects always do, see `paying_only`)."""
    tiers: list[Tier] = Field(default_factory=lambda: list(TIERS), min_length=1)
    """The plans whose customers can report it: a defect told by someone on a named plan ("upgrading from
    Pro to Enterprise") is reported by customers on that plan only."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> Defect:
        if self.impact in ("core", "minor") and not self.workaround:
            raise ValueError("core and minor defects need at least one `workaround` sentence")
        if self.impact in ("core", "critical") and not (self.segment or self.global_):
            raise ValueError("core and critical defects need `segment` phrases or `global: true`")
        if self.alert is not None and not self.segment and not (self.global_ and not self.alert.partial):
            raise ValueError("an alert needs a scope monitoring can see (`global` and not `partial`, or `segment`)")
        if self.exposure and self.impact != "critical":
            raise ValueError("an `exposure` defect exposes customer data, so its impact must be `critical`")
        if self.component in self.misfiled:
            raise ValueError("`misfiled` must not hold the defect's own component")
        if self.retold_steps and len(self.retold_steps) != len(self.steps):
            raise ValueError("`retold_steps` tells `steps` one for one: give as many, or none")
        return self


class Story(_Model):
    """A report that is not a defect to fix: a feature request, an invalid report or a vague report.

    `component` is where the report belongs (for a vague report: what the reporter's form
    points at, since the report itself does not say).
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    component: str
    partition: Partition
    titles: Annotated[list[Line], Field(min_length=2)]
    texts: Annotated[list[Line], Field(min_length=2)]
    misfiled: list[str] = Field(default_factory=list)


class Catalogue(_Model):
    """Every scenario the generator draws from."""

    defects: list[Defect]
    features: list[Story]
    invalid: list[Story]
    vague: list[Story]


Tag = Literal[
    "customer",
    "qa",
    "monitoring",
    "returning",
    "first_contact",
    "again",
    "guest",
    "web",
    "mobile",
    "api",
    "api_calls",
    "bug",
    "long",
    "terse",
    "technical",
    "nontechnical",
    "admin",
    "team",
    "email",
    "form",
    "nonnative",
    "free",
    "pro",
    "enterprise",
    "formal",
    "casual",
    "production",
    "prerelease",
    "chromium",
    "safari",
    "firefox",
    "ie",
    "quiet",
    "phone_app",
    "error_box",
    "tablet",
    "phone",
    "wish",
    "blocked",
    "one_user",
    "one_object",
    "relogin_helps",
    "reload_helps",
    "changed_setting",
    "logged",
    "frontend",
    "shot_per_step",
    "several_files",
    "development",
    "fresh",
    "large",
    "account",
    "heated",
    "vague",
    "invalid",
    "timeout",
    "intermittent",
    "data_loss",
    "scheduled",
    "exposure",
    "it_staff",
    "duplicate",
    "all_clients",
    "no_entry",
    "cosmetic",
    "browser_calls",
    "site_hospital",
    "site_clinic",
    "site_shop",
    "site_warehouse",
    "site_fleet",
    "site_field",
    "site_school",
    "site_library",
    "site_council",
    "volunteer",
    "charity",
    "webhook",
    "unsupported",
    "charged",
    "no_response",
    "past",
    "doing",
]
"""What a phrase can require of, or forbid in, its ticket and reporter.

`customer`, `qa`, `monitoring`: who reports; `returning`/`first_contact`: the reporter has or has not written to support before; `again`: they
filed another ticket of the same queue already (a history "last year" or a first ticket would contradict it);
`guest`: the defect is met by guests of a workspace (a test run that names its accounts names a guest); `web`,
`mobile`, `api`: the client the ticket is about (a ticket about no client is none of them);
`api_calls`: the failure is met by calling the API (so a client's request log or a test client fits it);
`bug`: the report is of a defect; `long`: the customer writes at length; `technical`,
`nontechnical`, `admin`, `team`, `nonnative`: who the reporter is and whether they work with
others; `email`, `form`: the channel; `free`, `pro`, `enterprise`: the customer's plan; `formal`,
`casual`: the register the customer writes this ticket in (a phrase tagged with neither fits both);
`production`/`prerelease`: the build reported is a live release, or a staging or development build of the next one;
`chromium`, `safari`, `firefox`, `ie`: a browser the ticket's text names (a pasted console speaks its dialect);
`quiet`: the defect shows the reporter no error (a message that never arrives, a display glitch, another
customer's data), so nothing like an error box or a failed request can be pasted; `phone_app`: the defect is
in a phone app, so nothing only a browser shows (the page, a network tab) can be pasted; `error_box`: the defect
shows the reporter an error message, so one can be pasted from the screen; `tablet`, `phone`: the ticket's wording names
an iPad or a tablet (or a phone) and not the other kind of device, so nothing said of the other fits it;
`wish`: a feature request, so nothing said of a fault (retried, reproduced, worked around) fits it; `blocked`: the
customer's facts say they cannot work at all (no way round it, as a scope of everyone or a group says), so no opener
may call it minor or not urgent and they did not wait days before writing in; `all_clients`: a tester's run finds the
failure on every client (web, phones, API), so its set-up covers more than one client's browsers or phones;
`one_user`, `one_object`: the defect hits one person (or a few) or one object, so no one may say a colleague or another
object shows it too; `relogin_helps`, `reload_helps`: a way round it is signing in again or reloading (restarting the
app), so no one may say that changed nothing; `changed_setting`: the facts tell of a setting changed, so no one may say
nothing was changed; `logged`: the ticket carries a log excerpt, so its reporter may say log files are attached;
`frontend`: the defect is in the web app's own code (web UI, editor), so a browser console can show its script errors;
`shot_per_step`, `several_files`: the ticket has a screenshot for each of its steps, or two files or more attached, so
its note may say so; `development`: the build reported is a development build (a feature branch, not a release pass);
`fresh`: the facts date the failure to the last few hours, so the writer did not put off writing for days;
`large`: the organisation has 150 seats or more (an IT department, not a contractor one day a week); `account`: the
defect is in signing in or paying (login, SSO, payments, invoicing), so no check of another project or of signing in
again fits it; `heated`: the customer's temper is pressing or loud, so they neither apologise, gush thanks nor play
the problem down; `vague`: a report too vague to act on, so nothing it attaches shows the failure step by step;
`invalid`: the report is of no fault in the product (often told by a writer who works it out), so no offer to test a fix fits it;
`timeout`: the defect's facts tell of a call or a page that never answers (times out, hangs), so a client's output
may show it giving up on waiting, as it may not for an error the server returns at once; `intermittent`: the
defect fails some attempts and not others, so no one may say every attempt fails; `data_loss`: the defect loses or
corrupts what was entered (the action goes through and the data is gone), so no one may say it never goes through;
`scheduled`: the steps wait for a scheduled job (a digest, a reminder run, a renewal), so no one tells of a retry
minutes after the first try; `exposure`: the defect shows customer data to the wrong people, so no tester calls the
data they saw it with a fixture or a seed (the handbook's exposure rule is about real customer data); `it_staff`: the organisation is big enough to have IT
people of its own (`personas.IT_STAFF_SEATS` seats or more), so no one there says an outside contractor does their IT; `duplicate`: the ticket reports a defect an
earlier ticket of the queue reports, so its writer never says it is another issue than the one they wrote about before;
`no_entry`: the app never opens (stuck on its splash screen, closing at launch), so its reporter pastes none of its
screens and tries nothing inside it (another project, signing out and in); `cosmetic`: the defect is a display glitch
and the feature still does its job, so no subject says it fails, is broken or does not work; `browser_calls`: the
failing API calls are made by a web page from the browser (a CORS preflight refused), so no one pastes a server-side
client library's output or tests them with a command-line client; `site_hospital`, `site_clinic`, `site_shop`,
`site_warehouse`, `site_fleet`, `site_field`, `site_school`, `site_library`, `site_council`: the organisation has such a
place (hospital workstations, a clinic's front desk, a shop's tills, warehouse scanners, delivery drivers, a field
team, school laptops, library computers, council laptops; `personas.SITES` reads them from its sector), so a phrase
naming the place fits it; `volunteer`: the organisation is run by volunteers (a club, a choir, an allotment
society), so no phrase speaks of its office, its boss or director, its company or its payroll; `charity`: the
organisation is a charity (its trustees may be waiting on a fix); `webhook`: the defect is
in webhooks, which Larkspur sends to the customer's server, so no one tells of the calls their integration sends;
`unsupported`: the report is from a browser or OS we no longer support and fails there only, so no colleague's login,
laptop or other device is said to fail the same way; `charged`: the failure takes the customer's money (an upgrade
paid for and not applied, a renewal charged twice), so no one says they retried it a dozen times; `no_response`: the
call fails before the server answers (a TLS handshake), so no response body is attached; `past`: a loss that happened
once (a failover's lost writes), so no one says every try has failed since. `doing`: the defect's feature is named by what
someone does ("adding subtasks to a task"), so no phrase wraps it as a thing ("can't get {feature} to work")."""


class Phrase(_Model):
    """A pool phrase that fits only some tickets: every `requires` tag present, no `forbids` tag."""

    text: Line
    requires: tuple[Tag, ...] = ()
    forbids: tuple[Tag, ...] = ()

    @model_validator(mode="after")
    def _satisfiable(self) -> Phrase:
        clash = set(self.requires) & set(self.forbids)
        if clash:
            raise ValueError(f"a phrase cannot both require and forbid {sorted(clash)}")
        if not self.requires and not self.forbids:
            raise ValueError("a phrase without `requires` or `forbids` is written as a plain string")
        return self

    def fits(self, tags: frozenset[str]) -> bool:
        """True when a ticket with `tags` may carry this phrase."""
        return tags.issuperset(self.requires) and tags.isdisjoint(self.forbids)


Entry = Line | Phrase
Entries = Annotated[list[Entry], Field(min_length=1)]


def _text(entry: Entry) -> str:
    return entry if isinstance(entry, str) else entry.text


class Pool(_Model):
    """One phrase pool, split into the partitions: an instance uses only its own split's phrases.

    An entry is a plain string (fits any ticket) or a `Phrase` with the tags it requires or forbids.
    """

    train: Entries
    validation: Entries
    test: Entries

    @cached_property
    def _selections(self) -> dict[tuple[Partition, frozenset[str] | None], tuple[str, ...]]:
        """`of`'s and `fitting`'s answers so far: a pool is frozen, so each is worked out once."""
        return {}

    def entries(self, partition: Partition) -> list[Entry]:
        """The entries of one partition, tags included."""
        return getattr(self, partition)  # type: ignore[no-any-return]

    def of(self, partition: Partition) -> list[str]:
        """The phrases of one partition, as text."""
        return list(self._texts(partition, None))

    def fitting(self, partition: Partition, tags: frozenset[str]) -> list[str]:
        """The phrases of one partition that a ticket with `tags` may carry."""
        return list(self._texts(partition, tags))

    @cached_property
    def _named_tags(self) -> frozenset[str]:
        """Every tag an entry requires or forbids: no other tag changes which entries fit."""
        entries = [e for p in ("train", "validation", "test") for e in getattr(self, p) if not isinstance(e, str)]
        return frozenset(t for e in entries for t in (*e.requires, *e.forbids))

    def _texts(self, partition: Partition, tags: frozenset[str] | None) -> tuple[str, ...]:
        """The texts of `partition`'s entries that fit `tags` (every entry for None), in file order."""
        named = tags if tags is None else tags & self._named_tags
        found = self._selections.get((partition, named))
        if found is None:
            entries = self.entries(partition)
            found = self._selections[(partition, named)] = tuple(
                _text(e) for e in entries if named is None or isinstance(e, str) or e.fits(named)
            )
        return found


class Phrases(_Model):
    """Every sentence the generator adds around a scenario, keyed by what it is evidence of."""

    pools: dict[str, Pool]

    def pool(self, name: str, partition: Partition) -> list[str]:
        """Phrases of pool `name` in `partition`."""
        return self.pools[name].of(partition)

    def fitting(self, name: str, partition: Partition, tags: frozenset[str]) -> list[str]:
        """Phrases of pool `name` in `partition` that a ticket with `tags` may carry."""
        return self.pools[name].fitting(partition, tags)

    @cached_property
    def _fits(self) -> dict[tuple[str, Partition, frozenset[str]], tuple[str, ...]]:
        """`texts_fitting`'s answers so far, keyed by a ticket's whole tag set (hashed once per set)."""
        return {}

    def texts_fitting(self, name: str, partition: Partition, tags: frozenset[str]) -> tuple[str, ...]:
        """`fitting` as a shared tuple, looked up in one step: the generator asks it for every phrase it draws."""
        key = (name, partition, tags)
        found = self._fits.get(key)
        if found is None:
            if len(self._fits) >= _FITS_HELD:  # a long run meets ever new tag sets: start again
                self._fits.clear()
            found = self._fits[key] = self.pools[name]._texts(partition, tags)
        return found


_FITS_HELD = 50_000
"""How many answers `Phrases.texts_fitting` holds before it forgets them all."""


REQUIRED_POOLS: tuple[str, ...] = (
    "opener_user",
    "opener_user_terse",
    "opener_qa",
    "opener_qa_matrix",
    "closer_user",
    "closer_terse",
    "scope_everyone",
    "scope_segment",
    "scope_degraded",
    "scope_workaround",
    "scope_few",
    "scope_terse_everyone",
    "scope_terse_segment",
    "scope_terse_degraded",
    "scope_terse_workaround",
    "scope_terse_few",
    "alert_everyone",
    "alert_segment",
    "alert_degraded",
    "monitoring_body",
    "monitoring_account",
    "env_staging",
    "env_development",
    "unsupported_web",
    "unsupported_ios",
    "unsupported_android",
    "unsupported_api",
    "supported_web",
    "supported_ios",
    "supported_android",
    "supported_api",
    "retest_clean",
    "resolved_after_upgrade",
    "loud_title",
    "loud_sentence",
    "quiet_opener",
    "urgency_claim",
    "injection",
    "steps_header_user",
    "steps_header_qa",
    "filler_user",
    "attachment_note",
    "self_intro",
    "pasted_output",
    "checklist_head",
    "checklist_item",
    "title_template",
    "terse_title",
    "title_affix",
    "feature_title",
    "comment_author",
    "comment_ack_support",
    "comment_still_reporter",
    "support_scope_everyone",
    "support_scope_segment",
    "support_workaround",
)
"""Pools the generator reads; `load_phrases` refuses a file that lacks one."""


def _read(name: str) -> dict[str, Any]:
    return cast("dict[str, Any]", json.loads((DATA_DIR / "generator" / name).read_text(encoding="utf-8")))


def _check_components(cat: Catalogue) -> None:
    owner = load_world().owner
    seen: set[str] = set()
    groups: list[tuple[str, Sequence[Defect | Story]]] = [
        ("defects", cat.defects),
        ("features", cat.features),
        ("invalid", cat.invalid),
        ("vague", cat.vague),
    ]
    for group, items in groups:
        for item in items:
            if item.id in seen:
                raise FixtureError(f"generator catalogue: {group} '{item.id}': id is not unique")
            seen.add(item.id)
            for comp in (item.component, *item.misfiled):
                if comp not in owner:
                    raise FixtureError(f"generator catalogue: {group} '{item.id}': '{comp}' is not a component")


@cache
def load_catalogue() -> Catalogue:
    """The scenario catalogue (`data/generator/catalogue/*.json` merged), validated once per process."""
    merged: dict[str, list[Any]] = {"defects": [], "features": [], "invalid": [], "vague": []}
    folder = DATA_DIR / "generator" / "catalogue"
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".json"):
            continue
        raw = json.loads(path.read_text(encoding="utf-8"))
        for key, items in raw.items():
            if key not in merged:
                raise FixtureError(f"generator catalogue {path.name}: unknown section '{key}'; use {list(merged)}")
            merged[key].extend(items)
    try:
        cat = Catalogue.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        where = ".".join(str(p) for p in loc)
        if len(loc) >= 2 and isinstance(loc[1], int):
            where = f"{loc[0]} '{merged[str(loc[0])][loc[1]].get('id', loc[1])}' " + ".".join(str(p) for p in loc[2:])
        raise FixtureError(f"generator catalogue: {where}: {err['msg']}") from None
    _check_components(cat)
    return cat


@cache
def load_phrases() -> Phrases:
    """The phrase pools (`data/generator/phrases.json`), validated once per process."""
    try:
        phrases = Phrases.model_validate(_read("phrases.json"))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise FixtureError(f"generator phrases: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from None
    missing = [name for name in REQUIRED_POOLS if name not in phrases.pools]
    if missing:
        raise FixtureError(f"generator phrases: missing pools {missing}")
    return phrases


BILLING: frozenset[str] = frozenset({"payments", "invoicing"})
"""Components whose defects only a paying customer meets (charges, renewals, invoices)."""
PAID_FEATURES: frozenset[str] = BILLING | {"sso"}
"""Components only paying plans have: billing, and single sign-on through the customer's identity provider."""


def not_a_customers(d: Defect | Story) -> bool:
    """True when `d` is a story that is no customer's report: spam, or a test of the support form."""
    return isinstance(d, Story) and ("-spam-" in d.id or "-test-" in d.id)


def from_outside(d: Defect | Story) -> bool:
    """True when `d` is spam: its sender has no account, so the tracker stamps the free plan on it."""
    return isinstance(d, Story) and "-spam-" in d.id


def paying_only(d: Defect | Story) -> bool:
    """True when a customer on the free plan could not have reported `d` (a defect or a story): the plans
    a defect names decide (a failed upgrade from the free plan is a free customer's), else its feature."""
    if isinstance(d, Defect) and "tiers" in d.model_fields_set:
        return "free" not in d.tiers
    return (isinstance(d, Defect) and d.paid) or d.component in PAID_FEATURES
