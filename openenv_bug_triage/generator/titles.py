"""A ticket's subject line: the scenario's title, then how the reporter dresses it.

Every function draws from the RNG it is given, in a fixed order, so that the same
instance always gets the same titles.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ..catalogue import Defect
from ..models import ReporterType
from .levels import Rates
from .personas import Persona

Pick = Callable[..., str]
"""`pick(pool, **values)`: one phrase of the named pool, formatted with `values`."""

_ALERT_TAG = re.compile(r"^\s*\[P\d\]\s*")
"""An alert's own priority tag, dropped: the handbook sets severity from impact, not from the alerting rule."""


def alert_title(title: str) -> str:
    """A monitoring alert's title without the alerting rule's priority tag."""
    return _ALERT_TAG.sub("", title)


def defect_title(d: Defect, variant: int, reporter: ReporterType, rng: random.Random, pick: Pick) -> str:
    """The scenario's title, or for a customer sometimes just the feature's name."""
    title = d.titles[variant]
    if reporter == "user" and rng.random() < 0.25:  # customers often name only the feature in the subject
        title = feature_title(d, pick)
    return title


def feature_title(d: Defect, pick: Pick) -> str:
    """A short subject naming only the feature ("Problem with signing in through Okta")."""
    title = pick("feature_title", feature=d.feature)
    return title[:1].upper() + title[1:]


def nearest(titles: list[str], version: str, rng: random.Random) -> str:
    """Of the subjects a customer might write, the one nearest a length drawn apart from the truth.

    Each may also name the build it was seen on ("Export fails (web 2026.9.3)"), as real subjects do.
    """
    target = rng.randrange(3, 12)
    candidates = [*titles, *(f"{t} ({version})" for t in titles)]
    return min(candidates, key=lambda t: abs(len(t.split()) - target))


def dress(title: str, persona: Persona, rng: random.Random, pick: Pick, rates: Rates, traps: list[str]) -> str:
    """The subject line in the one style of the reporter's channel; then any reporter's letter case.

    An email keeps its subject, now and then with one `Re:`/`Fwd:` or a short plea (never after a
    question); the API portal's form sometimes adds its template prefix; any customer may give a
    title that says nothing. Never more than one affix. Length and case are drawn apart from the
    truth, so neither says anything of it; a loud title is recorded in `traps`.
    """
    if persona.reporter == "user":
        x = rng.random()
        if x < rates.terse_title:
            title = pick("terse_title")  # "Bug", "Help please": a title that says nothing, on any kind
        elif persona.channel == "email" and rng.random() < 0.07:
            affix = pick("title_affix", title="{title}")
            if affix.startswith("{title}") and title.rstrip()[-1:] in "?.!":
                affix = "{title}"
            title = affix.format(title=title)
        elif persona.channel == "portal" and rng.random() < 0.35:
            title = pick("title_template", title=title)
    if persona.reporter == "user" and rng.random() < rates.loud:
        title = pick("loud_title", title=title)
        traps.append("loud")
    return letter_case(title, rng)


def letter_case(title: str, rng: random.Random) -> str:
    """As typed: mostly unchanged, sometimes all lower case or only the first letter raised."""
    x = rng.random()
    if x < 0.15:
        return title.lower()
    if x < 0.25:
        return title[:1].upper() + title[1:]
    return title
