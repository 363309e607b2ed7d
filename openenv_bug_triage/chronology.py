"""Dates, weekdays and release versions named in ticket text, and whether they agree with when it was filed.

A ticket cannot quote a log line written after it was filed, name a release that was not out
yet, or call a date by another weekday. `problems` finds such slips in one piece of text (the
fixture checks in `tasks.py` run it on every ticket, fixed or generated), and `shift_dates`
moves every date in a text by whole days (the generator uses it to set a scenario's logs
shortly before the ticket that quotes them). Both read dates with the same patterns.

What counts as a date: ISO dates and timestamps (`2026-11-12`, `2026-11-12T09:14:03.221Z`,
`2026-11-12 09:14:03 UTC`), dated deploy tags (`mailer-2026.11.13-1`, `doc-service 2026.11.13-2`) and day-month dates
(`1 November`, `Nov 13`), the latter of the latest year that does not put them after the
ticket. What counts as a version: Larkspur's calendar versions (`web 2026.11.2`, `API v2
build 2026.3.1`, released in the month they name) and app versions after a word that says so
(`app 5.14.0`, `larkspur-android 5.14.0`); a suffix `-rc.1`, `-rc1`, `-dev.2` or `-beta` marks a build
not yet released.

`late` is the one definition of "later than the ticket": a timestamp after the minute it was
filed, a date after its day, or a final version not released by then. A staging or development
build (`2026.11.0-rc.2`) of a version still to come is ahead of production, not late. The
loader's check (`problems`) and the realism measure (`textstats.anachronisms`) both use it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Literal, NamedTuple

from .models import Platform, Release

_DIGIT = re.compile(r"\d")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_OF = {m.lower(): i for i, m in enumerate(MONTHS, 1)} | {m[:3].lower(): i for i, m in enumerate(MONTHS, 1)}
_MONTH_OF["sept"] = 9
_MONTH = r"(?P<month>" + "|".join([*MONTHS, "Sept", *(m[:3] for m in MONTHS)]) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"

ISO = re.compile(
    r"(?P<y>20(?<!\d20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)"
    r"(?:[T ](?P<H>\d\d):(?P<M>\d\d)(?::(?P<S>\d\d)(?:\.\d+)?(?P<tz>Z|[+-]\d\d:\d\d)?)?)?(?![\d])"
)
"""An ISO date, with its time of day when given (UTC unless an offset follows the seconds)."""
DEPLOY_TAG = re.compile(r"(?P<y>20(?<=[-\s]20)\d\d)\.(?P<m>\d\d)\.(?P<d>\d\d)(?=-\d)")
"""The date in a deploy tag such as `gw-2026.11.10-1` or `policy bundle 2026.11.19-2`."""
_DEPLOY_HINT = re.compile(r"20\d\d\.\d\d\.\d\d-\d")
"""A quick test for a deploy tag before the full pattern (it starts with a literal, which the regex engine
finds fast: a pattern starting with a class of characters is tried at every position, ten times slower)."""
MIGRATION = re.compile(r"(?<![\w])(?P<y>20\d\d)_(?P<m>\d\d)_(?P<d>\d\d)_(?=[a-z])")
"""The date a database migration is named by: `2026_11_19_add_task_archived_at`."""
_MIGRATION_HINT = re.compile(r"20\d\d_\d\d_\d\d_")
"""A quick test for a migration date before the full pattern."""
LOGCAT = re.compile(
    r"^(?P<m>[01]\d)-(?P<d>[0-3]\d) (?P<H>[0-2]\d):(?P<M>[0-5]\d):(?P<S>[0-5]\d)(?P<frac>\.\d+)?(?=\s)", re.M
)
"""Android logcat's short stamp at the start of a line, `11-20 09:12:02.118`: month and day, no year."""
_LOGCAT_HINT = re.compile(r"-[0-3]\d [0-2]\d:")
"""A quick test for a logcat stamp before the full pattern (which starts with an anchor tried at every position)."""
DAY_MONTH = re.compile(r"\b(?P<d>[0-3]?\d) " + _MONTH + r"(?![a-z])")
MONTH_DAY = re.compile(r"\b" + _MONTH + r" (?P<d>[0-3]?\d)\b(?![:.]\d)")
_MONTHS_ONLY = "|".join(MONTHS)
MONTH_NOUN = re.compile(
    r"(?<!\d )(?:(?<=\b[Ss]ince )|(?<=\bbefore )|(?<=\buntil )|(?<=\bafter )|(?<=\bfor )|(?<=\bfrom )|(?<=\bmid-)"
    r"|(?<=\bstopped in )|(?<=\bstarted in )"
    r"|(?=(?:"
    + _MONTHS_ONLY
    + r")(?:'s)? (?:invoices?|bills?|billing|statements?|payroll|reports?|payments?|credit)\b))"
    r"\b(?P<month>" + _MONTHS_ONLY + r")\b(?! [0-3]?\d\b)"
)
"""A month named as what happened in it ("the November invoice", "the report for November") or as a point in time
("since October", "stopped in October", "since mid-October"): read as its first day, in the catalogue's year."""
_MONTH_WORD = re.compile("(?:" + _MONTHS_ONLY + r")\b")
"""Where a `MONTH_NOUN` may start: a month's full name (a pattern that starts with the names, which the regex engine
looks for fast; `MONTH_NOUN` starts with a look-behind tried at every position)."""


