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
from .phrasing import open_quote

Pick = Callable[..., str]
"""`pick(pool, **values)`: one phrase of the named pool, formatted with `values`."""

LOUD_TITLE = 0.7
"""Share of a loud writer's subjects written loud (capitals, exclamations)."""

_ALERT_TAG = re.compile(r"^\s*\[P\d\]\s*")
"""An alert's own priority tag, dropped: the handbook sets severity from impact, not from the alerting rule."""


def alert_title(title: str) -> str:
    """A monitoring alert's title without the alerting rule's priority tag."""
    return _ALERT_TAG.sub("", title)


def defect_title(d: Defect, variant: int, reporter: ReporterType, rng: random.Random, pick: Pick) -> str:
    """The scenario's title, or for a customer sometimes just the feature's name."""
    title = d.titles[variant]
    if reporter == "user" and rng.random() < 0.1:  # customers sometimes name only the feature in the subject
        title = feature_title(d, pick)
    return title


def feature_title(d: Defect, pick: Pick) -> str:
    """A short subject naming only the feature ("Problem with signing in through Okta")."""
    title = pick("feature_title", feature=d.feature)
    return title[:1].upper() + title[1:]


BUILD_FORMS: tuple[str, ...] = (
    "{title} ({build})",
    "{title} [{build}]",
    "{title} (v{build})",
    "{title} v{build}",
    "{title} (build {build})",
    "{title} on {build}",
    "{title} - build {build}",
    "{build}: {title}",
    "[{build}] {title}",
)
"""How a subject names the build it was seen on: people write it every which way."""
BUILD_IN_TITLE = 0.25
"""The share of customers who may name the build in their subject line at all."""


def fitted(subjects: list[str], build: str, affix: str, target: int, build_form: str | None = BUILD_FORMS[0]) -> str:
    """Of the subjects a customer might write, the longest of at most `target` words (else the shortest).

    A subject may stop at a phrase boundary ("Export fails for large projects" or "Export
    fails"), may name the build it was seen on in the writer's `build_form` ("Export fails
    (2026.9.3)", "[2026.9.3] Export fails") when the writer has a `build_form`, as real subjects do (the build number alone, so
    that letter case says nothing of the client), and only one far shorter than `target` gets
    the one `affix` of its channel.
    """
    shorter = [cut for t in subjects for cut in _clauses(t)]
    built = [build_form.format(title=t, build=build) for t in (*subjects, *shorter)] if build_form else []
    forms = [*subjects, *shorter, *built]
    best = _longest_within(forms, target)
    if len(best.split()) < target - 4:
        ends_in_mark = re.compile(r"[?.!)]\s*$")
        suffix = affix.startswith("{title}")
        dressed = [affix.format(title=t) for t in forms if not (suffix and ends_in_mark.search(t))]
        best = _longest_within([best, *dressed], target)
    return best


_CUT = re.compile(r"\s(?:and|but|since|after|when|while|for|in|on|with|from|because)\s|[,;:]\s|\s[-–]\s")


_PAIR_OPEN = re.compile(r"\b(?:both|between|either|neither)(?:\s+\S+){1,2}$", re.I)
"""A head that stops inside "both X and Y" or "between X and Y"."""


_BARE_PASSIVE = re.compile(r"\b(?:is|are|was|were|gets?|got)\s+\w+(?:ed|en|nt|t)$", re.I)
"""A head that stops at a bare passive ("Documents containing a table are saved"): what is wrong is in the rest."""


_REDUCED_RELATIVE = re.compile(
    r"\b(?:created|added|entered|uploaded|made|written|typed|imported|copied|posted|shared|sent|scheduled)$", re.I
)
"""A head that stops at what a noun had done to it ("Tasks and comments created"), before the verb that says what
went wrong ("... in a few minutes of work are gone")."""


_OPEN_WHEN = re.compile(r"\b(?:when|while|once|after)\s+\w+(?:ed|en|ing)$", re.I)
"""A head that stops at a bare "when opened" ("Larkspur closes immediately when opened", cut before "from a push on
Android"): the trigger it cut off is what sets the failure off, and without it the subject says every opening fails."""


_BUT = re.compile(r",?\s*but\b")
"""A cut before "but": what comes after it is what is wrong ("Ownership transfer confirms but nothing changes")."""


_OPEN_RELATIVE = re.compile(r"\b(?:that|which|who|where)(?:\s+\w+)?$", re.I)
"""A head that stops inside a relative clause ("Hangs on 'Working...' on our workspace that lives", cut before "in
the US West region")."""


_PARTICLE_VERB = re.compile(
    r"\b(?:sign|log|check|opt|plug|turn|switch|zoom|fill|carry|go)(?:s|ed|ged|ing|ging)?$", re.I
)
"""A head that stops before the particle its verb needs ("Difficulty with staying signed", cut before "in")."""


