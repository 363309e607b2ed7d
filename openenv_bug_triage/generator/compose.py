"""Defects composed from parts: a failing surface, a failure, a condition and, sometimes, data at risk.

Hand-written catalogue defects are few; parts multiply them. Each partition has its own parts
file (`data/generator/parts/<partition>.json`, no part shared between partitions), and a
composition is a `catalogue.Defect` like any other, so its truth follows from the same rules:
its component (and so its team) is the surface's, except that a display glitch belongs where it
is drawn (`rules.drawn_by`), and its impact class follows from the parts
by `impact_of`, the handbook's reading of what the text says:

- data at risk (what the reporter had entered is gone) is `critical`;
- a failure that blocks a core workflow (signing in, editing and saving, the public API,
  payments) is `core`, and one that blocks any other feature is `minor`;
- a display glitch that leaves the data and the feature intact is `cosmetic`.

Who is hit follows from the condition: a surface that can fail for everyone at once (server
side) with no condition is `global`; a condition (a platform, a setting, a kind of account)
names the group hit, so the scope sentence can say it. Every deciding part is written into
every symptom, so whichever wording a ticket uses, the reader sees it.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..catalogue import PAID_FEATURES, Defect, Impact, Line, Partition
from ..errors import FixtureError
from ..models import Tier
from ..rules import drawn_by
from ..world import DATA_DIR, load_world
from .facts import PLATFORM_OF
from .logpad import routine_numbers
from .phrasing import CHOICE, variants

Effect = Literal["blocks", "display"]
Kind = Literal["form", "signin", "view", "app", "message", "job", "api", "download"]
"""Where a surface shows itself to the reporter: a web page where something is entered and saved
(`form`), a sign-in page, a web page that is read (`view`), a mobile screen (`app`), an email,
push or webhook that should arrive (`message`), a background job, an API response, a file download."""
_Id = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
"""A part's id: words joined by single hyphens (a composed defect's id joins its parts' ids with `--`)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Surface(_Model):
    """Where a defect shows: one feature of one component, and how a report names it."""

    id: _Id
    component: str
    core: bool
    """The feature is a core workflow (signing in, editing and saving, public API, payments)."""
    server: bool
    """It can fail for everyone on every client at once (server side)."""
    kind: Kind
    """Where the reporter meets it, so that only failures that can show there are drawn for it."""
    feature: Line
    """The feature as a noun phrase: "saving a document"."""
    action: Line
    """The feature as what a user tries to do: "save a document"."""
    object: Line | None = None
    """What a user has entered there and can lose ("the changes I had typed"); None: nothing to lose."""
    steps: Annotated[list[Line], Field(min_length=2, max_length=4)]
    retold_steps: list[Line] = []
    """The same steps in a second reporter's words, one for one (`Defect.retold_steps`; empty: none written)."""
    request: Line
    """What the service logs when the feature is used."""
    workaround: Annotated[list[Line], Field(min_length=2)]
    """Ways round it, in words different enough that two reports of it need not share one."""
    detail: Line
    """A sentence of context only this surface has (who uses it, for what), so reports of it differ."""
    screen: bool = True
    """A person looks at it on a screen; False for a machine interface (an API, a webhook), which no
    display glitch can reach."""
    creates: bool = False
    """The feature makes something new (a task, a subtask): no older copy of it can take its place."""
    reaches: Line | None = None
    """Who the surface reaches when not every customer uses it ("every customer who signs in through Okta"): a
    failure of it with no condition hits that group, the handbook's "Okta SSO fails for all Okta tenants", not
    everyone. None: every customer uses it."""
    tiers: list[Tier] | None = None
    """The plans whose customers use it when not every plan's do (a card upgrade to Enterprise is a Pro
    customer's: an Enterprise one has nothing larger to buy): `Defect.tiers`."""

    @model_validator(mode="after")
    def _one_for_one(self) -> Surface:
        if self.retold_steps and len(self.retold_steps) != len(self.steps):
            raise ValueError(f"surface '{self.id}': `retold_steps` tells `steps` one for one: give as many, or none")
        return self