def month_nouns(text: str) -> Iterator[re.Match[str]]:
    """Every `MONTH_NOUN` of `text`, as `MONTH_NOUN.finditer` finds them: the pattern tried only where a month's
    name starts (its look-behinds read the text before; two names never overlap, so none is passed over)."""
    for name in _MONTH_WORD.finditer(text):
        m = MONTH_NOUN.match(text, name.start())
        if m is not None:
            yield m


ISO_WEEKDAY_AFTER = re.compile(ISO.pattern + r" \(" + _WEEKDAY + r"\)")
WEEKDAY_BEFORE = re.compile(_WEEKDAY + r",? (?=(?:20\d\d-|[0-3]?\d [A-Z]|[A-Z][a-z]+\.? [0-3]?\d\b))")

CALVER = re.compile(
    r"(?P<version>(?P<y>20(?<![\w.-]20)\d\d)\.(?P<m>1[0-2]|[1-9])\.(?P<n>\d{1,2}))(?P<pre>-(?:rc|dev|beta)\.?\d*)?(?!\w|[.-]\w)"
)
"""A calendar version: web and API releases are named by the year and month they go out."""
APP_VERSION = re.compile(
    r"(?:a(?<!\wa)pp(?: version)?|l(?<!\wl)arkspur-(?:ios|android)|c(?<!\wc)lient=(?:ios|android)|b(?<!\wb)uild:?)\s+(?P<version>\d{1,2}\.\d{1,2}\.\d{1,2})(?P<pre>-(?:rc|dev|beta)\.?\d*)?(?!\w|[.-]\w)"
)
"""An app version, recognised by the word before it (`app 5.14.0`, `build: 5.14.0`; `iOS 17.4.1` is the phone's)."""
_APP_HINTS = tuple(
    re.compile(p + r"\s+\d")
    for p in (r"pp(?: version)?", r"arkspur-(?:ios|android)", r"lient=(?:ios|android)", r"uild:?")
)
"""What every `APP_VERSION` holds, without its look-behinds, one pattern per word: a quick test before the full
pattern (each starts with a literal, which the regex engine finds fast; their alternation would not)."""


def iso_instant(m: re.Match[str]) -> datetime:
    """The UTC instant an `ISO` match names (midnight for a date without a time)."""
    return _iso(m)[0]


def _iso(m: re.Match[str]) -> tuple[datetime, bool]:
    """The instant an ISO match names (UTC), and whether it had a time of day."""
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    if m["H"] is None:
        return datetime(y, mo, d, tzinfo=UTC), False
    at = datetime(y, mo, d, int(m["H"]), int(m["M"]), int(m["S"] or 0), tzinfo=UTC)
    tz = m["tz"]
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        at -= sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6]))
    return at, True


