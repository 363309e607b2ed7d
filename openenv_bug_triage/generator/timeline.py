"""One timeline per queue: the release calendar every ticket of the queue speaks of.

The web app ships about every two weeks, the iOS and Android apps about monthly (sometimes
with a patch release a few days later) and the API in weekly builds. The calendar is drawn
from the queue's RNG around the queue's dates, so a ticket can name only releases out when it
was filed: the build it was seen on, "the current release" (the latest one then), and, in
staging or development, a pre-release of the next version, ahead of production.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..chronology import display
from ..models import Environment, Platform, Release
from .facts import INSTALLED

_CADENCE: dict[Platform, tuple[int, int]] = {"web": (12, 16), "api": (6, 8), "ios": (27, 34), "android": (27, 34)}
"""Days between two releases of each platform, drawn uniformly from the range."""
_DEV_BUILD = timedelta(hours=2)
"""How often a dev build of the next version comes out."""
APP_LINE_BEGAN = (2025, 4)
"""The month (year, month) the apps' 5.x line began: 5.8 or 5.9 ships in January 2026, 5.19 or 5.20 in December."""
_PATCH_RATE = 0.35
"""Share of app releases followed by a patch release a few days later."""


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


def draw_timeline(start: datetime, end: datetime, rng: random.Random) -> Timeline:
    """Releases of every platform from before `start` to after `end`, drawn from `rng`.

    Every platform has at least three releases out by `start` and one after `end`.
    """
    out: list[Release] = []
    for platform, (low, high) in _CADENCE.items():
        day = start - timedelta(days=3 * high + rng.randrange(high))
        rng.randrange(9, 14)  # drawn as before (the queue's other draws stay where they were), not used
        minor = 0
        per_month: dict[tuple[int, int], int] = {}
        while day <= end + timedelta(days=2 * high):
            at = _release_time(day, rng)
            if platform in ("web", "api"):
                n = per_month.get((at.year, at.month), 0)
                per_month[(at.year, at.month)] = n + 1
                out.append(Release(platform=platform, version=f"{at.year}.{at.month}.{n}", released_at=at))
            else:  # one app history for every queue: a minor version a month since the 5.0 line began
                # (the first release named by its month, each after it the next minor: none is skipped, and at about
                # a release a month none runs far from its month)
                minor = minor + 1 if minor else (at.year - APP_LINE_BEGAN[0]) * 12 + at.month - APP_LINE_BEGAN[1]
                out.append(Release(platform=platform, version=f"5.{minor}.0", released_at=at))
                if rng.random() < _PATCH_RATE:
                    patch = _release_time(at + timedelta(days=rng.randrange(3, 9)), rng)
                    out.append(Release(platform=platform, version=f"5.{minor}.1", released_at=patch))
            day += timedelta(days=rng.randrange(low, high + 1))
    out.sort(key=lambda r: (r.released_at, r.platform))
    return Timeline(tuple(out))
