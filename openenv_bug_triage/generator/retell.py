"""Reports told in the reporter's own words: how they give their steps, and what a duplicate leaves unsaid.

Two people who hit one defect write two reports: one lists numbered steps, another tells what
they did in a sentence ("I opened the board, then clicked a project and saw..."), a third
chains the clicks on one line. A duplicate is told by its own reporter, so it never gives its
steps the way its original did, and it never repeats a sentence of six words or more that its
original holds when another wording says the same (a mechanism, a workaround, a context line).
The verb forms and frames are data (`data/generator/retelling.json`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from pydantic import BaseModel, ConfigDict, Field

from ..textstats import sentences
from ..world import DATA_DIR
from .phrasing import compose

STYLES: tuple[str, ...] = ("numbered", "prose", "inline")
"""How a report gives its steps: a numbered list under a header, a sentence of what I did, one chained line."""
QA_STYLES: tuple[str, ...] = ("numbered", "inline")
"""QA writes steps to be followed, never as a story."""
SHARED_WORDS = 6
"""A sentence this long that a duplicate shares with its original reads as copied."""


class Retelling(BaseModel):
    """`data/generator/retelling.json`: verb forms and frames for steps told in other ways."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    past: dict[str, str]
    """A step's leading verb, lower case, and its past tense ("observe": "saw")."""
    synonyms: dict[str, list[str]]
    """A step's opening words and others that say the same ("Open ": "Go to "): a second reporter's own words."""
    also_nouns: list[str]
    """Verbs that are nouns too ("search"): put in the past only at the start of a step or clause, or after
    "and" or "then" before their object."""
    own: dict[str, str]
    """The step's words for the reader and the reporter's for themself ("your": "my")."""
    prose: list[str] = Field(min_length=1)
    prose_joins: list[str] = Field(min_length=1)
    inline: list[str] = Field(min_length=1)
    inline_joins: list[str] = Field(min_length=1)


@cache
def load_retelling() -> Retelling:
    """The retelling data, read once per process."""
    path = DATA_DIR / "generator" / "retelling.json"
    return Retelling.model_validate(json.loads(path.read_text(encoding="utf-8")))


def draw_style(rng: random.Random, qa: bool, avoid: str | None) -> str:
    """A steps style for a report (QA's from `QA_STYLES`), never `avoid` (its original's)."""
    options = [x for x in (QA_STYLES if qa else STYLES) if x != avoid]
    return rng.choice(options)


def reworded(steps: Sequence[str], rng: random.Random) -> list[str]:
    """`steps` as another reporter words them: each step's opening words swapped half the time for others that say
    the same ("Open the board" as "Go to the board"), so a duplicate does not give its original's steps word for word."""
    synonyms = load_retelling().synonyms
    out = []
    for step in steps:
        head = next((h for h in synonyms if step.startswith(h)), None)
        if head is not None and rng.random() < 0.5:
            step = rng.choice(synonyms[head]) + step[len(head) :]
        out.append(step)
    return out