def logcat_stamps(text: str) -> Iterator[re.Match[str]]:
    """Every `LOGCAT` stamp of `text` (none without the `_LOGCAT_HINT`, the quick test first)."""
    return LOGCAT.finditer(text) if _LOGCAT_HINT.search(text) else iter(())


def logcat_instant(m: re.Match[str], filed: datetime) -> datetime | None:
    """The UTC instant a `LOGCAT` match names, read in the year of `filed` (the year before when that
    would put it more than half a year after `filed`); None for a day that does not exist."""
    filed = _as_utc(filed)
    mo, d = int(m["m"]), int(m["d"])
    for year in (filed.year, filed.year - 1):
        if not _valid(year, mo, d):
            continue
        at = datetime(year, mo, d, int(m["H"]), int(m["M"]), int(m["S"]), tzinfo=UTC)
        if at - filed <= timedelta(days=183):
            return at
    return None


def _valid(y: int, mo: int, d: int) -> bool:
    try:
        date(y, mo, d)
    except ValueError:
        return False
    return True


def _yearless(day: int, month: int, filed: datetime) -> date | None:
    """The latest `day` `month` on or before the day `filed` (None for a day that does not exist)."""
    for year in (filed.year, filed.year - 1, filed.year - 2):
        if _valid(year, month, day) and date(year, month, day) <= filed.date():
            return date(year, month, day)
    return None


def _as_utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class Late(NamedTuple):
    """A mention later than the ticket that holds it: a `time` (timestamp, date, deploy tag) or a `release`."""

    kind: Literal["time", "release"]
    text: str
    """The mention as written (a version without its pre-release suffix)."""
    why: str
    """Why it is late, as the loader's error message says it."""


def late(text: str, filed: datetime, releases: Sequence[Release] = ()) -> list[Late]:
    """Every mention in `text` later than a ticket filed at `filed`.

    `filed` counts to the minute (a report filed at 16:11 may quote 16:11:45); a date without
    a time counts when it is after the filing day. With a release calendar (`releases`), a
    final version is late when no platform it may belong to had released it by `filed`; a
    pre-release (`-rc.1`, `-dev.4`) is a staging or development build and never late.
    Without a calendar, a final calendar version is late when it names a month after `filed`.
    """
    return [f for f in _findings(text, filed, releases) if isinstance(f, Late)]


def problems(text: str, filed: datetime, releases: Sequence[Release] = ()) -> list[str]:
    """Every date, weekday or version in `text` that a ticket filed at `filed` could not contain.

    Everything `late` finds, and besides: a date that does not exist, a weekday its date does
    not fall on, and (with a release calendar) a pre-release of a version already out.
    """
    return [f.why if isinstance(f, Late) else f for f in _findings(text, filed, releases)]


def _findings(text: str, filed: datetime, releases: Sequence[Release]) -> Iterator[Late | str]:
    """Late mentions, and the other slips as messages, in text order by kind."""
    if "ince " in text:
        day = WEEKDAYS[_as_utc(filed).weekday()]
        for m in SINCE_WEEKDAY.finditer(text):
            if m["weekday"].capitalize() == day:
                yield f"'{m[0]}' in a ticket filed on a {day} (that is today)"
        if day in ("Saturday", "Sunday") and SINCE_WEEKEND.search(text):
            yield f"'since the weekend' in a ticket filed on a {day} (the weekend has not ended)"
    if not _DIGIT.search(text) and (not _may_name_month_noun(text) or next(month_nouns(text), None) is None):
        return  # every date and version has a digit, but "the November invoice"
    filed = _as_utc(filed)
    cutoff = filed.replace(second=0, microsecond=0) + timedelta(minutes=1)
    for m in ISO.finditer(text):
        if not _valid(int(m["y"]), int(m["m"]), int(m["d"])):
            yield f"'{m[0]}' is not a date"
            continue
        at, timed = _iso(m)
        if (at >= cutoff) if timed else (at.date() > filed.date()):
            yield Late("time", m[0], f"'{m[0]}' is after the ticket was filed ({filed:%Y-%m-%dT%H:%M}Z)")
    for m in DEPLOY_TAG.finditer(text) if _DEPLOY_HINT.search(text) else ():
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid(y, mo, d) and date(y, mo, d) > filed.date():
            yield Late("time", m[0], f"deploy tag date '{m[0]}' is after the ticket was filed ({filed:%Y-%m-%d})")
    for m in MIGRATION.finditer(text) if "_" in text and _MIGRATION_HINT.search(text) else ():
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid(y, mo, d) and date(y, mo, d) > filed.date():
            yield Late("time", m[0], f"migration date '{m[0]}' is after the ticket was filed ({filed:%Y-%m-%d})")
    for m in month_nouns(text) if _MONTH_ANY.search(text) and _may_name_month_noun(text) else ():
        month = _MONTH_OF[m["month"].lower()]
        if 0 < month - filed.month <= 6:  # read as this year's, not yet begun (last year's would be said so)
            yield Late("time", m[0], f"'{m[0]}' names a month that had not begun when the ticket was filed")
    for m in logcat_stamps(text):
        stamp = logcat_instant(m, filed)
        if stamp is not None and stamp >= cutoff:
            yield Late("time", m[0], f"logcat stamp '{m[0]}' is after the ticket was filed ({filed:%m-%d %H:%M})")
    yield from _weekday_problems(text, filed) if "day" in text and _WEEKDAY_ANY.search(text) else []
    yield from _version_problems(text, filed, releases)


