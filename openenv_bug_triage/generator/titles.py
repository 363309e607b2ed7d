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
        title = pick("feature_title", feature=d.feature)
        title = title[:1].upper() + title[1:]
    return title


def dress(
    title: str,
    reporter: ReporterType,
    rng: random.Random,
    pick: Pick,
    affixes: list[str],
    rates: Rates,
    traps: list[str],
) -> str:
    """A customer's terse or padded, sometimes loud, title; then any reporter's letter case.

    Length and case are drawn apart from the truth, so neither says anything of it; a loud
    title is recorded in `traps`.
    """
    if reporter == "user":
        if rng.random() < rates.terse_title:
            title = pick("terse_title")  # "Bug", "Help please": a title that says nothing, on any kind
        target = rng.randrange(7, 14)  # words
        for affix in rng.sample(affixes, 3):
            if len(title.split()) < target:
                title = affix.format(title=title)
    if reporter == "user" and rng.random() < rates.loud:
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
