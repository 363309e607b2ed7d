"""The live part of a generated queue: reporters who answer, the tracker's history, tickets that arrive.

Drawn after the static queue from the same RNG (a level without `dynamics` never gets here, so its
bytes are as before). Every vague report gets a reporter who, asked, tells the defect behind it: a
catalogue defect of the partition that fits the report (its form's component or one it is often
misfiled under, on the same client) and that no other ticket or tracker entry speaks of; the truth
of the answered ticket is `derive_truth` of what the reply says (symptom, steps and scope). The
backlog is the tracker's history before the queue's start: earlier reports of other defects (open,
fixed in a release of the calendar, closed otherwise), look-alikes of the queue's defects, feature
requests and invalid reports. Some reports of the queue repeat an open backlog entry (their truth
becomes a duplicate of it). The latest reports arrive during the episode.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ..catalogue import Defect, Partition, Story, paying_only
from ..chronology import display
from ..models import InfoItem, LiveQueue, Platform, Release, ReporterReply, Tier, TrackerEntry, Truth
from ..world import World
from . import retell
from .binding import own_text
from .browsers import move_versions
from .comments import fits_clock, record_time, still
from .compose import composed, compositions
from .compose import quiet as shows_no_error
from .facts import PLATFORM_OF, Scope, TicketFacts, derive_truth, scope_options
from .levels import Dynamics
from .notes import note_platform, release_note
from .personas import Persona
from .phrasing import compose
from .plan import Planner, Slot
from .render import Renderer, device_named, own_addresses, platform_of, retime
from .voice import client_tags

ARRIVAL_SHARE = 0.6
"""Arrivals come over roughly this share of the step budget."""
DELAYS: dict[str, tuple[int, int]] = {"pressing": (1, 3), "loud": (1, 4), "even": (2, 8), "quiet": (6, 16)}
"""Queue steps from an ask to the reply, by the reporter's temper (drawn uniformly, both ends included)."""
EXTRAS: dict[InfoItem, float] = {"logs": 0.35, "version": 0.6, "environment": 0.5, "screenshot": 0.4}
"""Share of answering reporters who can also send each item (steps to reproduce they always have)."""
_HOUR = timedelta(hours=1)
_MINUTE = timedelta(minutes=1)
MAX_NOTES = 8
"""Most note lines a release holds (`Release.notes`)."""


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def reserve_replies(planner: Planner, slots: list[Slot], world: World) -> dict[str, tuple[Defect, int]]:
    """The defect behind each vague report of the queue, and the symptom wording its reporter tells it in:
    a defect of the partition that fits the report (its form's component or one it is often misfiled
    under, else the same service), on the same client, that no ticket of the queue speaks of. Drawn
    before the release notes, which then never fix one of them."""
    queue = [d for sl in slots for d in (sl.scenario, sl.second, sl.noted) if isinstance(d, Defect)]
    taken, told = {d.id for d in queue}, {d.feature.lower() for d in queue}
    out: dict[str, tuple[Defect, int]] = {}
    for sl in slots:
        if sl.role != "needs_info":
            continue

        def free(defects: list[Defect], tier: Tier = sl.tier) -> list[Defect]:
            return [
                d
                for d in defects
                if d.id not in taken
                and d.feature.lower() not in told
                and not d.exposure
                and not (tier == "free" and paying_only(d))
                and tier in d.tiers
            ]

        pool = free(planner.defects)
        options = _fitting(sl, pool, world, loose=False) or _fitting(sl, free(_composed(planner.partition)), world)
        options = options or _fitting(sl, pool, world) or _neutral(pool)
        if not options:
            raise ValueError(f"generator catalogue: no {planner.partition} defect left for vague report {sl.ticket_id}")
        d, i = planner.rng.choice(options)
        taken.add(d.id)
        told.add(d.feature.lower())
        out[sl.ticket_id] = (d, i)
    return out


def _composed(partition: Partition) -> list[Defect]:
    """Every composed defect of `partition` (`compose.composed`), for a vague report no catalogue defect fits."""
    return [composed(partition, key) for key in compositions(partition)]