_WEEKDAY_ANY = re.compile("|".join(WEEKDAYS))
SINCE_WEEKDAY = re.compile(r"\b(?P<since>[Ss]ince) (?P<weekday>(?i:" + "|".join(WEEKDAYS) + r"))\b")
"""A failure's start told by a weekday ("since Monday"), which on that weekday would be said as today."""


SINCE_WEEKEND = re.compile(r"\b(?P<since>[Ss]ince) the weekend\b")
"""A failure's start told as the weekend, which on a Saturday or a Sunday has not ended."""


SINCE_RECENT = re.compile(
    r"\b(?P<since>[Ss]ince) (?:(?:about|around) )?(?P<ago>(?:a few|five|ten|fifteen|twenty|\d+) minutes ago)\b"
    r"|\b(?P<since2>[Ss]ince) (?P<today>this morning|earlier today|last night)\b"
)
"""A failure's start told as minutes ago or as today ("since about ten minutes ago", "since this morning"), which a
report filed hours or days after the onset tells otherwise."""
RECENT_MINUTES = 45
"""How long after the onset a report may still say it began minutes ago."""


def since_onset(text: str, onset: datetime, filed: datetime) -> str:
    """`text` with a start told by a weekday ("since Tuesday", "since the weekend") told from when the failure began, `onset`, as a
    report `filed` then would: "since last night", "since this morning" or "since earlier today" the same day,
    "since yesterday", the onset's weekday within the week, "since last week" before that. A catalogue wording's
    weekday is one reporter's: every report of the failure tells the one start the queue gives it."""
    if "ince " not in text:
        return text
    onset, filed = _as_utc(onset), _as_utc(filed)
    days = (filed.date() - onset.date()).days

    if days <= 0:
        when = "last night" if onset.hour < 5 else "this morning" if onset.hour < 12 else "earlier today"
    else:
        when = "yesterday" if days == 1 else WEEKDAYS[onset.weekday()] if days < 7 else "last week"

    def told(m: re.Match[str]) -> str:
        if m.string.startswith(("'", "’"), m.end()):  # "since Friday's update" dates a release, not the start
            return m[0]
        lower = 1 < days < 7 and m.re is SINCE_WEEKDAY and m["weekday"][0].islower()  # ("since monday")
        return f"{m['since']} {when.lower() if lower else when}"

    def recent(m: re.Match[str]) -> str:
        if m["ago"] and filed - onset <= timedelta(minutes=RECENT_MINUTES):
            return m[0]
        return f"{m['since'] or m['since2']} {when}"

    text = SINCE_RECENT.sub(recent, text)
    return SINCE_WEEKEND.sub(told, SINCE_WEEKDAY.sub(told, text))


