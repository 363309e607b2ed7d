"""Attachment file names as the reporter's device or tool wrote them.

A screenshot taken on a Mac is "Screenshot 2026-02-24 at 14.31.07.png", on an iPhone "IMG_4821.PNG", on a Pixel
"Screenshot_20260224-143107.png"; a file saved twice from a browser is "image.png" and then "image (1).png". Files
are taken a few minutes before the ticket is filed, and a second file off the same device follows the first (a
later time, the next number), so several attachments read as one sitting.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import datetime, timedelta

Namer = Callable[[datetime, int, int], str]
"""A file name for the time it was taken, how many files of the series came before it, and the device's running
number for it (an iPhone names a screenshot by the number of its photo)."""

Kind = str
"""What the file is: `shot` (a screenshot), `video` (a screen recording), `har` (a browser's network export) or
`log` (a console or client log saved as text)."""

_ANY_DESKTOP_SHOT: Namer = lambda t, n, k: "image.png" if n == 0 else f"image ({n}).png"  # noqa: E731
"""A screenshot pasted from the clipboard and saved by the browser, on any computer."""
_SHOTS: dict[str, tuple[Namer, ...]] = {
    "ios": (lambda t, n, k: f"IMG_{k:04d}.PNG", lambda t, n, k: f"IMG_{k:04d}.png"),
    "android": (
        lambda t, n, k: f"Screenshot_{t:%Y%m%d-%H%M%S}.png",
        lambda t, n, k: f"Screenshot_{t:%Y%m%d_%H%M%S}_Larkspur.jpg",
    ),
    "mac": (lambda t, n, k: f"Screenshot {t:%Y-%m-%d} at {t:%H.%M.%S}.png", _ANY_DESKTOP_SHOT),
    "windows": (lambda t, n, k: f"Screenshot {t:%Y-%m-%d} {t:%H%M%S}.png", _ANY_DESKTOP_SHOT),
    "linux": (lambda t, n, k: f"Screenshot from {t:%Y-%m-%d} {t:%H-%M-%S}.png", _ANY_DESKTOP_SHOT),
    # (a bot's panel renders, numbered and stamped: not a browser's re-download names, "alert-graph (1).png")
    "dashboard": (lambda t, n, k: f"alert-graph-{n + 1}_{t:%Y%m%d-%H%M%S}.png",),
}
_VIDEOS: dict[str, tuple[Namer, ...]] = {
    "ios": (
        lambda t, n, k: f"RPReplay_Final{int(t.timestamp())}.MP4",
        lambda t, n, k: f"RPReplay_Final{int(t.timestamp())}.mp4",
    ),
    "android": (lambda t, n, k: f"Screen_Recording_{t:%Y%m%d_%H%M%S}_Larkspur.mp4",),
    "mac": (lambda t, n, k: f"Screen Recording {t:%Y-%m-%d} at {t:%H.%M.%S}.mov",),
    "windows": (lambda t, n, k: f"Screen Recording {t:%Y-%m-%d} {t:%H%M%S}.mp4",),
    "linux": (lambda t, n, k: f"Screencast from {t:%Y-%m-%d} {t:%H-%M-%S}.webm",),
}
_HARS: dict[str, tuple[Namer, ...]] = {
    "any": (lambda t, n, k: "app.larkspur.app.har" if n == 0 else f"app.larkspur.app ({n}).har",),
    "mac": (lambda t, n, k: f"Archive {t:%y-%m-%d %H-%M-%S}.har",),  # Safari's
}
_LOGS: tuple[Namer, ...] = (
    lambda t, n, k: f"app.larkspur.app-{int(t.timestamp() * 1000)}.txt",
    lambda t, n, k: "console.txt" if n == 0 else f"console ({n}).txt",
    lambda t, n, k: f"larkspur-log-{t:%Y%m%d}{'' if n == 0 else f'-{n + 1}'}.txt",
)
EDGE = r"(?<!Motorola )\b(?-i:Edge)\b(?! (?:cache|gateway)\b)"
"""Microsoft's browser, written with its capital, as a pattern: not the edge of a network ("the response came from
the edge", "Edge cache serves another workspace") nor a Motorola Edge phone."""

DESKTOPS = ("mac", "windows", "linux")
_DESKTOP_SAID = (
    ("windows", re.compile(rf"\b(?:Windows|Internet Explorer|IE ?1[01]|PC)\b|{EDGE}")),
    ("mac", re.compile(r"\b(?:Mac|macOS|MacBook|iMac|Safari)\b")),
    ("linux", re.compile(r"\b(?:Linux|Ubuntu|Fedora|Debian)\b")),
)


def desktop_said(text: str) -> str | None:
    """The computer a report's text puts its writer on (`windows`, `mac`, `linux`), if it names one."""
    return next((family for family, said in _DESKTOP_SAID if said.search(text)), None)


def _namers(kind: Kind, device: str) -> tuple[Namer, ...]:
    if kind == "shot":
        return _SHOTS[device]
    if kind == "video":
        return _VIDEOS.get(device, _VIDEOS["mac"])
    if kind == "har":
        return (*_HARS["any"], *_HARS.get(device, ()))
    return _LOGS


def file_series(
    kind: Kind, device: str, filed: datetime, count: int, rng: random.Random, *, lead: int = 3000
) -> list[str]:
    """`count` file names of one `kind`, taken one after another on the `device` (`ios`, `android`, one of
    `DESKTOPS`, or `dashboard` for an alert's graphs), the last of them at most `lead` seconds before the ticket
    was `filed`."""
    name = rng.choice(_namers(kind, device))
    number = rng.randrange(1200, 9800)  # a phone's running photo number
    gaps = [rng.randrange(4, 40) if lead < 600 else rng.randrange(6, 140) for _ in range(count - 1)]
    taken = filed - timedelta(seconds=rng.randrange(lead // 10 + 1, lead + 1) + sum(gaps))
    names = [name(taken, 0, number)]
    for i, gap in enumerate(gaps, 1):
        taken += timedelta(seconds=gap)
        names.append(name(taken, i, number + i))
    return names


FILE_NAME = re.compile(
    r"(?:\bScreen(?:shot| Recording|cast)(?: from)? \d{4}-\d\d-\d\d(?: at)? [\d.-]+"
    r"|\bArchive \d\d-\d\d-\d\d \d\d-\d\d-\d\d|\b[\w.-]+(?: \(\d+\))?)\.(?:png|jpg|mp4|mov|webm|har|txt)\b",
    re.I,
)
"""A file name as `file_series` writes it, spaces and all, or any other one-word name ("run-12.txt")."""