def _fitting(sl: Slot, pool: list[Defect], world: World, loose: bool = True) -> list[tuple[Defect, int]]:
    """(defect, symptom wording) pairs of `pool` that the vague report `sl` can be of, best fit first found:
    its form's component or a misfiled one, else the same service, else (when `loose`) any; always on the
    same client."""
    story = sl.scenario
    assert isinstance(story, Story)
    want = platform_of(sl)
    fits = {story.component, *story.misfiled}
    service = world.service_of[story.component]
    tests: tuple[Callable[[Defect], bool], ...] = (
        lambda d: d.component in fits,
        lambda d: world.service_of[d.component] == service,
        *([lambda d: True] if loose else []),
    )
    for test in tests:
        options = [(d, i) for d in pool if test(d) for i in _variants_on(d, want)]
        if options:
            return options
    return []


_CLIENT_WORDS = re.compile(r"\b(?:browser|page|tab|web|app|iphone|ipad|ios|android|phone|mobile|api|endpoint)\b", re.I)
"""Words that tie a wording to one client."""


def _neutral(pool: list[Defect]) -> list[tuple[Defect, int]]:
    """(defect, wording) pairs of server-side defects told without naming any client: what a vague report
    on a client no free defect of the partition is on can still be of."""
    return [
        (d, i)
        for d in pool
        if d.component not in PLATFORM_OF
        for i, text in enumerate(d.symptoms)
        if not _CLIENT_WORDS.search(text) and not _CLIENT_WORDS.search(" ".join(d.steps))
    ]


def _variants_on(d: Defect, platform: Platform) -> list[int]:
    """The symptom wordings of `d` that speak of `platform`'s client."""
    return [i for i in range(len(d.symptoms)) if platform_of(Slot("defect", d, symptom_variant=i)) == platform]


@dataclass(frozen=True)
class Static:
    """What the static draw left: the plan, the renderer, the records and facts, the release calendar."""

    planner: Planner
    renderer: Renderer
    slots: list[Slot]
    records: list[dict[str, Any]]
    facts: dict[str, TicketFacts]
    personas: dict[str, Persona]
    releases: list[Release]
    base: datetime
    step_budget: int
    reserved: dict[str, tuple[Defect, int]]
    """The defect behind each vague report (`reserve_replies`)."""