class Failure(_Model):
    """How the surface fails: it `blocks` the feature, or a `display` glitch leaves the data intact."""

    id: _Id
    effect: Effect
    surfaces: Annotated[list[Kind], Field(min_length=1)]
    """The kinds of surface this failure can show on ("the page says" needs a web page, "nothing
    arrives" a message)."""
    says: Line
    """The failure as a clause of a sentence: "the spinner turns for a minute and then stops"."""
    short: Line
    """The failure as a verb phrase, for a title: "spins and gives up"."""
    observe: Line
    """The last step of a reproduction: what the reporter then looks at, or what they see in a report's terse
    notation ("Result: spinner for about a minute, then 'request could not be completed'"), not the title again."""
    retold_observe: Line | None = None
    """`observe` in a second reporter's words (None: none written)."""
    error: Line | None = None
    """What the failing service logs (none for a `display` glitch: the server served the page, and what the browser
    or the app drew wrong leaves no line in its logs). In `says`, `short` and `error`, `{code}` is an error number of
    the surface's own (one banner's code is not every feature's)."""
    error_box: bool = False
    """The reporter sees an error message (a banner, a 403 page), so a pasted error box fits."""
    component: str | None = None
    """The one component whose surfaces this failure fits, when the handbook routes its evidence
    there whatever the surface (a 502 from the gateway is `api-gateway`); None: any surface."""
    routes: str | None = None
    """The component a defect of this failure belongs to on any surface it fits, when its evidence
    names that component's check (a 403 from a permission policy is `permissions`); None: the surface's."""
    takes: bool = False
    """The app shows success and keeps nothing ("a tick shows as if it worked, but opening it again shows nothing
    was done"): where the customer entered something, it took it and lost it, which the handbook rates as data lost."""
    refused: bool = False
    """The customer sees that the change did not take (an error, a 403, a value that snaps back): the handbook's
    change refused in plain sight, which loses nothing, so it fits no `Loss` (a loss would make the truth arguable)."""
    reverts: bool = False
    """The change is undone to what was there before ("snaps back to the old value"): it needs something that existed
    before, so it fits no surface that `creates` (a new subtask has no old value)."""
    total: bool = False
    """The failure is told as nothing getting through at all ("has stopped coming", "never arrives"): a report of it
    counts no share of tries that fail, so a composed defect of it is never a degraded service (`Defect.intermittent`
    False); its title and last step would otherwise say all fail beside a rate that says most pass."""
    silent: bool = False
    """The app gives no sign whether the action took ("the button flashes once and then nothing else happens"):
    where the customer entered something, the handbook would read that as taken and lost, while a failure that
    does not take reads as the workflow it blocks; so it fits no surface with something entered (`Surface.object`)."""

    @model_validator(mode="after")
    def _logged_unless_drawn(self) -> Failure:
        if (self.error is None) != (self.effect == "display"):
            raise ValueError(
                f"failure '{self.id}': give an `error` (what the failing service logs) for a failure that blocks, "
                "and none for a display glitch (no server log sees what a screen drew)"
            )
        return self


class Condition(_Model):
    """What limits who is hit: a client `platform` (only its component's) or a `trigger` (a setting, an account)."""

    id: _Id
    platform: Literal["web", "ios", "android", "api"] | None = None
    """The client a platform condition is about; None: a trigger, fits any surface."""
    when: Line
    """As a clause: "in Safari 17", "when the workspace has a custom domain"."""
    who: Line
    """The group hit, as the scope sentence names it: "everyone on Safari 17"."""
    step: Line
    """The step of a reproduction that sets it up."""
    retold_step: Line | None = None
    """The same step in a second reporter's words (None: none written)."""
    context: Line
    """How the log names it ("browser=Safari/17.4")."""
    paid: bool = False
    """Only a paying customer meets it (a trial of a paid plan): see `catalogue.paying_only`."""
    tiers: list[Tier] | None = None
    """The plans whose customers meet it when not every plan's do (a trial is of the Pro plan): `Defect.tiers`."""
    unfit: list[str] = []
    """Surfaces (by id) it cannot be met on: a trial organisation renews no annual subscription."""


class Loss(_Model):
    """Data at risk: what happens to what the user had entered."""

    id: _Id
    says: Line
    """A sentence with `{object}`: "Afterwards {object} are gone, even after a reload."."""
    short: Line
    """For a title, with `{object}` allowed."""
    replaces: bool = False
    """An older copy takes the place of what was entered: only where something existed before."""


