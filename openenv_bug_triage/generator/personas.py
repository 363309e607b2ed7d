"""Who writes a ticket: one reporter drawn per ticket, whose tags decide which phrases fit.

A customer belongs to one organisation (sector, seats that fit the plan), has a role and a
technical level, writes through one channel, and has or has not written to support before;
a QA engineer writes from the test pass; an alert has no person behind it. Every phrase the
renderer adds must fit the reporter's and the ticket's tags (`catalogue.Phrase`), so that one
ticket never says both "Hello again" and "This is my first ticket", names two organisations,
or gives browser advice on an Android report. The people and organisations are data
(`data/generator/personas.json`), split into the same partitions as the catalogue.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..catalogue import Defect, Line, Partition
from ..errors import FixtureError
from ..models import ReporterType, Tier
from ..world import DATA_DIR

Channel = Literal["email", "form", "portal", "qa", "alert"]
Temper = Literal["even", "quiet", "pressing", "loud"]
"""How a customer writes, the same in every ticket they send: evenly, playing it down, pressing for
speed, or shouting. One temper per person, so no ticket opens with "no rush" and ends in capitals."""
"""How the ticket arrived: a customer's email, the in-app form or the API portal's form, a QA
run, or an alerting rule."""

SEATS: dict[Tier, tuple[int, int]] = {"free": (1, 10), "pro": (5, 300), "enterprise": (150, 100_000)}
PLAN_NAMES: dict[Tier, str] = {"free": "Free", "pro": "Pro", "enterprise": "Enterprise"}
"""A plan as people and the tracker write it."""
"""Seats an organisation on each plan may have."""

_MEMBERS = re.compile(r"\b(?:more than|above|over) (\d[\d,]*) members\b|\b(\d[\d,]*) members and up\b")
"""A workspace size a defect needs ("workspaces with more than 500 members")."""


_BULK = re.compile(r"\b(?:more than|above|over|of|with) (?:\d{1,3}(?:,\d{3})+|\d{4,}) (?:tasks|rows|items|documents)\b")
"""A bulk of data a defect needs ("projects with more than 10,000 tasks"): an organisation of some size holds it."""
BULK_SEATS = 50
"""Fewest seats of an organisation whose projects hold thousands of tasks (not a choir or a five-person bakery)."""


def seats_needed(texts: Iterable[str]) -> int:
    """The fewest seats a customer's organisation needs to meet a defect told by `texts` (0 for any):
    a charity of nine cannot see what only workspaces of more than 500 members see, nor a choir what only projects
    of more than 10,000 tasks meet."""
    matches = [m for t in texts if " members" in t for m in _MEMBERS.finditer(t)]  # a plain test spares the pattern
    found = [int((m[1] or m[2]).replace(",", "")) + (1 if m[1] else 0) for m in matches]
    if any(_BULK.search(t) for t in texts):
        found.append(BULK_SEATS)
    return max(found, default=0)


_SEATS: dict[str, int] = {}


def defect_seats(defect: Defect) -> int:
    """`seats_needed` for the wordings of `defect` that say who is hit (read once per defect and process)."""
    if defect.id not in _SEATS:
        _SEATS[defect.id] = seats_needed([*defect.segment, *defect.steps, *defect.symptoms])
    return _SEATS[defect.id]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Organisation(_Model):
    """A customer organisation: what it is, its plan and size, and how its people describe it."""

    name: str = Field(min_length=2)
    sector: str = Field(min_length=2)
    partition: Partition
    tier: Tier
    seats: int = Field(ge=1)
    email_domain: str = Field(pattern=r"^[a-z0-9.-]+\.[a-z]{2,}$")
    about: Line
    """One sentence a member might write about the organisation."""

    @model_validator(mode="after")
    def _seats_fit_tier(self) -> Organisation:
        lo, hi = SEATS[self.tier]
        if not lo <= self.seats <= hi:
            raise ValueError(f"{self.name}: {self.seats} seats do not fit the {self.tier} plan ({lo} to {hi})")
        return self


class Role(_Model):
    """A customer's job, and what it says of them."""

    title: str = Field(min_length=2)
    technical: bool
    admin: bool
    volunteer: bool | None = None
    """True: held only in a group run by volunteers (`volunteer`); False: never there (a choir employs no
    developer, its web volunteer looks after Larkspur); None: anywhere."""


class Names(_Model):
    """Names by partition: a split's reporters are named only from its own list."""

    train: list[str] = Field(min_length=2)
    validation: list[str] = Field(min_length=2)
    test: list[str] = Field(min_length=2)

    def of(self, partition: Partition) -> list[str]:
        """The names of one partition."""
        return getattr(self, partition)  # type: ignore[no-any-return]