def since_today(text: str, filed: datetime) -> str:
    """`text` with a start told by the weekday it was `filed` on ("since Monday", filed on a Monday) told as
    the same day instead: "since this morning", or "since last night" before nine; and "since the weekend",
    filed at the weekend, told as the day it began ("since yesterday" on a Sunday, "since Friday night")."""
    if "ince " not in text:
        return text
    filed = _as_utc(filed)
    day = WEEKDAYS[filed.weekday()]
    when = "this morning" if filed.hour >= 9 else "last night"
    text = SINCE_WEEKDAY.sub(lambda m: f"{m['since']} {when}" if m["weekday"].capitalize() == day else m[0], text)
    if filed.weekday() >= 5 and "the weekend" in text:
        began = "Friday night" if filed.weekday() == 5 else "yesterday"
        text = SINCE_WEEKEND.sub(lambda m: f"{m['since']} {began}", text)
    return text


_BILLING_NOUNS = ("invoice", "bill", "statement", "payroll", "report", "payment", "credit")
"""The nouns `MONTH_NOUN` needs after a month, as plain words."""
_MONTH_LEADS = (
    "since ",
    "Since ",
    "before ",
    "until ",
    "after ",
    "for ",
    "from ",
    "mid-",
    "stopped in ",
    "started in ",
)
"""The words `MONTH_NOUN` accepts before a month ("since October"), as plain words."""


def _may_name_month_noun(text: str) -> bool:
    """False when `text` cannot hold a `MONTH_NOUN` (no month's full name, or no noun or lead word it needs): plain
    substring tests, cheaper than the pattern, which starts with a look-behind tried at every position."""
    if not any(map(text.__contains__, MONTHS)):  # no generator to make on each call
        return False
    return any(map(text.__contains__, _BILLING_NOUNS)) or any(map(text.__contains__, _MONTH_LEADS))


_MONTH_ANY = re.compile("|".join(m[:3] for m in MONTHS))


def _weekday_problems(text: str, filed: datetime) -> list[str]:
    found: list[str] = []
    for m in ISO_WEEKDAY_AFTER.finditer(text):
        if _valid(int(m["y"]), int(m["m"]), int(m["d"])):
            day = date(int(m["y"]), int(m["m"]), int(m["d"]))
            if WEEKDAYS[day.weekday()] != m["weekday"]:
                found.append(f"'{m[0]}': {day} is a {WEEKDAYS[day.weekday()]}")
    for m in WEEKDAY_BEFORE.finditer(text):
        rest = text[m.end() :]
        named = _date_at_start(rest, filed)
        if named is not None and WEEKDAYS[named.weekday()] != m["weekday"]:
            found.append(f"'{m[0]}{rest[:12].strip()}': {named} is a {WEEKDAYS[named.weekday()]}")
    return found


def _date_at_start(text: str, filed: datetime) -> date | None:
    """The date `text` starts with, if any (a day-month date of the latest year not after `filed`)."""
    for pattern in (ISO, DAY_MONTH, MONTH_DAY):
        m = pattern.match(text)
        if m is None:
            continue
        if pattern is ISO:
            y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
            return date(y, mo, d) if _valid(y, mo, d) else None
        return _yearless(int(m["d"]), _MONTH_OF[m["month"].lower().rstrip(".")], filed)
    return None


_NAMED_BY: tuple[tuple[str, Platform], ...] = (
    ("API v2 build ", "api"),
    ("web ", "web"),
    ("iOS app ", "ios"),
    ("Android app ", "android"),
    ("larkspur-ios ", "ios"),
    ("larkspur-android ", "android"),
    ("client=ios ", "ios"),
    ("client=android ", "android"),
)
"""Words before a version that say whose it is (web and API versions share one scheme)."""
PLATFORMS: tuple[Platform, ...] = ("web", "ios", "android", "api")


def platforms_before(text: str, start: int) -> tuple[Platform, ...]:
    """Whose version starts at `start` of `text`: the platform the words before it name, else every platform."""
    return _platforms(text, start)


def _platforms(text: str, start: int) -> tuple[Platform, ...]:
    """Whose version starts at `start`: the platform the words before it name, else any."""
    before = text[max(0, start - 16) : start]
    for words, platform in _NAMED_BY:
        if before.endswith(words):
            return (platform,)
    return PLATFORMS