def lower_first(text: str) -> str:
    """`text` with its first letter in lower case, unless its first word is a name or an acronym ("GET", "iOS")."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and not first[1:].islower():
        return text
    return text[:1].lower() + text[1:]


_SUBJECT_BEFORE = re.compile(r"(?:^|\b(?:and|then|if|when|until|before|after|that)\s|[,;]\s)$")
"""What comes before a "you" that is the subject of its clause ("until you see", "and you get")."""
_VERB_AFTER = re.compile(
    r" (?:am|have|had|can|could|will|would|should|must|may|might|do|did|need|want|see|get|follow|open|use|just|then|now"
    r"|normally|usually)\b"
)
"""What follows a "you" that is the subject of its clause ("a task you follow")."""
_YOU_BE = re.compile(r"\b[Yy]ou (are|were)\b|\b[Yy]ou're\b")
QUOTED = re.compile(r"((?<!\w)['‘][^'‘’]+['’](?!\w))")
"""A quoted label ("the 'You were mentioned' email"): its own words, not the writer's."""
_OWN = re.compile(r"\b(yourself|yours|your|you)\b", re.I)
_ANY = re.compile(
    r"(?<!before )\bany (?!other\b|more\b|of\b)(\w+)\b(?! (?!is\b|was\b|has\b|does\b)\w+s\b)|\ban existing (\w+)"
)
"""A step's "any project" or "an existing task", which tells a tester to pick one; told as done, one was picked (not
"any workspace IDs", whose noun goes on past its first word)."""
_CLAUSE = re.compile(
    r"^(?:you|it|no|nothing)\b|(?<!\bon )(?<!\bthe )(?<!\ba )(?<!\bof )(?<!\bto )\b(?:is|are|stays?|shows?|opens?|closes?|fails?|appears?|ends?|jumps?|returns?|says?"
    r"|waits?|disappears?|lands?|loads?|goes|has|have|keeps?|comes?|gets?|arrives?|reads?|lists?|turns?|spins?|never)\b"
)
"""What an "Observe ..." step says after its verb when it is a clause ("the app closes"), not a thing ("the error", "the
error on return to Larkspur": a verb's word after a preposition or an article is a noun)."""
_BARE_VERB = re.compile(
    r"(?<!\bto )(?<!\bthe )(?<!\ba )\b(?:fail|show|open|close|appear|disappear|load|spin|stay|jump|return|arrive|hang"
    r"|freeze|crash|flicker|vanish|reset|revert|snap)\b"
)
"""A bare verb after what an "Observe ..." step watches ("Observe the check fail"): what was seen doing it, no clause."""
_EITHER_CLIENT = re.compile(r"\bthe iOS or Android app\b")


def _picked(m: re.Match[str]) -> str:
    """ "any task" as "a task"; "an existing task" as "a task we already had"."""
    noun = m[1] or m[2]
    article = "an" if noun[0] in "aeiou" else "a"
    return f"{article} {noun}" if m[1] else f"{article} {noun} we already had"


_OBJECT_START = frozenset(
    {"a", "an", "the", "its", "their", "it", "them", "this", "that", "new", "at", "for", "your", "how", "which", "what"}
)
"""Words that start what a verb acts on ("type a name", "check the inbox", "look at it")."""


def _object_after(tokens: list[str], i: int) -> bool:
    """True when the word after `tokens[i]` starts its object, or a quoted text ("type 'assignee:me'")."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    return nxt.lower() in _OBJECT_START or (nxt != "" and nxt[0] in "'\"‘“")


def _i_am(m: re.Match[str]) -> str:
    """ "you are" as "I am", "you were" as "I was"."""
    return {"are": "I am", "were": "I was"}.get(m[1] or "", "I'm")


_RESULT = re.compile(r"^(Result|Response): ")
"""A last step in a tester's notation ("Result: red banner, '...'"): told as what the reporter got."""