class PersonaData(_Model):
    """`data/generator/personas.json`."""

    organisations: list[Organisation]
    people: Names
    qa_people: Names
    roles: list[Role] = Field(min_length=2)
    channels: dict[Literal["email", "form", "portal"], float]
    """Share of customer tickets that arrive by each channel."""
    returning: float = Field(ge=0, le=1)
    """Share of customers who have written to support before."""
    nonnative: float = Field(ge=0, le=1)
    """Share of customers who write in a language not their first."""

    @cached_property
    def _organisations_by(self) -> dict[tuple[Partition, Tier], tuple[Organisation, ...]]:
        grouped: dict[tuple[Partition, Tier], list[Organisation]] = {}
        for o in self.organisations:
            grouped.setdefault((o.partition, o.tier), []).append(o)
        return {key: tuple(orgs) for key, orgs in grouped.items()}

    def organisations_of(self, partition: Partition, tier: Tier) -> tuple[Organisation, ...]:
        """The organisations of `partition` on plan `tier`, in file order (grouped once per process)."""
        return self._organisations_by.get((partition, tier), ())

    @cached_property
    def _first_names(self) -> dict[Partition, tuple[tuple[str, str], ...]]:
        return {p: tuple((n, n.split()[0]) for n in self.people.of(p)) for p in ("train", "validation", "test")}

    def people_of(self, partition: Partition) -> tuple[tuple[str, str], ...]:
        """Each name of `partition` with its first name, in file order (split once per process)."""
        return self._first_names[partition]

    @model_validator(mode="after")
    def _every_tier_in_every_partition(self) -> PersonaData:
        for partition in ("train", "validation", "test"):
            for tier in SEATS:
                if not any(o.partition == partition and o.tier == tier for o in self.organisations):
                    raise ValueError(f"no {tier} organisation in the {partition} partition")
        return self