_VERSIONISH = re.compile(r"\.(?<=\d\.)\d\d?\.\d")
"""What every version has: a quick test before the full patterns."""


def _version_problems(text: str, filed: datetime, releases: Sequence[Release]) -> Iterator[Late | str]:
    if not _VERSIONISH.search(text):
        return
    apps = APP_VERSION.finditer(text) if releases and any(h.search(text) for h in _APP_HINTS) else ()
    matches = [*CALVER.finditer(text), *apps]
    for m in matches:
        version, pre = m["version"], m["pre"]
        whose = _platforms(text, m.start("version"))
        if releases:
            same = [r for r in releases if r.version == version]
            known = bool(same)
            out = {r.platform for r in same if _as_utc(r.released_at) <= filed}  # the platforms it was out on
            if pre and all(p in out for p in whose):
                yield f"'{version}{pre}' is a pre-release of {version}, which was already out"
            elif not pre and not any(p in out for p in whose):
                why = "was released after the ticket was filed" if known else "is not in the release calendar"
                yield Late("release", version, f"version '{version}' {why}")
        elif not pre and m.re is CALVER and date(int(m["y"]), int(m["m"]), 1) > filed.date():
            yield Late(
                "release", version, f"version '{version}' names a month after the ticket was filed ({filed:%Y-%m})"
            )


# --------------------------------------------------------------------------- naming releases

_DISPLAY: dict[Platform, str] = {
    "web": "web {v}",
    "ios": "iOS app {v}",
    "android": "Android app {v}",
    "api": "API v2 build {v}",
}
"""How a report names a version of each platform."""


def display(platform: Platform, version: str) -> str:
    """A version as a report names it: `web 2026.3.1`, `iOS app 5.14.0`."""
    return _DISPLAY[platform].format(v=version)


def current_releases(releases: Sequence[Release]) -> str:
    """Each platform's latest release and its day, in one line: what "the current release" means."""
    latest = {r.platform: r for r in sorted(releases, key=lambda r: r.released_at)}
    named = [f"{display(p, latest[p].version)} ({latest[p].released_at:%Y-%m-%d})" for p in PLATFORMS if p in latest]
    return ", ".join(named) or "none listed"


def release_notes(releases: Sequence[Release]) -> list[str]:
    """One line per release that has notes, oldest first: `web 2026.3.1 (2026-03-10): Fixed: ...; ...`."""
    ordered = sorted(releases, key=lambda r: r.released_at)
    return [
        f"{display(r.platform, r.version)} ({r.released_at:%Y-%m-%d}): {' '.join(r.notes)}" for r in ordered if r.notes
    ]


def calendar_text(releases: Sequence[Release]) -> str:
    """The current releases, then the release notes when the calendar has any: what an agent reads of it."""
    notes = release_notes(releases)
    head = current_releases(releases)
    return "\n".join([head, "Release notes, oldest first:", *notes]) if notes else head


# --------------------------------------------------------------------------- moving dates


CATALOGUE_YEAR = 2026
"""The year the scenario catalogue is written in: its day-month dates are read in it."""


def _date_patterns(text: str) -> tuple[re.Pattern[str], ...]:
    """The date patterns that may match `text`, in `anchors`' order: plain tests and the hints first spare a
    text the patterns it cannot match (most start with a class or a look-behind tried at every position)."""
    found: list[re.Pattern[str]] = []
    if _DIGIT.search(text):
        found.append(ISO)
        if _DEPLOY_HINT.search(text):
            found.append(DEPLOY_TAG)
        if "_" in text and _MIGRATION_HINT.search(text):
            found.append(MIGRATION)
        if _MONTH_ANY.search(text):
            found += [DAY_MONTH, MONTH_DAY]
    if _may_name_month_noun(text):
        found.append(MONTH_NOUN)
    return tuple(found)