def _clauses(title: str) -> list[str]:
    """Shorter subjects a writer might have stopped at: `title` up to a clause or phrase boundary."""
    out = []
    for m in _CUT.finditer(title):
        head = title[: m.start()].rstrip(" ,;:-–")
        if _PAIR_OPEN.search(head):  # "on both iPhone" left without "and Android"
            continue
        if _BARE_PASSIVE.search(head):  # "are saved" without "with an empty body" says the opposite
            continue
        if _REDUCED_RELATIVE.search(head):  # "Tasks and comments created" without "are gone"
            continue
        if _OPEN_WHEN.search(head):  # "closes immediately when opened" without "from a push"
            continue
        if _BUT.match(title, m.start()):  # "Reset password email arrives" without "but its link is always expired"
            continue
        if _OPEN_RELATIVE.search(head):  # "... on our workspace that lives" without "in the US West region"
            continue
        if open_quote(head):  # "Notification says 'ana commented" stops inside what it quotes
            continue
        if m[0].strip() in ("in", "on") and _PARTICLE_VERB.search(head):  # "staying signed" without "in"
            continue
        if len(head.split()) >= 4:  # "iOS app crashes" says too little (and two partitions' titles cut alike)
            out.append(head)
    return out


def _longest_within(forms: list[str], target: int) -> str:
    fitting = [t for t in forms if len(t.split()) <= target]
    if fitting:
        return max(fitting, key=lambda t: len(t.split()))
    return min(forms, key=lambda t: len(t.split()))


def dress(
    subjects: list[str],
    version: str,
    persona: Persona,
    rng: random.Random,
    pick: Pick,
    rates: Rates,
    traps: list[str],
    own_slip: bool = False,
    body_loud: bool = False,
) -> str:
    """The subject line in one style: the reporter's channel's, or a loud writer's; then letter case.

    `subjects` are the titles this reporter might give (the first is the scenario's own). A
    customer's is fitted to a length drawn apart from the truth, so that its length says nothing
    of the truth, with at most one affix: the API portal's template prefix, or an email's `Re:`
    or a plea. Any customer may give a title that says nothing. A loud writer dresses the
    subject their own way instead (capitals, exclamations, a demand inside the subject), and the
    loud title is recorded in `traps`. A writer who opened quietly (a `quiet` trap) does not shout
    in the subject.
    """
    title = subjects[0]
    # one register: only a writer of a loud temper shouts in the subject, and not when they opened quietly
    # nor one who found the fault on their own side (`own_slip`: "nothing is wrong on your side")
    loud = (
        body_loud
        and persona.temper == "loud"
        and rng.random() < LOUD_TITLE
        and not {"quiet", "hedged"} & set(traps)
        and not own_slip
    )
    if persona.reporter == "user":
        target = rng.randrange(5, 12)
        if rng.random() < rates.terse_title:
            title = pick("terse_title")  # "Bug", "Help please": a title that says nothing, on any kind
        else:
            channel_affix = "title_template" if persona.channel == "portal" else "title_affix"
            affix = "{title}" if loud else pick(channel_affix, title="{title}")
            # a writer who puts the build in the subject: about one in four of those who know what a build is
            build_form = rng.choice(BUILD_FORMS) if rng.random() < BUILD_IN_TITLE and persona.technical else None
            title = fitted(subjects, version.split()[-1], affix, target, build_form)
    if persona.reporter != "monitoring":  # an alerting tool titles its alerts as its rule names them
        title = letter_case(title, rng)
    if loud:
        title = pick("loud_title", **shouted(title, rng))
        traps.append("loud")
    return title


def shouted(title: str, rng: random.Random) -> dict[str, str]:
    """The values a loud title frame fills: the subject as typed, all in capitals, and with one word stressed."""
    tokens = title.split(" ")
    long = [i for i, t in enumerate(tokens) if sum(c.isalpha() for c in t) >= 4]
    if long:
        i = rng.choice(long)
        tokens[i] = tokens[i].upper()
    return {"title": title, "caps": title.upper(), "stressed": " ".join(tokens)}


def letter_case(title: str, rng: random.Random) -> str:
    """As typed: often unchanged, often all lower case, sometimes only the first letter in capitals.

    Typed that loosely often enough that a subject's letter case says nothing of the names in it.
    """
    x = rng.random()
    if x < 0.25:
        return _QUOTED_OR_WORD.sub(lambda m: m[0] if m["quoted"] else m[0].lower(), title)
    if x < 0.45:  # sentence case: acronyms ("SSL", "API") kept, as people type them
        lowered = _QUOTED_OR_WORD.sub(
            lambda m: m[0] if m["quoted"] or _ACRONYM.fullmatch(m[0]) else m[0].lower(), title
        )
        return lowered if re.match(r"[a-z]+[A-Z]", lowered) else lowered[:1].upper() + lowered[1:]  # "iOS app ..."
    return title


_QUOTED_OR_WORD = re.compile(r"(?P<quoted>(?<!\w)'[^']+'(?!\w)|\"[^\"]+\")|[^\s\"]+")
"""A quoted string (an error message or a file name, kept as it was shown) or a word."""
_ACRONYM = re.compile(r"\W*(?:[A-Z][A-Z0-9]+s?|[a-z]*[A-Z]\w*?[A-Z]\w*|[a-z]+[A-Z]\w*)\W*")
"""A word typed with capitals inside it as well: an acronym ("SSL", "APIs") or a name ("iOS", "OneLogin")."""