class Templates(_Model):
    """How a partition's reports put the parts together (each with `{placeholders}`)."""

    titles: Annotated[list[Line], Field(min_length=3)]
    display_titles: Annotated[list[Line], Field(min_length=3)]
    symptoms: Annotated[list[Line], Field(min_length=3)]
    message_symptoms: Annotated[list[Line], Field(min_length=3)]
    """`symptoms` of something that comes to the writer (an email, a webhook): no "each time I try to get an email"."""
    display_symptoms: Annotated[list[Line], Field(min_length=3)]
    display_unchecked: Annotated[list[Line], Field(min_length=3)]
    """A display glitch told with no word on whether the data is intact: support's check in the thread says so."""
    log_quiet: Annotated[list[Line], Field(min_length=4)]
    """A service's routine lines around a failure (`{service}`, and numbers `{n}`, `{a}`, `{b}`, `{r}`, `{ms}`, `{h}`):
    no error and no warning, so the failure's own error stays the first fault a reader or the retimer finds."""
    log_warn: Annotated[list[Line], Field(min_length=1)]
    """A warning unrelated to the failure, logged after it (a red herring a reader must see past)."""
    partial: list[tuple[str, str]] = []
    """Words that say a failure happens every time, and what a report of one that fails only some of the
    time says instead (`partly`): "There is no way to" becomes "Often there is no way to"."""


class Parts(_Model):
    """One partition's parts (`data/generator/parts/<partition>.json`)."""

    surfaces: Annotated[list[Surface], Field(min_length=2)]
    failures: Annotated[list[Failure], Field(min_length=2)]
    conditions: Annotated[list[Condition], Field(min_length=2)]
    losses: Annotated[list[Loss], Field(min_length=1)]
    templates: Templates

    @model_validator(mode="after")
    def _usable(self) -> Parts:
        owner = load_world().owner
        for s in self.surfaces:
            if s.component not in owner:
                raise ValueError(f"surface '{s.component}' of '{s.id}' is not a component; use one of {sorted(owner)}")
        for group in (self.surfaces, self.failures, self.conditions, self.losses):
            ids = [p.id for p in group]
            if len(set(ids)) != len(ids):
                raise ValueError(f"part ids must be unique within their group: {ids}")
        surfaces = {s.id for s in self.surfaces}
        for c in self.conditions:
            if unknown := sorted(set(c.unfit) - surfaces):
                raise ValueError(f"condition '{c.id}' names unfit surfaces {unknown}; use surface ids")
        for f in self.failures:
            if f.routes is not None and f.routes not in owner:
                raise ValueError(
                    f"failure '{f.id}' routes to '{f.routes}', not a component; use one of {sorted(owner)}"
                )
        for s in self.surfaces:
            if not any(f.effect == "blocks" and s.kind in f.surfaces for f in self.failures):
                raise ValueError(f"surface '{s.id}' ({s.kind}) has no failure that blocks it; add one")
        return self


def impact_of(surface: Surface, failure: Failure, loss: Loss | None) -> Impact:
    """The impact class a report of these parts states (the handbook's severity rules read it)."""
    if failure.effect == "display":
        return "cosmetic"
    if loss is not None or (failure.takes and surface.object is not None):
        return "critical"
    return "core" if surface.core else "minor"


def fits(surface: Surface, failure: Failure, condition: Condition | None, loss: Loss | None) -> bool:
    """True when the parts make one coherent defect.

    A failure shows only on the kinds of surface it names (a page's error on a page, a missing
    email on an email); a failure the handbook routes to one component needs a surface of it; a platform condition
    needs a surface on that platform; a defect with no condition must be able to hit everyone (a
    server-side surface); a condition fits no surface it names unfit; a failure that gives no sign whether it took
    fits no surface where something is entered; a display glitch needs a screen to show on; data can be lost only where a
    user enters some, and only by a failure that blocks without refusing in plain sight (a display glitch leaves the
    data intact, a refused change loses nothing); an
    older copy can take the place of, and a change be undone to, only something that existed before (not a task being
    created).
    """
    if surface.kind not in failure.surfaces or failure.component not in (None, surface.component):
        return False
    if failure.silent and surface.object is not None:
        return False
    if failure.effect == "display" and not surface.screen:
        return False
    if condition is not None and condition.platform not in (None, PLATFORM_OF.get(surface.component)):
        return False
    if condition is not None and surface.id in condition.unfit:
        return False
    if _tiers(surface, condition) == []:  # no plan's customers meet both parts
        return False
    if condition is None and not surface.server:
        return False
    if surface.creates and ((loss is not None and loss.replaces) or failure.reverts):
        return False
    return loss is None or (surface.object is not None and failure.effect == "blocks" and not failure.refused)