def anchors(text: str) -> list[tuple[datetime, bool]]:
    """Every date in `text` (UTC), with whether it had a time of day; day-month dates in `CATALOGUE_YEAR`."""
    patterns = _date_patterns(text)
    found = ISO.finditer(text) if ISO in patterns else ()
    out = [_iso(m) for m in found if _valid(int(m["y"]), int(m["m"]), int(m["d"]))]
    for pattern in (DEPLOY_TAG, MIGRATION):
        for m in pattern.finditer(text) if pattern in patterns else ():
            if _valid(int(m["y"]), int(m["m"]), int(m["d"])):
                out.append((datetime(int(m["y"]), int(m["m"]), int(m["d"]), tzinfo=UTC), False))
    for pattern in (DAY_MONTH, MONTH_DAY):
        for m in pattern.finditer(text) if pattern in patterns else ():
            month, day = _MONTH_OF[m["month"].lower().rstrip(".")], int(m["d"])
            if _valid(CATALOGUE_YEAR, month, day):
                out.append((datetime(CATALOGUE_YEAR, month, day, tzinfo=UTC), False))
    for m in month_nouns(text) if MONTH_NOUN in patterns else ():
        out.append((datetime(CATALOGUE_YEAR, _MONTH_OF[m["month"].lower()], 1, tzinfo=UTC), False))
    return out


def names_weekday(text: str) -> bool:
    """True when `text` names a day of the week (moving its dates then keeps their weekdays)."""
    return any(map(text.__contains__, WEEKDAYS))


def latest(found: Sequence[tuple[datetime, bool]]) -> list[tuple[datetime, bool]]:
    """The latest of the dates `found` with a time of day and the latest without one: all that
    `fitting_shift` needs of them (the later a date, the less it can move)."""
    return [
        (max(at for at, t in found if t is timed), timed)
        for timed in (True, False)
        if any(t is timed for _, t in found)
    ]