@cache
def load_personas() -> PersonaData:
    """The reporters' data, validated once per process."""
    raw = json.loads((DATA_DIR / "generator" / "personas.json").read_text(encoding="utf-8"))
    try:
        return PersonaData.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise FixtureError(f"generator personas: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from None


@dataclass(frozen=True)
class Persona:
    """The one reporter of a ticket."""

    reporter: ReporterType
    channel: Channel
    name: str = ""
    role: str = ""
    organisation: Organisation | None = None
    technical: bool = True
    admin: bool = False
    returning: bool = False
    again: bool = False
    """Has filed another ticket of this queue already (then neither first contact nor one with history)."""
    nonnative: bool = False
    temper: Temper = "even"

    @property
    def first(self) -> str:
        """The first name, as people sign short notes."""
        return self.name.split()[0] if self.name else ""

    @property
    def seats(self) -> int:
        """People in the reporter's workspace (0 for a reporter who is not a customer)."""
        return self.organisation.seats if self.organisation else 0

    def tags(self) -> frozenset[str]:
        """What phrases may require of, or forbid in, this reporter (see `catalogue.Tag`)."""
        tags = {
            self.reporter if self.reporter != "user" else "customer",
            "again" if self.again else "returning" if self.returning else "first_contact",
        }
        tags.add("technical" if self.technical else "nontechnical")
        if self.admin:
            tags.add("admin")
        if self.nonnative:
            tags.add("nonnative")
        if self.temper in ("pressing", "loud"):
            tags.add("heated")
        if self.channel in ("email", "form"):
            tags.add(self.channel)
        if self.organisation is not None:
            tags.add(self.organisation.tier)
            if self.organisation.seats >= 4:
                tags.add("team")
            if self.organisation.seats >= 150:
                tags.add("large")
            if self.organisation.seats >= IT_STAFF_SEATS:
                tags.add("it_staff")
            tags |= site_tags(self.organisation.sector)
        return frozenset(tags)

    def signature_values(self) -> dict[str, str]:
        """Values a sign-off or introduction may use: {first}, {name}, {role} ({Role} to start a sentence,
        {a_role} with its article: "an IT lead"), {org}, {sector} ({a_sector}), {seats}."""
        org = self.organisation
        return {
            "first": self.first,
            "name": self.name,
            "role": self.role,
            "a_role": with_article(self.role),
            "Role": self.role[:1].upper() + self.role[1:],
            "org": org.name if org else "Larkspur QA",
            "sector": org.sector if org else "test team",
            "a_sector": with_article(org.sector if org else "test team"),
            "seats": str(org.seats) if org else "",
        }


def with_article(noun: str) -> str:
    """`noun` after "a" or "an" as it is said ("an IT distributor", "a university", "an office manager")."""
    spoken_vowel = noun[:1] in "aeioAEIO" or noun.startswith(("IT ", "HR ", "NGO", "MRI", "x-ray"))
    return ("an " if spoken_vowel and not noun.lower().startswith(("uni", "use", "euro", "one")) else "a ") + noun


SOLE_TECHNICAL = 0.5
"""Share of small organisations whose one contact with Larkspur is technical."""


TICKETS_PER_PERSON = 2
"""Most tickets one customer files in a queue (four from one person in three days read as a cast of one)."""


def members_in_a_queue(seats: int) -> int:
    """How many different people of an organisation of `seats` write in within one queue: at a small
    one, the one person who deals with Larkspur (a cast of several reads as made up)."""
    return 1 if seats < 20 else 2 if seats < 150 else 3


IT_STAFF = ("IT lead", "systems administrator")
"""Roles an organisation has only once it is big enough to employ someone for its IT."""
SITES: dict[str, re.Pattern[str]] = {
    "site_hospital": re.compile(r"\bhospital\b"),
    "site_clinic": re.compile(r"\b(?:dental|veterinary|physiotherapy)\b"),
    "site_shop": re.compile(r"\b(?:bakery|shop|store|roastery|framing)\b"),
    "site_warehouse": re.compile(
        r"\b(?:logistics|freight|IT distributor|manufacturer|maker|food bank|department store)\b"
    ),
    "site_fleet": re.compile(r"\b(?:logistics|freight|catering|food bank|facilities)\b"),
    "site_field": re.compile(
        r"\b(?:survey\w*|mapping|maintenance|facilities|renovation|kitchen fitting|utility|electricity)\b"
    ),
    "site_school": re.compile(r"\b(?:school|preschool|university)\b"),
    "site_library": re.compile(r"\blibrary\b"),
    "site_council": re.compile(r"\blocal authority\b"),
    "charity": re.compile(r"\b(?:charity|nonprofit|food bank)\b"),
    "volunteer": re.compile(
        r"\b(?:allotment|beekeeping|choir|community garden|food bank|club|scout|tenants association|volunteer)\b"
    ),
}
"""Places an organisation of a sector has, by the words of its sector: a phrase naming hospital workstations, a
shop's tills, warehouse scanners or delivery drivers requires the place's tag, so that no dental practice writes
from its hospital workstations and no rail contractor from its library computers. `volunteer`: a group run by
volunteers (a club, a choir, an allotment society) has no office, boss or company to speak of; only a `charity` has
trustees."""


@cache
def site_tags(sector: str) -> frozenset[str]:
    """The `SITES` tags of an organisation of `sector` (read once per sector: persona tags ask at every ticket)."""
    return frozenset(tag for tag, words in SITES.items() if words.search(sector))


def organisations_fitting(orgs: Sequence[Organisation], seats: int = 0, workplace: bool = False) -> list[Organisation]:
    """Those of `orgs` a report can come from: a workplace, not a group run by volunteers, when `workplace` (the
    report speaks of clients or staff), and of at least `seats` seats; each condition dropped when none meets it."""
    fits = [o for o in orgs if not (workplace and "volunteer" in site_tags(o.sector))] or list(orgs)
    return [o for o in fits if o.seats >= seats] or fits


IT_STAFF_SEATS = 15
"""Fewest seats of an organisation with an IT lead or a systems administrator (a five-person bakery has neither; its
technical contact is a developer, often the owner's friend who set Larkspur up)."""


WORKPLACE_ROLES = frozenset({"office manager", "operations lead", "team lead"})
"""Jobs of a workplace: a group run by volunteers (`volunteer`) has none of them."""


def seats_fit(role: str, seats: int) -> bool:
    """A founder writes in for a small organisation only; IT staff for one big enough to have them."""
    if role in IT_STAFF:
        return seats >= IT_STAFF_SEATS
    return role != "founder" or seats < 50


class People:
    """The people of one queue: one person per name, and a returning contact is the same person.

    A customer who writes again in the same queue keeps their organisation, role, channel and
    signature; a new customer gets a first name no one else in the queue has (customers, QA and
    support staff apart), so a name never stands for two people. An organisation has as many
    people writing in as its size allows (one for a handful of seats), each admin role held by
    one of them; when every organisation of a plan is full, a known customer writes again. Nobody
    files more than `TICKETS_PER_PERSON` tickets in a queue.
    """

    def __init__(self, partition: Partition, rng: random.Random, taken: set[str] | None = None) -> None:
        self.partition = partition
        self.rng = rng
        self.known: list[Persona] = []
        self.taken: set[str] = set(taken or ())
        """First names already used in the queue, by anyone."""
        self.fresh = [x for x in load_personas().people_of(partition) if x[1] not in self.taken]
        """The (name, first name) pairs of `partition` whose first name no one in the queue has, in file order."""
        self.members: dict[int, int] = {}
        """People of `known` by the `id` of their organisation (one loaded object per organisation)."""
        self.full: set[int] = set()
        """The `id`s of the organisations with as many people writing in as their size allows (`members_in_a_queue`)."""
        self.filed: dict[str, int] = {}
        """Tickets each person of `known` has filed in the queue, by first name."""
        self.phones: dict[str, str] = {}
        """The phone (`ios` or `android`) each person of `known` has reported from, by first name."""

    def draw(
        self,
        reporter: ReporterType,
        tier: Tier,
        technical: bool = False,
        seats: int = 0,
        plain: bool = False,
        not_by: str | None = None,
        workplace: bool = False,
        phone: str | None = None,
    ) -> Persona:
        """The reporter of one ticket: a customer of plan `tier` (technical when `technical`, not technical when
        `plain`: a report that says "I'm not technical"; of an organisation of at least `seats` seats when one has
        them, and a workplace, not a group run by volunteers, when `workplace`: a report that speaks of clients or
        staff; never the known customer of first name `not_by`; on a report from the phone `phone`, `ios` or
        `android`, never one who reported from the other), a QA engineer, or an alert."""
        data = load_personas()
        if reporter == "monitoring":
            return Persona("monitoring", "alert")
        if reporter == "qa":
            return Persona("qa", "qa", name=self.rng.choice(data.qa_people.of(self.partition)), role="QA engineer")
        big = organisations_fitting(data.organisations_of(self.partition, tier), seats, workplace)
        big_ids = {id(o) for o in big}  # each organisation is one loaded object: found by identity
        again = [
            p
            for p in self.known
            if p.organisation is not None
            and id(p.organisation) in big_ids
            and (p.technical or not technical)
            and not (plain and p.technical)
            and self.filed[p.first] < TICKETS_PER_PERSON
            and p.first != not_by
            and (phone is None or self.phones.get(p.first, phone) == phone)
        ]
        fresh, full = self.fresh, self.full
        roomy = [o for o in big if id(o) not in full]
        if again and (not fresh or not roomy or self.rng.random() < data.returning):
            person = self.rng.choice(again)
            self.filed[person.first] += 1
            if phone is not None:
                self.phones[person.first] = phone
            return replace(person, again=True)
        if not fresh:
            raise FixtureError(
                f"generator personas: every {self.partition} name is taken in this queue and no {tier} customer "
                "can write again; add names to `people` in data/generator/personas.json"
            )
        # every one full: the one least over its size, the larger first (a big firm has more people to write)
        orgs = roomy or sorted(big, key=lambda o: (self._members(o) - members_in_a_queue(o.seats), -o.seats))[:1]
        person = self._new(orgs, technical, self.rng.choice(fresh)[0], plain)
        self.known.append(person)
        self.taken.add(person.first)
        self.fresh = [x for x in fresh if x[1] != person.first]
        self.filed[person.first] = 1
        if phone is not None:
            self.phones[person.first] = phone
        if (org := person.organisation) is not None:
            self.members[id(org)] = self._members(org) + 1
            if self._members(org) >= members_in_a_queue(org.seats):
                full.add(id(org))
        return person

    def _members(self, org: Organisation) -> int:
        """People of the queue at `org` (each organisation is one loaded object: found by identity, not
        compared field by field, and counted as people join, not over `known` at each look)."""
        return self.members.get(id(org), 0)

    def _new(self, orgs: list[Organisation], technical: bool, name: str, plain: bool = False) -> Persona:
        data, r = load_personas(), self.rng
        org = r.choice(orgs)
        held = {p.role for p in self.known if p.organisation is org}
        # the one person a small organisation has writing in is often the one who set Larkspur up: half the
        # time a technical one, so a later report on the API has someone there who can write it
        sole = members_in_a_queue(org.seats) == 1 and r.random() < SOLE_TECHNICAL
        volunteers = "volunteer" in site_tags(org.sector)
        fitting = [
            x
            for x in data.roles
            if not (volunteers and x.title in WORKPLACE_ROLES) and x.volunteer in (None, volunteers)
        ]
        roles = [
            x
            for x in fitting
            if (x.technical or not (technical or sole))
            and not (plain and x.technical)
            and not (x.admin and x.title in held)
            and seats_fit(x.title, org.seats)
        ]
        role = r.choice(roles or [x for x in fitting if (x.technical or not technical) and not (plain and x.technical)])
        channels = list(data.channels)
        channel = r.choices(channels, weights=[data.channels[c] for c in channels])[0]
        return Persona(
            "user",
            channel,
            name=name,
            role=role.title,
            organisation=org,
            technical=role.technical,
            admin=role.admin or org.seats < 4,
            returning=r.random() < data.returning,
            nonnative=r.random() < data.nonnative,
        )
