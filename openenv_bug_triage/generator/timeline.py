"""One product history, and each queue's calendar from it: the releases every ticket of a queue speaks of.

The web app ships about every two weeks, the iOS and Android apps about monthly (sometimes
with a patch release a few days later) and the API in weekly builds. The history is drawn once,
from a fixed seed, so every queue that names a release names it with the same date (ticket
numbers rise with time across queues too, and a reader who compares two queues reads one
product); a queue's calendar is the stretch of it around the queue's dates, so a ticket can name
only releases out when it was filed: the build it was seen on, "the current release" (the
latest one then), and, in staging or development, a pre-release of the next version, ahead of
production. Release notes are the queue's own (`notes`).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache

from ..chronology import display
from ..models import Environment, Platform, Release
from .facts import INSTALLED

_CADENCE: dict[Platform, tuple[int, int]] = {"web": (12, 16), "api": (6, 8), "ios": (27, 34), "android": (27, 34)}
"""Days between two releases of each platform, drawn uniformly from the range."""
_DEV_BUILD = timedelta(hours=2)
"""How often a dev build of the next version comes out."""
_PATCH_RATE = 0.35
"""Share of app releases followed by a patch release a few days later."""
HISTORY = (datetime(2025, 4, 1, tzinfo=UTC), datetime(2027, 6, 1, tzinfo=UTC))
"""The stretch the product history covers: from the month the apps' 5.x line began to well after the last queue."""
_BEFORE = 3.5
"""How far before a queue its calendar reaches, in each platform's longest gap between releases: three releases or
more of every platform are out by its start."""
_AFTER = 2
"""How far after a queue its calendar reaches, in the same gaps: each platform's next release after it, and the one
after that."""


@dataclass(frozen=True)
class Timeline:
    """Every release of every platform from before the queue to after it, oldest first."""

    releases: tuple[Release, ...]
    _by_platform: dict[Platform, tuple[list[datetime], list[Release]]] = field(init=False, repr=False, compare=False)
    """Each platform's releases, oldest first, beside their times (searched by bisection)."""

    def __post_init__(self) -> None:
        index: dict[Platform, tuple[list[datetime], list[Release]]] = {}
        for r in self.releases:
            times, releases = index.setdefault(r.platform, ([], []))
            times.append(r.released_at)
            releases.append(r)
        object.__setattr__(self, "_by_platform", index)

    def _out_by(self, platform: Platform, at: datetime) -> tuple[list[Release], int]:
        """`platform`'s releases, oldest first, and how many of them are out by `at`."""
        times, releases = self._by_platform.get(platform, ([], []))
        return releases, bisect_right(times, at)

    def live(self, platform: Platform, at: datetime) -> list[Release]:
        """Releases of `platform` out by `at`, oldest first."""
        releases, n = self._out_by(platform, at)
        return releases[:n]

    def current(self, platform: Platform, at: datetime) -> Release:
        """The latest release of `platform` out by `at`: its current release then."""
        releases, n = self._out_by(platform, at)
        if n == 0:
            raise IndexError(f"no {platform} release is out by {at}")
        return releases[n - 1]

    def upcoming(self, platform: Platform, at: datetime) -> Release:
        """The first release of `platform` after `at`: what staging and development are building."""
        releases, n = self._out_by(platform, at)
        if n == len(releases):
            raise ValueError(f"no {platform} release after {at}")
        return releases[n]

    def until(self, at: datetime) -> list[Release]:
        """Every release out by `at`, oldest first: the calendar an agent sees."""
        return [r for r in self.releases if r.released_at <= at]

    def reported(
        self, platform: Platform, at: datetime, environment: Environment, older: bool, rng: random.Random
    ) -> str:
        """The version a report filed at `at` was seen on, as it names it.

        In production the hosted web app and API are whatever is deployed: the current release.
        An installed app is mostly the current release, sometimes one or two before it, and always
        an earlier one when `older` (a report the current release since fixed); in staging a release candidate of the next
        version and in development a dev build of the version after it (main moves on once a release is cut),
        numbered by the time since the current release, so later reports name later builds.
        """
        if environment != "production":
            # staging runs the next release's candidates; development is already on the one after it
            releases, n = self._out_by(platform, at)
            ahead = n + 1 if environment == "development" and n + 1 < len(releases) else n
            if ahead == len(releases):
                raise ValueError(f"no {platform} release after {at}")
            nxt = releases[ahead].version
            since = at - self.current(platform, at).released_at
            suffix = f"-rc.{1 + since.days // 3}" if environment == "staging" else f"-dev.{2 + since // _DEV_BUILD}"
            return display(platform, nxt + suffix)
        live = self.live(platform, at)
        if platform not in INSTALLED:
            return display(platform, live[-1].version)
        if older:
            return display(platform, rng.choice(live[-3:-1]).version)
        x = rng.random()
        back = 0 if x < 0.6 else 1 if x < 0.9 else 2
        return display(platform, live[-1 - back].version)


def _release_time(day: datetime, rng: random.Random) -> datetime:
    """A working-hours moment of `day` (UTC), or of the Monday after when `day` falls on a weekend: nobody ships a
    release on a Saturday or a Sunday."""
    if day.weekday() >= 5:
        day += timedelta(days=7 - day.weekday())
    return day.replace(hour=rng.randrange(8, 17), minute=rng.randrange(60), second=0, microsecond=0)


@cache
def product_history() -> tuple[Release, ...]:
    """Every release of every platform over `HISTORY`, oldest first, drawn once from a fixed seed."""
    rng = random.Random("larkspur product history")
    start, end = HISTORY
    out: list[Release] = []
    for platform, (low, high) in _CADENCE.items():
        day = start + timedelta(days=rng.randrange(low))
        minor = 0  # the apps' 5.x line: a minor version a release, 5.0 in the month the line began
        per_month: dict[tuple[int, int], int] = {}
        while day <= end:
            at = _release_time(day, rng)
            if platform in ("web", "api"):
                n = per_month.get((at.year, at.month), 0)
                per_month[(at.year, at.month)] = n + 1
                out.append(Release(platform=platform, version=f"{at.year}.{at.month}.{n}", released_at=at))
            else:
                out.append(Release(platform=platform, version=f"5.{minor}.0", released_at=at))
                if rng.random() < _PATCH_RATE:
                    patch = _release_time(at + timedelta(days=rng.randrange(3, 9)), rng)
                    out.append(Release(platform=platform, version=f"5.{minor}.1", released_at=patch))
                minor += 1
            day += timedelta(days=rng.randrange(low, high + 1))
    out.sort(key=lambda r: (r.released_at, r.platform))
    return tuple(out)


def calendar_for(start: datetime, end: datetime) -> Timeline:
    """The releases of the product history from well before `start` to well after `end`: every platform has at
    least three releases out by `start` and one after `end`."""
    reach = {
        p: (start - timedelta(days=_BEFORE * high), end + timedelta(days=_AFTER * high))
        for p, (_, high) in _CADENCE.items()
    }
    if min(lo for lo, _ in reach.values()) < HISTORY[0] or max(hi for _, hi in reach.values()) > HISTORY[1]:
        raise ValueError(f"a queue from {start} to {end} lies outside the product history {HISTORY}")
    return Timeline(
        tuple(r for r in product_history() if reach[r.platform][0] <= r.released_at <= reach[r.platform][1])
    )