def fitting_shift(found: Sequence[tuple[datetime, bool]], before: datetime, step_days: int) -> int:
    """The largest multiple of `step_days` by which every date `found` can move and stay on or before `before`.

    Timed dates stay at or before `before`, dates without a time on or before its day. With no
    dates, the catalogue's own time (1 December of `CATALOGUE_YEAR`) moves to just before `before`.
    """
    before = _as_utc(before)
    if not found:
        found = [(datetime(CATALOGUE_YEAR, 12, 1, tzinfo=UTC), False)]
    days = min(((before - at).days if timed else (before.date() - at.date()).days) for at, timed in found)
    return (days // step_days) * step_days


MONTH_FIELD = re.compile(r"\bmonth=(20\d\d)-(0[1-9]|1[0-2])\b")
"""A month a log line names as a field (a report built for it, a query for it): `month=2026-11`."""


def _moved_month_field(m: re.Match[str], days: int) -> str:
    moved = date(int(m[1]), int(m[2]), 15) + timedelta(days=days)
    return f"month={moved.year}-{moved.month:02d}"


def shift_dates(text: str, days: int) -> str:
    """`text` with every date moved by `days` days, each written as before; a weekday next to a date follows it,
    and a `month=` field moves with them."""
    if not days or not names_dates(text):
        return text
    if "month=" in text:
        text = MONTH_FIELD.sub(lambda m: _moved_month_field(m, days), text)

    def iso(m: re.Match[str]) -> str:
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if not _valid(y, mo, d):
            return m[0]
        return (date(y, mo, d) + timedelta(days=days)).isoformat() + m[0][10:]

    def tag(m: re.Match[str]) -> str:
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        return (date(y, mo, d) + timedelta(days=days)).strftime("%Y.%m.%d") if _valid(y, mo, d) else m[0]

    text = ISO.sub(iso, text)
    if _DEPLOY_HINT.search(text):
        text = DEPLOY_TAG.sub(tag, text)
    if "_" in text and _MIGRATION_HINT.search(text):
        text = MIGRATION.sub(lambda m: m[0] if tag(m) == m[0] else tag(m).replace(".", "_") + "_", text)
    if _MONTH_ANY.search(text):
        text = _sub_day_month(text, days)
        if _may_name_month_noun(text):
            out, end = [], 0
            for m in month_nouns(text):  # `MONTH_NOUN.sub`, faster
                out += [text[end : m.start()], _moved_month(m, days)]
                end = m.end()
            text = "".join([*out, text[end:]])
    return ISO_WEEKDAY_AFTER.sub(_fix_weekday, text) if _WEEKDAY_ANY.search(text) else text


@lru_cache(maxsize=8192)
def names_dates(text: str) -> bool:
    """True when `text` holds a date `shift_dates` moves (the generator moves the same wordings again and again)."""
    return any(p.search(text) for p in _date_patterns(text))  # "the November invoice" has no digit


def _sub_day_month(text: str, days: int) -> str:
    """Day-month dates moved by `days` (read in the catalogue's year; only day and month are written).

    Both patterns are read on the original text, so that a moved date is never moved twice.
    """

    def move(m: re.Match[str]) -> str:
        name = m["month"].rstrip(".")
        month, day = _MONTH_OF[name.lower()], int(m["d"])
        if not _valid(CATALOGUE_YEAR, month, day):
            return m[0]
        new = date(CATALOGUE_YEAR, month, day) + timedelta(days=days)
        new_name = MONTHS[new.month - 1] if len(name) > 4 else MONTHS[new.month - 1][:3]
        after = m[0][m.end("month") - m.start() :]  # a full stop after the month stays: "on 1 December. Then"
        if m.re is DAY_MONTH:
            return f"{new.day} {new_name}{after}"
        return (
            f"{new_name}{m['month'][len(name) :]}{m[0][m.end('month') - m.start() : m.start('d') - m.start()]}{new.day}"
        )

    out, end = [], 0
    for m in sorted([*DAY_MONTH.finditer(text), *MONTH_DAY.finditer(text)], key=lambda m: m.start()):
        if m.start() >= end:
            out += [text[end : m.start()], move(m)]
            end = m.end()
    return "".join([*out, text[end:]])


def _moved_month(m: re.Match[str], days: int) -> str:
    """A `MONTH_NOUN` month moved with its first day by `days` days."""
    new = date(CATALOGUE_YEAR, _MONTH_OF[m["month"].lower()], 1) + timedelta(days=days)
    return MONTHS[new.month - 1]


PLAIN_DATE = re.compile(r"20(?<!\w20)\d\d-[01]\d-[0-3]\d\b(?![T ]\d\d:|\d)")
"""A date without a time of day (`due=2026-11-22`, `send_date=2026-11-22 (Sunday)`). The look-behind after the
literal `20` stands for a word boundary before it (as in `ISO`), so that the engine scans for the literal."""


def plain_dates(text: str) -> list[date]:
    """Every `PLAIN_DATE` of `text` that is a date."""
    return [date(*map(int, m[0].split("-"))) for m in PLAIN_DATE.finditer(text) if _valid(*map(int, m[0].split("-")))]


def move_plain_dates(text: str, days: int) -> str:
    """`text` with every `PLAIN_DATE` moved by `days` days (a weekday after one follows it); timestamps stay."""
    if not days:
        return text

    def move(m: re.Match[str]) -> str:
        try:
            return (date.fromisoformat(m[0]) + timedelta(days=days)).isoformat()
        except ValueError:  # not a date ("2026-02-30"): left for the checks to name
            return m[0]

    text = PLAIN_DATE.sub(move, text)
    return ISO_WEEKDAY_AFTER.sub(_fix_weekday, text) if _WEEKDAY_ANY.search(text) else text


def _fix_weekday(m: re.Match[str]) -> str:
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    if not _valid(y, mo, d):
        return m[0]
    right = WEEKDAYS[date(y, mo, d).weekday()]
    return m[0][: m.start("weekday") - m.start()] + right + ")"


def rewrite_versions(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`text` with every calendar and app version (with its pre-release suffix) replaced by `replace(match)`."""
    if not names_versions(text):
        return text
    text = CALVER.sub(replace, text)
    return APP_VERSION.sub(lambda m: m[0][: m.start("version") - m.start()] + replace(m), text)


@lru_cache(maxsize=8192)
def names_versions(text: str) -> bool:
    """True when `text` may hold a version (the generator rewrites the same wordings again and again)."""
    return _VERSIONISH.search(text) is not None