def _tiers(surface: Surface, condition: Condition | None) -> list[Tier] | None:
    """The plans whose customers meet both parts (in the surface's order), or None when either part fits every plan."""
    if condition is None or not condition.tiers:
        return surface.tiers
    if surface.tiers is None:
        return condition.tiers
    return [t for t in surface.tiers if t in condition.tiers]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_DEVICE = re.compile(r" (?:on|in) (?:my |the )?(?:Android phone|iPhone|iPad|phone|tablet|browser)$")
"""The device an action names at its end, left out when a platform condition names the device itself."""
_TABLET = re.compile(r"\b(?:iPad|tablet)\b")


def action_of(surface: Surface, condition: Condition | None) -> str:
    """The surface's action as a symptom tells it: without its device when a platform condition names one."""
    if condition is not None and condition.platform is not None:
        return _DEVICE.sub("", surface.action)
    return surface.action


_PHONE = re.compile(r"\bphones?\b|\biPhone\b")


def _fill(template: str, values: dict[str, str]) -> str:
    text = " ".join(template.format(**values).split())
    return _cap(text.replace(" ,", ",").replace(" :", ":").replace(" ;", ";").replace(" .", "."))


@cache
def load_parts(partition: Partition) -> Parts:
    """The parts of one partition, validated once per process."""
    path = DATA_DIR / "generator" / "parts" / f"{partition}.json"
    try:
        return Parts.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise FixtureError(
            f"generator parts {path.name}: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
        ) from None


Key = tuple[int, int, int | None, int | None]
"""A composition: indices of its surface, failure, condition (None: none) and loss (None: none)."""


def partly(symptom: str, partition: Partition) -> str:
    """`symptom` told of a failure that hits only some tries (a degraded service, whose reporter counts
    the share that fails): its words of "every time" made "often", by the partition's `partial` pairs."""
    for always, often in load_parts(partition).templates.partial:
        symptom = symptom.replace(always, often, 1)
    return symptom


@cache
def compositions(partition: Partition) -> tuple[Key, ...]:
    """Every coherent composition of a partition's parts, in a fixed order."""
    p = load_parts(partition)
    out: list[Key] = []
    for si, s in enumerate(p.surfaces):
        for fi, f in enumerate(p.failures):
            for ci in [None, *range(len(p.conditions))]:
                c = None if ci is None else p.conditions[ci]
                for li in [None, *range(len(p.losses))]:
                    if fits(s, f, c, None if li is None else p.losses[li]):
                        out.append((si, fi, ci, li))
    return tuple(out)


def code_of(key: Key) -> str:
    """The error number a composition's failure shows (`{code}` in its wording): one per surface and failure."""
    si, fi, _, _ = key
    return str(5001 + (si * 131 + fi * 17) % 990)


def worded(text: str, key: Key, variant: int = 0) -> str:
    """`text` with each choice of wordings (`{greys out|flashes}`; `{object}` and `{code}` are slots) settled by the
    composition `key` and its symptom `variant`: one wording of a composition always words its failure the same way,
    its other wordings (another reporter's) and compositions of different surfaces word it differently."""
    seed = sum((i + 1) * 7919 * (x or 0) for i, x in enumerate(key)) + variant
    return CHOICE.sub(lambda m: (options := m[1].split("|"))[seed % len(options)], text)


_WAITED = re.compile(r"\b(?:after|for|open) (?P<n>\d+) ?(?P<unit>ms|s)\b")
"""A wait an error line tells of ("timed out after 60000 ms", "held open 300 s", "missed for 45 s")."""


def waited_seconds(error: str) -> int:
    """The whole seconds the wait `error` tells of lasted (0 when it tells of none)."""
    m = _WAITED.search(error)
    if m is None:
        return 0
    return int(m["n"]) // 1000 if m["unit"] == "ms" else int(m["n"])


