"""Release notes: the "Fixed: ..." lines of the queue's release calendar, and the reports told against them.

A hard kind: a customer reports, on a build older than the release whose notes fix exactly
that defect, the symptom the note describes in other words; by `rules.fixed_by_release` it is
resolved. Its decoys are told the same way, a customer naming the build they are on:
`similar`, an old build and a note that fixes a look-alike defect of the same family (still a
bug to fix), and `not_held`, a build as new as the fixing release or newer (the fix did not
hold: a regression to fix). Every other line of the notes fixes a defect of the partition that
no ticket of the queue reports, so a note alone settles nothing.

A note line (phrase pool `release_note`) names the feature a defect broke, never a ticket; the
sentence naming the build comes from the pool `build_named`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from .. import rules
from ..catalogue import Defect, Partition, Phrases
from ..chronology import display
from ..models import Platform, Release
from .facts import INSTALLED, PLATFORM_OF
from .kinds import Drawer, SlotLike, Teller, take_out
from .phrasing import compose
from .timeline import Timeline

NOTE_KINDS: tuple[str, ...] = ("fixed", "similar", "not_held")
"""How a report is told against the notes: fixed after its build, a look-alike fixed, or a fix that did not hold."""

NOTES_PER_RELEASE = (1, 3)
"""Each release's notes hold at least the first and fewer than the second number of lines."""


def note_platform(d: Defect) -> Platform:
    """The platform whose release ships a fix of `d`: its client's, or the API build for a server-side defect."""
    return PLATFORM_OF.get(d.component, "api")


def assign_release_notes(planner: Drawer, slots: Sequence[SlotLike], defects: list[Defect]) -> None:
    """Draw which customer reports of a bug to fix are told against the release notes, and how.

    Only a customer's own production report of an app's defect (`INSTALLED`: the one client that
    can be behind a release) with no other case, no
    duplicate and no exposure is told so; a `fixed` one becomes a report to close as resolved.
    A `similar` decoy takes its look-alike (a defect of the same family, else another of the
    same component) from the planner's remaining `defects`.
    """
    r, rate = planner.rng, planner.level.rates.fixed_release
    if rate == 0:
        return
    reported_again = {id(s.original) for s in slots if s.original is not None}
    for s in slots:
        d = s.scenario
        if not (
            isinstance(d, Defect)
            and s.role == "fix"
            and s.case is None
            and not s.monitoring
            and s.exposure_trap is None
            and not d.exposure
            and s.environment == "production"
            and PLATFORM_OF.get(d.component) in INSTALLED  # a hosted client is never behind a release
            and id(s) not in reported_again
        ):
            continue
        if not r.random() < rate:
            continue
        kind = r.choice(NOTE_KINDS)
        if kind == "similar":
            others = [x for x in defects if x.feature.lower() != d.feature.lower() and not x.exposure]
            alike = [x for x in others if x.family is not None and x.family == d.family and x.component != d.component]
            alike = alike or [x for x in others if x.component == d.component]
            if alike:
                s.noted = r.choice(alike)
                take_out(defects, s.noted)
            else:
                kind = "fixed"
        s.release_note = kind
        if kind == "fixed":
            s.role = "fixed_release"


def tell(renderer: Teller, timeline: Timeline, s: SlotLike, notes: dict[tuple[Platform, str], list[str]]) -> bool:
    """Place the release note a slot is told against in `notes` and say whether it settles the report.

    The renderer has drawn the build the report speaks of (`renderer.reported`): old for
    `fixed` and `similar`, any for `not_held`, whose note then goes to that build's release or
    one before it. Returns `rules.fixed_by_release` for the report's own defect.
    """
    d = s.scenario
    assert isinstance(d, Defect) and s.release_note is not None
    r, platform, created = renderer.r, note_platform(d), renderer.created
    live = timeline.live(platform, created)
    build = next(rel for rel in live if display(platform, rel.version) == renderer.reported)
    current = live[-1]
    fix: Release | None
    if s.release_note == "fixed":
        fix = r.choice([rel for rel in live if build.released_at < rel.released_at])
        _add(notes, fix, note_line(renderer, renderer.local(d.feature)))
    elif s.release_note == "not_held":
        fix = r.choice([rel for rel in live if rel.released_at <= build.released_at][-3:])
        _add(notes, fix, note_line(renderer, renderer.local(d.feature)))
    else:
        assert s.noted is not None
        other = timeline.live(note_platform(s.noted), created)
        later = [rel for rel in other if rel.released_at > build.released_at] or other[-1:]
        _add(notes, r.choice(later), note_line(renderer, renderer.local(s.noted.feature)))
        fix = None
    return rules.fixed_by_release(build.released_at, fix.released_at if fix else None, current.released_at)


def build_lines(renderer: Teller, s: SlotLike, evidence: list[tuple[str, str]], traps: list[str]) -> list[str]:
    """The sentence naming the build of a report told against the notes, recorded as evidence and as a trap."""
    if s.release_note is None:
        return []
    line = renderer.pick("build_named", version=renderer.reported)
    evidence.append(("fixed_in_release" if s.release_note == "fixed" else "build", line))
    traps.append(f"release_note:{s.release_note}")
    return [line]


def note_line(renderer: Teller, feature: str) -> str:
    """One release-note line, in the words of the renderer's partition, fixing the defect that broke `feature`."""
    return release_note(renderer.phrases, renderer.partition, renderer.r, feature)


def release_note(phrases: Phrases, partition: Partition, rng: random.Random, feature: str) -> str:
    """A release-note line of `partition` fixing what broke `feature` (a frame of the pool `release_note`)."""
    return compose(rng.choice(phrases.pool("release_note", partition)), rng).format(feature=feature)


def _add(notes: dict[tuple[Platform, str], list[str]], release: Release, line: str) -> None:
    notes.setdefault((release.platform, release.version), []).append(line)


_SWEEPING = re.compile(r"\b(?:anything|anywhere|Larkspur|tasks and documents)\b")
"""A feature that names no feature ("loading and saving anything in Larkspur"): fixed in a release's notes, it reads
as a catch-all ("Fixed an issue affecting loading and saving anything in Larkspur")."""


def annotate(
    releases: Sequence[Release],
    notes: dict[tuple[Platform, str], list[str]],
    unused: Sequence[Defect],
    phrases: Phrases,
    partition: Partition,
    rng: random.Random,
) -> list[Release]:
    """The releases with their notes: the lines placed for reports, then lines fixing `unused` defects.

    `unused` are the partition's defects no ticket of the queue reports; each is fixed at most
    once, in a release of its platform, until they run out.
    """
    pool: dict[Platform, list[Defect]] = {}
    for d in unused:
        if _SWEEPING.search(d.feature):  # a platform-wide outage is an incident, not a line of a release's notes
            continue
        pool.setdefault(note_platform(d), []).append(d)
    for defects in pool.values():
        rng.shuffle(defects)
    out: list[Release] = []
    for rel in releases:
        lines = list(notes.get((rel.platform, rel.version), []))
        spare = pool.get(rel.platform, [])
        for _ in range(max(0, rng.randrange(*NOTES_PER_RELEASE) - len(lines))):
            if spare:
                lines.append(release_note(phrases, partition, rng, spare.pop().feature))
        rng.shuffle(lines)
        out.append(rel.model_copy(update={"notes": lines}))
    return out
