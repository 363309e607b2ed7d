"""Sentence frames: a phrase whose words vary, composed by a seeded draw.

A pool phrase may hold choices written `{one|another|a third}`: each is drawn on its own when
the phrase is used, so one frame reads many ways ("I {checked|went over} this {twice|a couple
of times} before writing in") and no one wording turns up in ticket after ticket. A choice may
be empty (`{|really }`) for words a writer may leave out. Choices never nest and never hold a
format field; `{title}`-style fields are filled after the choices are drawn.
"""

from __future__ import annotations

import itertools
import random
import re
from functools import lru_cache

__all__ = ["CHOICE", "compose", "literal_parts", "pattern", "variants"]

CHOICE = re.compile(r"\{([^{}]*\|[^{}]*)\}")
"""One set of choices: `{a|b|c}` (a format field such as `{title}` holds no `|`)."""


def compose(frame: str, rng: random.Random) -> str:
    """`frame` with each set of choices replaced by one of them, drawn from `rng` left to right."""
    literals, choices = _pieces(frame)
    if not choices:
        return frame
    out = [literals[0]]
    for options, after in zip(choices, literals[1:], strict=True):
        out += [rng.choice(options), after]
    return "".join(out)


@lru_cache(maxsize=8192)
def _pieces(frame: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """`frame` split once: its literal stretches, and between each two the options of one set of choices."""
    parts = CHOICE.split(frame)  # literal, choices, literal, choices, ..., literal
    return tuple(parts[0::2]), tuple(tuple(part.split("|")) for part in parts[1::2])


def variants(frame: str) -> list[str]:
    """Every wording of `frame`, in order (the frame itself when it holds no choices)."""
    literal = CHOICE.split(frame)  # literal, choices, literal, choices, ..., literal
    options = [part.split("|") for part in literal[1::2]]
    out = []
    for picked in itertools.product(*options):
        pieces = [literal[0]]
        for option, after in zip(picked, literal[2::2], strict=True):
            pieces += [option, after]
        out.append("".join(pieces))
    return out


def literal_parts(frame: str) -> list[str]:
    """The stretches of `frame` that every wording of it contains (between choices and fields)."""
    return [part for part in re.split(r"\{[^{}]*\}", frame) if part.strip()]


_PART = re.compile(r"(\{[^{}]*\})")


def pattern(frame: str) -> re.Pattern[str]:
    """A pattern that finds any rendering of `frame` in a text: each choice as drawn, each field as filled."""
    out = []
    for part in _PART.split(frame):
        if CHOICE.fullmatch(part):
            out.append("(?:" + "|".join(re.escape(option) for option in part[1:-1].split("|")) + ")")
        elif _PART.fullmatch(part):
            out.append(".+?")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out))


_QUOTE_MARK = re.compile(r"(?<!\w)['\"‘“]|['\"’”](?!\w)")
"""A quote mark that opens or closes a quote (not an apostrophe inside a word: "doesn't")."""


def open_quote(text: str) -> bool:
    """True when `text` stops inside a quote: an odd number of quote marks."""
    return len(_QUOTE_MARK.findall(text)) % 2 == 1


def whole_quotes(parts: list[str]) -> list[str]:
    """`parts` of a text split at sentence ends, with every part that begins inside a quote joined to the one before
    ("The page says 'This link has expired." and "Request a new one.' I tried five times." are one sentence)."""
    out: list[str] = []
    for part in parts:
        if out and open_quote(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out