class LiveDrawer:
    """Draws one queue's `LiveQueue` from the instance's RNG (after every static draw)."""

    def __init__(self, static: Static, dynamics: Dynamics) -> None:
        self.s = static
        self.dyn = dynamics
        self.r: random.Random = static.planner.rng
        self.world = static.planner.world
        self.by_id = {rec["ticket_id"]: rec for rec in static.records}
        queue_defects = [d for sl in static.slots for d in (sl.scenario, sl.second, sl.noted) if isinstance(d, Defect)]
        self.told = {d.feature.lower() for d in queue_defects}
        """Features a queue ticket speaks of: no reply or tracker entry may read as the same defect."""
        self.taken = {d.id for d in queue_defects} | {d.id for d, _ in static.reserved.values()}
        self.told |= {d.feature.lower() for d, _ in static.reserved.values()}
        self.notes = [" ".join(rel.notes).lower() for rel in static.releases]
        """Each release's notes, read as one text: a tracker entry of a defect they fix was fixed there."""
        self.releases = list(static.releases)
        self.told_facts: dict[str, TicketFacts] = {}
        """The facts each vague report's reply tells, by ticket id."""

    # ---------------------------------------------------------------- the whole draw

    def draw(self) -> tuple[LiveQueue, list[Release], dict[str, TicketFacts]]:
        """The live queue, the release calendar with the notes of fixed tracker entries added, and the
        facts each reply tells (its truth is `derive_truth` of them)."""
        reply_defects = self.s.reserved
        backlog, originals = self._backlog(len(self.s.slots))
        start, step_minutes, arrivals = self._arrivals()
        replies = {tid: self._reply(tid, d, i) for tid, (d, i) in reply_defects.items()} if self.dyn.replies else {}
        if self.dyn.replies:  # every other reporter answers too, as soon or as late: a reply's coming tells nothing
            for rec in self.s.records:
                if rec["ticket_id"] not in replies and rec["reporter_type"] != "monitoring":
                    replies[rec["ticket_id"]] = self._plain_reply(rec["ticket_id"])
        live = LiveQueue(start=start, step_minutes=step_minutes, replies=replies, arrivals=arrivals, backlog=backlog)
        for tid, entry_id in originals.items():  # a report of an open tracker ticket is its duplicate
            f = replace(self.s.facts[tid], duplicate_of=entry_id)
            self.s.facts[tid] = f
            self.by_id[tid]["truth"] = derive_truth(f, self.world)
        return live, self.releases, self.told_facts

    # ---------------------------------------------------------------- replies

    def _reply(self, tid: str, d: Defect, variant: int) -> ReporterReply:
        """How the reporter of vague report `tid` answers: the defect `d` told in their own words."""
        r, rec, rd = self.r, self.by_id[tid], self.s.renderer
        created = _time(rec["created_at"])
        persona = self.s.personas[tid]
        platform = platform_of(Slot("defect", d, symptom_variant=variant))
        rd.created, rd.platform = created, platform
        rd.reported = display(platform, rd.timeline.current(platform, created).version)
        rd.shift = rd._shift_for(d)
        symptom = rd.local(d.symptoms[variant])
        tags = client_tags(PLATFORM_OF.get(d.component), symptom) | {"bug", "production"}
        if platform == "api":
            tags.add("api_calls")
        if shows_no_error(d):
            tags.add("quiet")
        if d.intermittent:
            tags.add("intermittent")
        if d.error_box:
            tags.add("error_box")
        device = device_named(d, variant)
        if device:
            tags.add(device)
        if PLATFORM_OF.get(d.component) in ("ios", "android"):
            tags.add("phone_app")
        voice = rd.voice
        voice.cast(persona, tags)
        voice.platform = platform
        voice.facts = " ".join([symptom, *d.titles])
        scope = self._scope(d)
        said = [symptom]
        support = None
        if scope is not None:
            values = self._scope_values(d, created)
            said.append(voice.pick(voice.scope_pool(f"scope_{scope}"), **voice.own_counts(values)))
            if scope in ("everyone", "segment"):  # how far past their workspace it reaches: support's to say
                support = voice.pick(
                    f"support_scope_{scope}", **{**values, "who": rd._told_otherwise(d, str(values["who"]))}
                )
        style = retell.draw_style(r, qa=False, avoid=None)
        steps = retell.told(style, [rd.local(step) for step in d.steps], voice.pick("steps_header_user"), r)
        repro = f"{voice.pick('reply_repro')} {' '.join(said)}\n\n{steps}"
        has: dict[InfoItem, str] = {"repro": repro}
        log = self._log(d, created) if r.random() < EXTRAS["logs"] else None
        if log is not None:
            has["logs"] = voice.pick("reply_logs")
        # the build the report named, else the one it was filed on (no release note fixes a reply's defect)
        version = (rec["version"] or rd.reported) if r.random() < EXTRAS["version"] else None
        if version is not None:
            has["version"] = voice.pick("reply_version", version=version)
        if r.random() < EXTRAS["environment"]:
            has["environment"] = voice.pick("reply_environment")
        if r.random() < EXTRAS["screenshot"]:
            has["screenshot"] = voice.pick("reply_screenshot")
        noise = voice.noise
        delay = self._delay(persona)
        return ReporterReply(
            author=persona.name or "Reporter",
            delay=delay,
            opener=noise.apply(voice.pick("reply_opener")),
            has={item: self._own(persona, move_versions(noise.apply(text), created)) for item, text in has.items()},
            nothing=noise.apply(voice.pick("reply_nothing")),
            settles=["repro"],
            truth=self.reply_truth(tid, d, scope),
            log_excerpt=self._own_log(persona, move_versions(log, created)) if log else None,
            version=version,
            support=support,
            support_author=r.choice(rd.phrases.pool("comment_author", rd.partition)) if support else None,
        )

    @staticmethod
    def _own(persona: Persona, text: str) -> str:
        """A customer's reply with the catalogue's example addresses and domains made the writer's own."""
        if persona.organisation is None or not persona.name:
            return text
        return own_text(text, persona.organisation.email_domain, persona.name)

    @staticmethod
    def _own_log(persona: Persona, log: str) -> str:
        """A customer's log with the addresses in it at their own organisation's domain."""
        return own_addresses(log, persona.organisation.email_domain) if persona.organisation is not None else log

    def _delay(self, persona: Persona) -> int | None:
        """Queue steps from an ask to the reply, by the reporter's temper; None for one who never answers."""
        low, high = DELAYS.get(persona.temper, DELAYS["even"])
        return None if self.r.random() < self.dyn.never_answer else self.r.randint(low, high)

    def _plain_reply(self, tid: str) -> ReporterReply:
        """How the reporter of a ticket that needs nothing more answers a request: in their own voice, with
        what they can add (the build, that it is their live account, a screenshot) and nothing that changes
        the ticket. They answer as soon or as late as a vague report's reporter of their temper, or never."""
        r, rec, rd = self.r, self.by_id[tid], self.s.renderer
        persona = self.s.personas[tid]
        production = rec["environment"] == "production"
        voice = rd.voice
        voice.cast(persona, {"production" if production else "prerelease"})
        has: dict[InfoItem, str] = {}
        version = rec["version"] if rec["version"] and r.random() < EXTRAS["version"] else None
        if version is not None:
            has["version"] = voice.pick("reply_version", version=version)
        if persona.reporter == "user":  # a tester's report already says where it ran
            if production and r.random() < EXTRAS["environment"]:
                has["environment"] = voice.pick("reply_environment")
            if r.random() < EXTRAS["screenshot"]:
                has["screenshot"] = voice.pick("reply_screenshot")
        noise = voice.noise
        return ReporterReply(
            author=persona.name or "Reporter",
            delay=self._delay(persona),
            opener=noise.apply(voice.pick("reply_opener")),
            has={item: noise.apply(text) for item, text in has.items()},
            nothing=noise.apply(voice.pick("reply_nothing")),
            version=version,
        )

    def reply_truth(self, tid: str, d: Defect, scope: Scope | None) -> Truth:
        """The truth of vague report `tid` once its reporter has told defect `d` with `scope`."""
        rec = self.by_id[tid]
        tier: Tier = rec["customer_tier"]
        facts = TicketFacts(
            ticket_id=tid,
            kind="defect",
            scenario=d.id,
            component=d.component,
            environment=rec["environment"],
            tier=tier,
            reporter="user",
            impact=d.impact,
            scope=scope,
            repro=True,
        )
        self.told_facts[tid] = facts
        return derive_truth(facts, self.world)

    def _scope(self, d: Defect) -> Scope | None:
        """The scope a production report of `d` states, as the static draw chooses it."""
        options = scope_options(d)
        return self.r.choice(options) if options and (d.impact != "cosmetic" or self.r.random() < 0.5) else None

    def _scope_values(self, d: Defect, created: datetime) -> dict[str, object]:
        """Who is hit, the rate, the onset and the counts a reply's scope sentence (and support's note) may state."""
        r, rd = self.r, self.s.renderer
        onset = created - timedelta(minutes=r.randrange(30, 600))
        return {
            "feature": rd.local(d.feature),
            "who": compose(rd.local(r.choice(d.segment)), r) if d.segment else "",
            "workaround": rd.local(r.choice(d.workaround)) if d.workaround else "",
            "pct": r.randrange(8, 51),
            "time": f"{onset:%H:%M} UTC",
            "onset": onset,
            "m": r.randrange(12, 400),
            "n": r.randrange(1, 4),
        }

    def _log(self, d: Defect, created: datetime) -> str | None:
        """A log excerpt of `d` no ticket of the queue pasted, its lines before the report was filed."""
        rd = self.s.renderer
        fresh = [i for i in range(len(d.logs)) if (d.id, i) not in rd.used_logs]
        if not fresh:
            return None
        i = self.r.choice(fresh)
        rd.used_logs.add((d.id, i))
        last = created - timedelta(minutes=self.r.randrange(1, 40))
        onset = last - timedelta(minutes=self.r.randrange(5, 120))
        return retime(rd.local(d.logs[i]), last, onset, jitter_ms=self.r.randrange(1, 1000), filed=created)

    # ---------------------------------------------------------------- backlog

    def _backlog(self, queue_size: int) -> tuple[list[TrackerEntry], dict[str, str]]:
        """The tracker's history, and which queue reports repeat which of its open entries."""
        r = self.r
        low = max(
            min(rel.released_at for rel in self.s.renderer.timeline.releases if rel.platform == p)
            for p in PLATFORM_OF.values()
        )
        low += timedelta(days=1)
        high = self.s.base - timedelta(days=1)
        drafts: list[dict[str, Any]] = []
        repeated: list[Slot] = []
        for sl in self._repeated():
            if len(repeated) == self.dyn.backlog_duplicates:
                break
            assert isinstance(sl.scenario, Defect)
            entry = self._defect_entry(sl.scenario, low, high, "open", avoid=sl)
            if entry is not None and entry["status"] == "open":  # else the notes fix it: no open ticket to repeat
                repeated.append(sl)
                drafts.append(entry)
        planner = self.s.planner
        free = [
            d
            for d in planner.defects
            if d.id not in self.taken and d.feature.lower() not in self.told and not d.exposure
        ]
        families = {sl.scenario.family for sl in self.s.slots if isinstance(sl.scenario, Defect) and sl.scenario.family}
        lookalikes = [d for d in free if d.family in families]
        rest = [d for d in free if d.family not in families]
        r.shuffle(lookalikes)
        r.shuffle(rest)
        stories = [st for st in planner.features if st.id not in {sl.scenario.id for sl in self.s.slots}]
        invalid = [st for st in planner.invalid if st.id not in {sl.scenario.id for sl in self.s.slots}]
        r.shuffle(stories)
        r.shuffle(invalid)
        for d in [*lookalikes, *rest]:
            if len(drafts) >= self.dyn.backlog:
                break
            x = r.random()
            status = "open" if x < 0.4 else "fixed" if x < 0.75 else "cannot_reproduce" if x < 0.88 else "won't_fix"
            entry = self._defect_entry(d, low, high, status)
            if entry is None:
                continue
            drafts.append(entry)
            if r.random() < 0.25 and len(drafts) < self.dyn.backlog:  # reported again, closed as its duplicate
                again = self._defect_entry(d, entry["created_at"] + _HOUR, high, "duplicate")
                drafts += [again] if again is not None else []
            if r.random() < 0.4 and stories and len(drafts) < self.dyn.backlog:
                drafts.append(self._story_entry(stories.pop(), low, high, "feature"))
            if r.random() < 0.3 and invalid and len(drafts) < self.dyn.backlog:
                drafts.append(self._story_entry(invalid.pop(), low, high, "invalid"))
        while len(drafts) < self.dyn.backlog and (stories or invalid):
            kind = "feature" if stories and (not invalid or r.random() < 0.6) else "invalid"
            drafts.append(self._story_entry((stories if kind == "feature" else invalid).pop(), low, high, kind))
        told = [e for e in drafts if e.get("_defect") is not None and e.get("_of") is None]
        r.shuffle(told)
        for e in told:  # short of material: more defects reported again, closed as duplicates
            if len(drafts) >= self.dyn.backlog:
                break
            again = self._defect_entry(e["_defect"], e["created_at"] + _HOUR, high, "duplicate")
            drafts += [again] if again is not None else []
        drafts.sort(key=lambda e: (e["created_at"], e["title"]))
        first = min(int(rec["ticket_id"].split("-")[1]) for rec in self.s.records)
        numbers = sorted(r.sample(range(max(1, first - 40 * len(drafts)), first), len(drafts)))
        for e, n in zip(drafts, numbers, strict=True):
            e["ticket_id"] = f"LRK-{n}"
        originals = {sl.ticket_id: next(e["ticket_id"] for e in drafts if e.get("_of") == id(sl)) for sl in repeated}
        entries = [TrackerEntry.model_validate({k: v for k, v in e.items() if not k.startswith("_")}) for e in drafts]
        return entries, originals

    def _repeated(self) -> list[Slot]:
        """The queue reports that may repeat an earlier, still open tracker ticket, in the order to try them:
        a report (a customer's first) of a bug to fix in production, of a defect no other queue ticket
        reports, without a twist of its own."""
        dependents = {id(sl.original) for sl in self.s.slots if sl.original is not None}
        options = [
            sl
            for sl in self.s.slots
            if sl.role in ("fix", "near")
            and isinstance(sl.scenario, Defect)
            and id(sl) not in dependents
            and not sl.monitoring
            and sl.environment == "production"
            and sl.case is None
            and sl.release_note is None
            and sl.exposure_trap is None
            and self.by_id[sl.ticket_id]["reporter_type"] != "monitoring"
        ]
        self.r.shuffle(options)  # a customer's first, then the milder: a defect open for weeks is rarely an outage
        return sorted(options, key=lambda sl: (self.by_id[sl.ticket_id]["reporter_type"] != "user", _critical(sl)))

    def _defect_entry(
        self, d: Defect, low: datetime, high: datetime, status: str, avoid: Slot | None = None
    ) -> dict[str, Any] | None:
        """A tracker entry of `d` filed between `low` and `high`; `avoid`: the queue report that repeats it,
        whose title and symptom wordings (and long sentences) the entry does not use. A defect the release
        notes already fix is an entry fixed in that release, filed before it (None when there is no room)."""
        r, rd = self.r, self.s.renderer
        noted = next((i for i, text in enumerate(self.notes) if d.feature.lower() in text), None)
        if noted is not None:  # filed before the fix shipped (a duplicate of it too), which shipped before the queue
            if self.releases[noted].released_at > high:
                return None
            high = min(high, self.releases[noted].released_at - timedelta(days=1))
            status = status if status == "duplicate" else "fixed"
        if high <= low:
            return None
        created = low + timedelta(minutes=r.randrange(max(1, int((high - low).total_seconds() // 60))))
        titles = [i for i in range(len(d.titles)) if avoid is None or i != avoid.title_variant]
        symptoms = [i for i in range(len(d.symptoms)) if avoid is None or i != avoid.symptom_variant]
        if avoid is not None:
            said = retell.long_sentences(self.by_id[avoid.ticket_id]["description"])
            symptoms = [i for i in symptoms if not retell.long_sentences(d.symptoms[i]) & said] or symptoms
        variant = r.choice(symptoms)
        platform = platform_of(Slot("defect", d, symptom_variant=variant))
        rd.created, rd.platform = created, platform
        rd.reported = display(platform, rd.timeline.current(platform, created).version)
        rd.shift = rd._shift_for(d)
        entry: dict[str, Any] = {
            "title": rd.local(d.titles[r.choice(titles)]),
            "summary": rd.local(d.symptoms[variant]),
            "component": d.component,
            "status": "open",
            "created_at": created,
            "updated_at": min(high, created + timedelta(minutes=r.randrange(5, 3 * 24 * 60))),
            "_of": id(avoid) if avoid is not None else None,
            "_defect": d,
        }
        if status == "fixed" and not self._fix(entry, d, noted):
            status = "open"
        if status != "open":
            entry["status"] = "closed"
            entry.setdefault("resolution", status)
        entry["updated_at"] = max(entry["updated_at"], created)
        return entry

    def _fix(self, entry: dict[str, Any], d: Defect, noted: int | None) -> bool:
        """Close `entry` as fixed: in release `noted` whose notes fix `d`, else in a release of `d`'s platform
        out between its filing and the queue, given a note line for it; False when no release has room."""
        if noted is None:
            platform = note_platform(d)
            options = [
                i
                for i, rel in enumerate(self.releases)
                if rel.platform == platform
                and entry["created_at"] < rel.released_at <= self.s.base - timedelta(days=1)
                and len(rel.notes) < MAX_NOTES
            ]
            if not options:
                return False
            noted = self.r.choice(options)
            rel = self.releases[noted]
            line = release_note(self.s.planner.phrases, self.s.planner.partition, self.r, d.feature)
            self.releases[noted] = rel.model_copy(update={"notes": [*rel.notes, line]})
            self.notes[noted] += " " + line.lower()
        rel = self.releases[noted]
        entry.update(resolution="fixed", fixed_in=rel.version, updated_at=rel.released_at)
        return True

    def _story_entry(self, st: Story, low: datetime, high: datetime, kind: str) -> dict[str, Any]:
        """A feature request (open, or closed as won't fix) or an invalid report (closed) in the tracker."""
        r, rd = self.r, self.s.renderer
        created = low + timedelta(minutes=r.randrange(max(1, int((high - low).total_seconds() // 60))))
        rd.created, rd.platform = created, "web"
        rd.reported = display("web", rd.timeline.current("web", created).version)
        rd.shift = rd._shift_for(st)
        closed = kind == "invalid" or r.random() < 0.3
        return {
            "title": rd.local(r.choice(st.titles)),
            "summary": rd.local(r.choice(st.texts)),
            "component": st.component,
            "status": "closed" if closed else "open",
            "resolution": ("invalid" if kind == "invalid" else "won't_fix") if closed else None,
            "created_at": created,
            "updated_at": min(high, created + timedelta(minutes=r.randrange(5, 7 * 24 * 60))),
        }

    # ---------------------------------------------------------------- arrivals

    def _arrivals(self) -> tuple[datetime, int, dict[str, int]]:
        """The queue's start, its minutes per step, and the latest reports as arrivals during the episode.

        Arrivals are the latest reports (an original always comes before its duplicates, so none arrives
        after a duplicate there at reset); the start comes after every report there at reset, and the
        arrival steps spread over `ARRIVAL_SHARE` of the budget, each report filed during the step before
        it shows. Comments are moved earlier to fit: a reset ticket's before the start, an arriving one's
        before it arrives (none is seen before it is written).
        """
        r = self.r
        ordered = sorted(self.s.records, key=lambda rec: (rec["created_at"], rec["ticket_id"]))
        k = min(self.dyn.arrivals, len(ordered) - 1)
        while k > 0 and _time(ordered[-k]["created_at"]) - _time(ordered[-k - 1]["created_at"]) < 2 * _MINUTE:
            k -= 1  # filed within a minute of the last report there at reset: there at reset too
        at_reset, late = ordered[: len(ordered) - k], ordered[len(ordered) - k :]
        last = _time(at_reset[-1]["created_at"])
        room = int((_time(late[0]["created_at"]) - last) / _MINUTE) if late else 60
        start = last + r.randrange(1, min(room, 30)) * _MINUTE
        for rec in at_reset:
            _fit_comments(rec, start, self._still)
        if not late:
            return start, 10, {}
        span = (_time(late[-1]["created_at"]) - start).total_seconds() / 60 + 1
        step_minutes = min(240, max(1, math.ceil(span / (ARRIVAL_SHARE * self.s.step_budget))))
        arrivals: dict[str, int] = {}
        for rec in late:
            shown = _time(rec["created_at"]) + timedelta(minutes=1)  # a report shows a minute after it is filed
            arrivals[rec["ticket_id"]] = math.ceil((shown - start).total_seconds() / 60 / step_minutes)
            _fit_comments(rec, start + timedelta(minutes=arrivals[rec["ticket_id"]] * step_minutes), self._still)
        return start, step_minutes, arrivals

    def _still(self, text: str, filed: datetime, at: datetime) -> str:
        """A reporter's "it still happens" `text` in words that fit a comment written at `at`; any other
        comment (a retest that settles the ticket) as it is."""
        if text not in self.s.renderer.phrases.pool("comment_still_reporter", self.s.planner.partition):
            return text
        return still(self.s.renderer, filed, at)


def _critical(sl: Slot) -> bool:
    return isinstance(sl.scenario, Defect) and sl.scenario.impact == "critical"


def _fit_comments(rec: dict[str, Any], by: datetime, reword: Callable[[str, datetime, datetime], str]) -> None:
    """Move the comments of `rec` written after `by` to minutes between the last earlier one and `by`
    (oldest first, one minute apart where there is room): nobody sees a comment before it is written.
    A reporter's comment whose clock words no longer fit its new time ("again after lunch" at 03:00) is
    worded anew by `reword(text, filed, at)`."""
    comments = rec["comments"]
    early = [c for c in comments if _time(c["time"]) < by]
    moved = comments[len(early) :]
    if not moved:
        return
    filed = _time(rec["created_at"])
    after = _time(early[-1]["time"] if early else rec["created_at"])
    room = max(1, int((by - after).total_seconds() // 60))
    for n, c in enumerate(moved, 1):
        at = after + timedelta(minutes=max(1, room * n // (len(moved) + 1)))
        c["time"] = record_time(at)
        if c["role"] == "reporter" and not fits_clock(c["text"], filed, at):
            c["text"] = reword(c["text"], filed, at)


def draw_live(static: Static, dynamics: Dynamics) -> tuple[LiveQueue, list[Release], dict[str, TicketFacts]]:
    """The live queue of an instance (`LiveDrawer`), its release calendar with the tracker's fixes noted,
    and the facts each reply tells."""
    return LiveDrawer(static, dynamics).draw()