def _with_routine(
    t: Templates, service: str, key: Key, request: tuple[datetime, str], error: tuple[datetime, str] | None
) -> list[str]:
    """A failure's lines (the request, then its error if the service logged one) among the service's routine lines:
    two or three before, one between when the error came seconds later, and one or two after (a warning among them
    half the time). Drawn from the composition's key alone, so a composed defect is the same in every process."""
    r = random.Random(f"log {key}")
    sent, asked = request
    failed, logged = error or request

    def routine(frame: str) -> str:
        numbers = routine_numbers(r)  # (drawn before the hash)
        return frame.format(service=service, h=f"{r.getrandbits(24):06x}", **numbers)

    quiet = r.sample(t.log_quiet, len(t.log_quiet))
    before = sorted(r.sample(range(3, 50), r.randrange(2, 4)), reverse=True)
    out = [(sent - timedelta(seconds=gap, milliseconds=r.randrange(1000)), routine(quiet.pop())) for gap in before]
    out.append((sent, asked))
    if error is not None:
        if (failed - sent).total_seconds() >= 2:
            out.append((sent + (failed - sent) / 2, routine(quiet.pop())))
        out.append((failed, logged))
    after = [routine(quiet.pop())] + ([routine(r.choice(t.log_warn))] if r.random() < 0.5 else [])
    out += [(failed + timedelta(seconds=2 * i + 1, milliseconds=r.randrange(1000)), x) for i, x in enumerate(after)]
    return [f"{_stamp(at)} {text}" for at, text in out]


def _stamp(at: datetime) -> str:
    """A log line's UTC stamp to the millisecond: `2026-11-03T09:41:12.108Z`."""
    return f"{at:%Y-%m-%dT%H:%M:%S}.{at.microsecond // 1000:03d}Z"


@cache
def composed(partition: Partition, key: Key) -> Defect:
    """The defect one composition makes (built once per process)."""
    p = load_parts(partition)
    si, fi, ci, li = key
    s, f = p.surfaces[si], p.failures[fi]
    c = None if ci is None else p.conditions[ci]
    loss = None if li is None else p.losses[li]
    impact = impact_of(s, f, loss)
    code = code_of(key)
    error = f.error.replace("{code}", code) if f.error is not None else None
    values = {
        "action": action_of(s, c),
        "feature": s.feature,
        # "in the timesheet export", but "while renewing the annual subscription"
        "in_feature": f"{'while' if s.feature.split(' ', 1)[0].endswith('ing') else 'in'} {s.feature}",
        "says": worded(f.says, key).replace("{code}", code),
        "short": f.short.replace("{code}", code),
        # one composition words its condition one way, another composition another ("with an accent in its name")
        "when": worded(c.when, key) if c else "",
        # a platform condition names the device: no phone in a tablet's story, no doubled device
        "detail": "" if c is not None and _TABLET.search(c.when) and _PHONE.search(s.detail) else s.detail,
        "loss": loss.says.format(object=s.object) if loss and s.object else "",
        "loss_short": loss.short.format(object=s.object) if loss and s.object else "",
        "code": code,  # (for a last step that quotes the banner: "Result: red banner, '... (code {code})'")
    }

    def worded_each(templates: list[str]) -> list[str]:
        """`templates` filled, each with its own words for the failure (`worded` by its place)."""
        return [
            _fill(t, {**values, "says": worded(f.says, key, i).replace("{code}", code)})
            for i, t in enumerate(templates)
        ]

    display = f.effect == "display"
    component = f.routes or (drawn_by(s.component) if display else s.component)
    symptoms = (
        p.templates.display_symptoms
        if display
        else p.templates.message_symptoms
        if s.kind == "message"
        else p.templates.symptoms
    )
    titles = [_fill(t, values) for t in (p.templates.display_titles if display else p.templates.titles)]
    if loss is not None:  # a title that says the data is gone
        titles = [f"{_cap(s.feature)}: {values['loss_short']}", *titles[1:]]
    service = load_world().service_of[component]
    sent = datetime(2026, 11, 3 + sum(key[:2]) % 20, 9, 41, 12, 108_000)
    # the error is logged once what it tells of has passed: "held open 300 s" five minutes after the request
    # (a display glitch: the request served as any other, and nothing logged of what the screen then drew)
    failed = sent + timedelta(seconds=sum(key[1:2]) % 3 + waited_seconds(error or ""), microseconds=446_000)
    log_lines = _with_routine(
        p.templates,
        service,
        key,
        (sent, f"INFO  {service} {s.request}" + (f" {c.context}" if c else "")),
        None if error is None else (failed, f"ERROR {service} {error}"),
    )
    return Defect.model_validate(
        {
            "id": f"{partition}-{s.id}--{f.id}--{c.id if c else 'all'}--{loss.id if loss else 'kept'}",
            "component": component,
            "partition": partition,
            "impact": impact,
            "error_box": f.error_box and s.kind not in ("message", "job"),
            "feature": s.feature,
            "global": c is None and s.reaches is None,
            **({"intermittent": False} if f.total or _no_error_shown(f) else {}),
            "paid": s.component in PAID_FEATURES or bool(c and c.paid),
            "segment": [c.who] if c else [s.reaches] if s.reaches else [],
            "workaround": list(s.workaround) if impact in ("core", "minor") else [],
            "titles": titles,
            # each wording its own words for the failure, so a duplicate told in another wording shares none of them
            "symptoms": worded_each(symptoms),
            "unchecked": worded_each(p.templates.display_unchecked) if display else [],
            "steps": [*(s.steps if c is None else [c.step, *s.steps]), _fill(f.observe, values)],
            # the same in a second reporter's words, where every part has them (a duplicate gives these)
            "retold_steps": _retold_steps(s, c, f, values),
            "logs": ["\n".join(log_lines)],
            **({"tiers": tiers} if (tiers := _tiers(s, c)) is not None else {}),
        }
    )


