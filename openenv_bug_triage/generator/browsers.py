"""Browser and Apple OS versions as of a ticket's date.

The catalogue's and the phrase pools' wordings name the browsers of their writing (Chrome and Edge
132, Firefox 134, Safari and iOS 18); a queue runs in 2026. Each version a ticket names moves by
as many releases as came out between then and the day it was filed, so a report quotes the
browser its writer had, and two versions named together keep their distance ("Edge 120 and Edge
130"). Old versions stay old: a version below those a wording was written against moves by the
same number of releases, and an unsupported one (iOS 15, Internet Explorer, legacy Edge) is left
as it is.
"""

from __future__ import annotations

import re
from datetime import date, datetime

__all__ = ["current_major", "may_name_versions", "move_versions"]

_RELEASE_DAYS = 28
"""Days between two major releases of Chrome, Edge and Firefox."""
_SHIPPED_ON = date(2026, 1, 13)
"""The day the majors in `_SHIPPED` came out."""
_SHIPPED = {"Chrome": 144, "Edge": 144, "Firefox": 147}
_WRITTEN = {"Chrome": 132, "Edge": 132, "Firefox": 134}
"""The majors the wordings were written against."""
_APPLE_27 = date(2026, 9, 15)
"""Safari 27 and iOS 27 ship (Safari and iOS 26 came out in September 2025; 18 was the one before)."""
_APPLE_MINOR_DAYS = 61
"""Days between two minor releases of Safari and iOS."""

_EVERGREEN = re.compile(r"\b(?P<name>Chrome|Edge|Edg|Firefox)(?P<sep>[ /])(?P<major>1\d\d)(?!\d)(?!\.\d+esr)", re.I)
"""A Chrome, Edge or Firefox major of 100 or more, written "Chrome 131" or, in a user agent, "Edg/131"
(not an extended-support Firefox, "Firefox/140.0esr", whose line moves once a year and is written as it is)."""
_APPLE = re.compile(
    r"\b(?P<name>Safari|iOS|iPadOS|iPhone OS)(?P<sep>[ /])(?P<major>1[78])(?P<minor>\.\d+)?(?![\d])", re.I
)
"""A Safari or iOS version of the 17 or 18 line (older ones are unsupported or the WebKit build in a user agent)."""


def current_major(name: str, on: date) -> int:
    """The newest major of Chrome, Edge or Firefox (`name`) out on `on`."""
    return _SHIPPED[name] + (on - _SHIPPED_ON).days // _RELEASE_DAYS


def _apple(major: int, minor: int | None, on: date) -> str:
    """Safari or iOS `major.minor` of the wordings, as the release that far behind the newest on `on`."""
    behind = 18 - major  # 0: the newest line; 1: the line before it
    if on >= _APPLE_27:
        lines, newest_minor = (27, 26), (on - _APPLE_27).days // _APPLE_MINOR_DAYS
    else:
        lines, newest_minor = (26, 18), 2 + (on - date(2025, 12, 12)).days // _APPLE_MINOR_DAYS
    moved = lines[behind]
    if minor is None:
        return str(moved)
    if behind == 0:
        minor = min(minor, max(0, newest_minor))
    return f"{moved}.{minor}"


_EVERGREEN_WORDS = ("Chrome", "Edg", "Firefox", "chrome", "edg", "firefox")
_APPLE_WORDS = ("Safari", "iOS", "iPadOS", "iPhone OS", "safari", "ios", "ipados", "iphone os")
"""The names each pattern needs, as written and in a lower-case title: plain tests spare a text the patterns (which start
with a word boundary) it cannot match."""
_ANY_NAME = ("chrome", "edg", "firefox", "safari", "ios", "ipados", "iphone os")
"""Every word of `_EVERGREEN_WORDS` and `_APPLE_WORDS` in lower case: a text that holds one of theirs holds one of
these once lower-cased (a quick test first; the names as written decide)."""
_EVERGREEN_NAMES = {"chrome": "Chrome", "edge": "Edge", "edg": "Edge", "firefox": "Firefox"}


def may_name_versions(text: str) -> bool:
    """False when `move_versions` leaves `text` as it is on any day: it names no browser or Apple OS in any letter
    case. `text` may be several texts joined by line breaks (no name spans one): false for the whole, false for each."""
    lower = text.lower()
    return any(map(lower.__contains__, _ANY_NAME))


def move_versions(text: str, filed: datetime) -> str:
    """`text` with each browser and Apple OS version it names as of `filed` (see the module doc)."""
    if not may_name_versions(text):  # most texts: one test spares the two below
        return text
    evergreen_named = any(map(text.__contains__, _EVERGREEN_WORDS))  # no generator to make on each call
    apple_named = any(map(text.__contains__, _APPLE_WORDS))
    if not evergreen_named and not apple_named:
        return text
    on = filed.date()

    def evergreen(m: re.Match[str]) -> str:
        name = _EVERGREEN_NAMES[m["name"].lower()]
        moved = int(m["major"]) + current_major(name, on) - _WRITTEN[name]
        return f"{m['name']}{m['sep']}{moved}"

    def apple(m: re.Match[str]) -> str:
        minor = int(m["minor"][1:]) if m["minor"] else None
        return f"{m['name']}{m['sep']}{_apple(int(m['major']), minor, on)}"

    if evergreen_named:
        text = _EVERGREEN.sub(evergreen, text)
    return _APPLE.sub(apple, text) if apple_named else text  # moving a browser changes no Apple name
