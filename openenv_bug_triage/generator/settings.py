"""What a pasted settings or diagnostics screen says of the app's look, language, time zone and guests: what the
ticket says.

A report of a dark-mode defect is written with dark mode on; a report of a defect in one language
or locale shows that language; any other report shows the language its reporter writes (English). A
ticket that names a time zone (its steps set the profile to it) shows that zone on every screen, and one
that speaks of guests shows guests allowed.
"""

from __future__ import annotations

import random
import re

from ..textstats import may_hold

LANGUAGES: dict[str, str] = {
    "Turkish": "tr-TR",
    "German": "de-DE",
    "French": "fr-FR",
    "Spanish": "es-ES",
    "Portuguese": "pt-PT",
    "Italian": "it-IT",
    "Dutch": "nl-NL",
    "Danish": "da-DK",
    "Polish": "pl-PL",
    "Arabic": "ar-SA",
    "Hebrew": "he-IL",
    "Japanese": "ja-JP",
}
"""Languages a ticket can name, with the locale a device set to each shows."""
_NAMED = re.compile(r"\b(" + "|".join(LANGUAGES) + r")\b")
_CODES = sorted({c.split("-")[0] for c in LANGUAGES.values()})
_LOCALE = re.compile(r"\b(" + "|".join(_CODES) + r")-[A-Z]{2}\b")
_LOCALE_HEADS = tuple(f"{code}-" for code in _CODES)
"""What every `_LOCALE` match starts with: plain tests before the patterns, which start with a word boundary."""
_BY_CODE = {code.split("-")[0]: name for name, code in LANGUAGES.items()}
_DARK = re.compile(r"\bdark (?:mode|theme)\b", re.I)
ENGLISH: tuple[tuple[str, str], ...] = (("English (UK)", "en-GB"), ("English (US)", "en-US"), ("English (UK)", "en-IE"))


def screen_settings(text: str, rng: random.Random) -> dict[str, str]:
    """`dark`, `language` and `locale` for a pasted settings screen of a ticket whose facts read `text`."""
    named = _NAMED.search(text) if any(name in text for name in LANGUAGES) else None
    code = _LOCALE.search(text) if any(head in text for head in _LOCALE_HEADS) else None
    if named:
        language, locale = named.group(1), LANGUAGES[named.group(1)]
    elif code:
        language, locale = _BY_CODE[code.group(1)], code.group(0)
    else:
        language, locale = rng.choice(ENGLISH)
    dark = "on" if may_hold(text, ("dark",)) and _DARK.search(text) else rng.choice(["on", "off", "off"])
    return {"dark": dark, "language": language, "locale": locale}


_LIBRARIES: tuple[tuple[str, str], ...] = (("Node.js", "larkspur-node 4."), ("Python", "larkspur-python 2."))
"""A client library a ticket can name, with the package a paste of its calls shows."""


def client_library(text: str, rng: random.Random) -> str:
    """The client library a paste of API calls shows: the one the ticket (`text`) names, at the version it names
    ("the official Python SDK, version 3.2"), else the Go one."""
    for name, package in _LIBRARIES:
        if name in text:
            if (m := re.search(rf"{re.escape(name)} SDK,? version (\d+\.\d+)", text)) is not None:
                return f"{package.split()[0]} {m[1]}.{rng.randrange(0, 4)}"
            return f"{package}{rng.randrange(3, 6)}"
    return f"larkspur-go 0.1{rng.randrange(3, 6)}"


_ZONE = re.compile(r"\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific)/[A-Z][A-Za-z_]+")
"""A time zone as a settings screen names it ("America/Denver")."""
_ZONE_LINE = re.compile(r"^((?:Device )?[Tt]ime zone: ).*$", re.M)
_GUESTS_LINE = re.compile(r"^((?:External guests|Guests allowed|Guest access): )(.*)$", re.M)
_GUESTS_ON = {"not allowed": "allowed", "allowed": "allowed", "no": "yes", "yes": "yes", "off": "on", "on": "on"}
_GUEST = re.compile(r"\bguests?\b", re.I)


def agreeing(paste: str, told: str) -> str:
    """`paste` (a settings screen) agreeing with what the ticket `told`: the time zone it names on each time zone
    line (none said "automatic" beside "set the profile time zone to America/Denver"), guests allowed when it
    speaks of guests."""
    if "zone: " in paste and (zone := _ZONE.search(told)) is not None:
        paste = _ZONE_LINE.sub(lambda m: m[1] + zone[0], paste)
    if "uest" in paste and _GUEST.search(told):
        paste = _GUESTS_LINE.sub(lambda m: m[1] + _GUESTS_ON.get(m[2], m[2]), paste)
    return paste