def _retold_steps(s: Surface, c: Condition | None, f: Failure, values: dict[str, str]) -> list[str]:
    """A composed defect's steps in a second reporter's words, one for one; none unless every part has them."""
    final = f.retold_observe
    lead = [] if c is None or c.retold_step is None else [c.retold_step]
    if not s.retold_steps or final is None or (c is not None and not lead):
        return []
    return [*lead, *s.retold_steps, _fill(final, values)]


def _composed_names(scenario_id: str) -> tuple[Partition, list[str]] | None:
    """The partition and the four part ids (surface, failure, condition, loss) a composed defect's id names, or None
    for a catalogue defect."""
    partition, _, rest = scenario_id.partition("-")
    names = rest.split("--")
    if partition not in ("train", "validation", "test") or len(names) != 4:
        return None
    return partition, names  # type: ignore[return-value]


def fact_group(scenario_id: str) -> str:
    """Where a ticket's deciding words come from: its catalogue scenario, or a composed defect's
    failure part (whose wording every surface it is composed with shares); for measures that
    must tell a scenario's own words from stock text added around them."""
    composed = _composed_names(scenario_id)
    return scenario_id if composed is None else f"{composed[0]}-{composed[1][1]}"


def named(scenario_id: str) -> Defect | None:
    """The composed defect with id `scenario_id` (as `TicketFacts.scenario` names it), or None if it is none."""
    partition, _, rest = scenario_id.partition("-")
    if partition not in ("train", "validation", "test"):
        return None
    p = load_parts(partition)
    names = rest.split("--")
    if len(names) != 4:
        return None
    surface, failure, condition, loss = names
    try:
        key: Key = (
            [s.id for s in p.surfaces].index(surface),
            [f.id for f in p.failures].index(failure),
            None if condition == "all" else [c.id for c in p.conditions].index(condition),
            None if loss == "kept" else [x.id for x in p.losses].index(loss),
        )
    except ValueError:
        return None
    return composed(partition, key) if key in compositions(partition) else None


@cache
def detail_of(scenario_id: str) -> str | None:
    """The surface's sentence of context in the composed defect `scenario_id` (who uses it, for what:
    a customer's words, which a tester leaves out), or None for a catalogue defect."""
    composed = _composed_names(scenario_id)
    if composed is None:
        return None
    partition, names = composed
    return next((s.detail for s in load_parts(partition).surfaces if s.id == names[0]), None)


QUIET_COMPONENTS: frozenset[str] = frozenset({"email-delivery", "push-notifications"})
"""Components whose failure is something that does not arrive: no screen shows an error for it."""


def _no_error_shown(f: Failure) -> bool:
    """True when a failure shows the customer no error or timeout (it takes the change and keeps nothing, gives no
    sign, or puts the old value back): a composed defect of it is never a degraded service, whose report counts the
    share of tries that "error or time out"."""
    return f.takes or f.silent or (f.refused and not f.error_box)