def past(step: str) -> str:
    """A numbered step as something the reporter did: its verb in the past, "your" as "my"."""
    data = load_retelling()
    text = step.rstrip(". ")
    if (m := _RESULT.match(text)) is not None:  # "and finally the result was: red banner, '...'"
        return f"the {m[1].lower()} was: {text[m.end() :]}"
    tokens = text.split(" ")
    first, lead = True, 0
    for i, token in enumerate(tokens):  # the first verb, at the start or after a comma ("In Safari, open...")
        at_clause = i == 0 or tokens[i - 1].endswith(",")
        # "... and assign it"; a verb that is a noun too only before its object ("and type a name", not "and count"
        # or "the search and export dialog")
        joined = (
            i > 0 and tokens[i - 1] in ("and", "then") and (token not in data.also_nouns or _object_after(tokens, i))
        )
        if ((first and at_clause) or (not first and joined)) and token.lower() in data.past:
            lead = i if first else lead
            tokens[i] = data.past[token.lower()]
            first = False
    seen = tokens[lead] == data.past.get("observe") and lead + 1 < len(tokens) and tokens[lead + 1] != "that"
    rest = " ".join(tokens[lead + 1 :])
    clause = _CLAUSE.search(rest) if seen else None
    bare = _BARE_VERB.search(rest) if clause is not None else None
    # "Observe the app closes": "saw that the app closes"; but "Observe the check fail before a response comes
    # back": "saw the check fail ...", a bare verb before the clause's
    if clause is not None and (bare is None or bare.start() > clause.start()):
        tokens[lead] = f"{tokens[lead]} that"
    if lead:  # "In Safari, open X" told after "I": "opened X in Safari"
        setting = lower_first(" ".join(tokens[:lead]).rstrip(","))
        tokens = [*tokens[lead:], setting]
        if tokens[-2].endswith(","):
            tokens[-2] = tokens[-2].rstrip(",")
    text = " ".join(tokens)

    def own(m: re.Match[str]) -> str:  # "you" as an object is "me" ("had a colleague mention me")
        word = m.group(1).lower()
        if word != "you":
            return data.own[word]
        subject = _SUBJECT_BEFORE.search(m.string, 0, m.start()) or _VERB_AFTER.match(m.string, m.end())
        return "I" if subject else "me"

    # "your" as "my", but not inside a quoted label ("the 'You were mentioned' email")
    text = "".join(
        part if part.startswith(("'", "‘")) else _OWN.sub(own, _YOU_BE.sub(_i_am, part)) for part in QUOTED.split(text)
    )
    text = _EITHER_CLIENT.sub("the app", _ANY.sub(_picked, text))
    return lower_first(text)


def _joined(parts: Sequence[str], joins: Sequence[str], rng: random.Random, last: str | None = None) -> str:
    join = rng.choice(joins)
    if last is None or len(parts) < 2:
        return join.join(parts)
    return join.join(parts[:-1]) + last + parts[-1]


def _prose(parts: Sequence[str], joins: Sequence[str], rng: random.Random, last: str) -> str:
    """Done steps told as people tell them: no link word twice running ("after that ..., after that ..."), and a
    long run broken once into a second sentence ("... and clicked Export. Then I picked CSV ...")."""
    if len(parts) < 2:
        return "".join(parts)
    gaps: list[str] = []
    for _ in parts[1:-1]:
        gaps.append(rng.choice([j for j in joins if not gaps or j != gaps[-1]]))
    if len(parts) >= 4 and rng.random() < 0.5:
        gaps[rng.randrange(1, len(gaps))] = ". Then I "
    return "".join(p + g for p, g in zip(parts[:-2], gaps, strict=True)) + parts[-2] + last + parts[-1]


def told(style: str, steps: Sequence[str], header: str, rng: random.Random) -> str:
    """`steps` as a report gives them in `style`; `header` heads a numbered list."""
    data = load_retelling()
    if style == "numbered":
        return header + "\n" + "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))
    if style == "prose":
        clauses = [past(step) for step in steps]
        line = _prose(clauses, data.prose_joins, rng, last=rng.choice([" and ", " and finally ", ", and "]))
        return compose(rng.choice(data.prose), rng).format(steps=line)
    clauses = [lower_first(step.rstrip(". ")) for step in steps]
    return compose(rng.choice(data.inline), rng).format(steps=_joined(clauses, data.inline_joins, rng))


@lru_cache(maxsize=4096)
def long_sentences(text: str) -> frozenset[str]:
    """The sentences of `text` long enough to read as copied when another report repeats them (a wording or
    phrase met again, as most are, is read once per process)."""
    return frozenset(sentences(text, SHARED_WORDS))


def unsaid(options: Iterable[str], said: set[str]) -> list[str]:
    """The wordings of `options` none of whose long sentences `said` (an original's sentences) holds,
    alone or inside a frame ("Workaround: ...")."""
    return [o for o in options if not any(mine in theirs for mine in long_sentences(o) for theirs in said)]


def drop_said(text: str, said: set[str]) -> str:
    """`text` less its sentences that an original already said (a duplicate's reporter puts it their own way)."""
    if not said:
        return text
    kept = [part for part in re.split(r"(?<=[.!?])\s+", text) if not long_sentences(part) & said]
    return " ".join(kept) if kept else text