def quiet(defect: Defect) -> bool:
    """True when the defect shows its reporter no error: a message that never comes, a display
    glitch, a wrong value, or another customer's data (the request itself works)."""
    parts = _parts_of(defect.id)
    if parts is not None:
        surface, failure = parts
        return surface.kind in ("message", "job") or failure.effect == "display"
    if defect.exposure or defect.component in QUIET_COMPONENTS:
        return True
    # a cosmetic fault in an error response (a 422 whose message is badly worded) still fails the request
    return defect.impact == "cosmetic" and not any(
        ERROR_STATUS.search(text) for text in (*defect.symptoms, *defect.steps)
    )


ERROR_STATUS = re.compile(r"\b[45]\d\d (?:[A-Z][a-z]+|error)\b|\b(?:returns?|status|with an?) [45]\d\d\b")
"""An HTTP error status a report names ("returns 422", "404 Not Found"): the request it answers failed."""


def group_told(scenario_id: str, text: str) -> str | None:
    """The clause of `text` that names the group a composed defect hits, its condition as the report words it
    ("for our accounts that are provisioned through SCIM"); None for a catalogue defect, one with no condition, or
    a `text` that does not say it."""
    composed = _composed_names(scenario_id)
    if composed is None:
        return None
    partition, names = composed
    condition = next((c for c in load_parts(partition).conditions if c.id == names[2]), None)
    return None if condition is None else next((w for w in variants(condition.when) if w in text), None)


def _parts_of(scenario_id: str) -> tuple[Surface, Failure] | None:
    """The surface and failure a composed defect's id names, or None for a catalogue defect."""
    composed = _composed_names(scenario_id)
    if composed is None:
        return None
    partition, names = composed
    p = load_parts(partition)
    surface = next((s for s in p.surfaces if s.id == names[0]), None)
    failure = next((f for f in p.failures if f.id == names[1]), None)
    return None if surface is None or failure is None else (surface, failure)


@cache
def _by_surface(partition: Partition) -> dict[int, tuple[Key, ...]]:
    """`compositions` grouped by surface index, surfaces in ascending order, each group in the fixed order."""
    groups: dict[int, list[Key]] = {}
    for key in compositions(partition):
        groups.setdefault(key[0], []).append(key)
    return {si: tuple(groups[si]) for si in sorted(groups)}


LOSS_RATE = 0.25
"""Share of drawn compositions that put data at risk, where the surface and failure allow it."""


def draw(partition: Partition, rng: random.Random, avoid: set[str]) -> Defect:
    """A composed defect of `partition` whose surface is none in `avoid`, and whose failure and data at risk
    are none there either while others fit (two reports in one queue never tell one failure in the same
    words); adds its parts to `avoid` ("surface:<id>", "failure:<id>", "loss:<id>").

    Parts are drawn one after another (surface, failure, condition, then data at risk at
    `LOSS_RATE`), each among those that still fit, so no kind of defect dominates by count.
    """
    p = load_parts(partition)
    by_surface = _by_surface(partition)
    surfaces = [si for si in by_surface if f"surface:{p.surfaces[si].id}" not in avoid]
    if not surfaces:
        raise ValueError(f"generator parts: every {partition} surface is already in this queue; add surfaces")
    si = rng.choice(surfaces)
    keys = list(by_surface[si])
    failures = sorted({k[1] for k in keys})
    fi = rng.choice([f for f in failures if f"failure:{p.failures[f].id}" not in avoid] or failures)
    keys = [k for k in keys if k[1] == fi]
    conditions = sorted({k[2] for k in keys}, key=lambda c: -1 if c is None else c)
    ci = rng.choice(conditions)
    keys = [k for k in keys if k[2] == ci]
    lossy = [k for k in keys if k[3] is not None and f"loss:{p.losses[k[3]].id}" not in avoid]
    key = rng.choice(lossy) if lossy and rng.random() < LOSS_RATE else next(k for k in keys if k[3] is None)
    avoid |= {f"surface:{p.surfaces[si].id}", f"failure:{p.failures[fi].id}"}
    if key[3] is not None:
        avoid.add(f"loss:{p.losses[key[3]].id}")
    return composed(partition, key)
