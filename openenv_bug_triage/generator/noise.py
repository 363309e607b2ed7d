"""How people really type: a seeded noise pass over about a fifth of customer tickets.

Typos of common words, a lower-case "i", dropped apostrophes, non-native phrasing, run-on
sentences, an unfilled template placeholder and markdown. Word changes come from fixed tables
of everyday words (`data/generator/noise.json`), so no word that decides a component, scope,
environment, version or outcome is ever changed; and a `Noise` is one deterministic function
of the text, so a sentence that carries a fact is changed in the ticket exactly as it is
changed when recorded as evidence.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from pydantic import BaseModel, ConfigDict, Field

from ..world import DATA_DIR


class Placeholder(BaseModel):
    """One unfilled field of the in-app report form, and the ticket tags it needs (a platform)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    requires: frozenset[str] = frozenset()
    forbids: frozenset[str] = frozenset()
    """Ticket tags it never goes with ("no_entry": an app that never opens has no About screen to read)."""


class NoiseData(BaseModel):
    """`data/generator/noise.json`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rate: float = Field(ge=0, le=1)
    """Share of customer tickets that get any noise."""
    typos: dict[str, list[str]] = Field(min_length=1)
    """Everyday words and the ways people mistype them (a writer who slips on a word slips one way)."""
    nonnative: dict[str, str]
    apostrophes: dict[str, str]
    placeholders: list[Placeholder] = Field(min_length=1)
    """Fields of Larkspur's in-app report form left as the form fills them in; only form reports have them."""


@cache
def load_noise() -> NoiseData:
    """The noise tables, read once per process."""
    return NoiseData.model_validate_json((DATA_DIR / "generator" / "noise.json").read_text(encoding="utf-8"))


_ONE_WORD = re.compile(r"[\w']+")
_NEXT_WORD = re.compile(r"[ \t]+([\w']+)")
SLIP_EVERY = 3
"""A typo's word is mistyped at about one of this many of its places (hashed, so the same at the same place)."""
SLIPPED_WORDS = (8, 16)
"""How many of the table's everyday words a noisy writer slips on (drawn in this range): most of them are not in a
short report at all, so this many leaves one or a few typos in it."""
_UPPER_I = re.compile(r"I(?<![\w']I)(?<![A-Z][A-Z] I)(?=['’][a-z]|\b(?!['’]))")
"""The pronoun "I" (the look-behind follows the letter, so that the regex engine scans for the letter)."""


def _swap(table: dict[str, str], drawn_from: Mapping[str, object]) -> re.Pattern[str]:
    """A pattern that finds the words of `table` (a sample of `drawn_from`): `drawn_from`'s, compiled once,
    when each of its words is one run of word characters (a match is then a whole run standing
    alone, so a word outside `table` is found only where it stands alone itself, and kept as it is)."""
    pool = frozenset(drawn_from)
    return _words_pattern(pool if _single_runs(pool) else frozenset(table))


@lru_cache(maxsize=64)
def _single_runs(words: frozenset[str]) -> bool:
    """True when each of `words` is one run of word characters (checked once per table)."""
    return all(_ONE_WORD.fullmatch(w) for w in words)


@lru_cache(maxsize=2048)
def _words_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """A pattern for any of `words` standing alone, longest first (compiled once per set of words; two
    words of one length never match at one place, so their order does not matter)."""
    ordered = sorted(sorted(words), key=len, reverse=True)
    return re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(w) for w in ordered) + r")(?![\w'])")


@dataclass(frozen=True)
class Noise:
    """The noise of one ticket: which changes it gets (none for most tickets)."""

    typos: tuple[tuple[str, str], ...] = ()
    nonnative: tuple[tuple[str, str], ...] = ()
    apostrophes: bool = False
    lower_i: bool = False
    run_on: bool = False
    markdown: bool = False
    placeholder: str | None = None
    salt: int = 0
    """Which places of a typo's word get it (`_slip`): another ticket's writer slips elsewhere."""

    @property
    def any(self) -> bool:
        """True when the ticket gets any noise at all."""
        return self != NO_NOISE

    def apply(self, text: str) -> str:
        """`text` with this ticket's word changes (the same text always changes the same way)."""
        if not (self.nonnative or self.typos or self.apostrophes or self.lower_i):
            return text  # most tickets: no word changes
        data = load_noise()
        tables = [(dict(self.nonnative), data.nonnative)]
        if self.apostrophes:
            tables.append((data.apostrophes, data.apostrophes))
        for table, drawn_from in tables:
            if table:
                text = _swap(table, drawn_from).sub(lambda m, t=table: t.get(m[0], m[0]), text)  # type: ignore[misc]
        if self.typos:
            typos = dict(self.typos)
            text = _swap(typos, data.typos).sub(lambda m: self._slip(m, typos), text)
        if self.lower_i:
            text = _UPPER_I.sub("i", text)
        return text

    def _slip(self, m: re.Match[str], typos: dict[str, str]) -> str:
        """A typo at some of a word's places, not all: where the word and the word after it (the same in the
        ticket and in a sentence of it recorded as evidence) hash, with this ticket's salt, into one in three."""
        word = m[0]
        if word not in typos:
            return word
        after = _NEXT_WORD.match(m.string, m.end())
        place = f"{self.salt}:{word}:{after[1] if after else ''}"
        return typos[word] if zlib.crc32(place.encode()) % SLIP_EVERY == 0 else word

    def join(self, sentences: list[str]) -> str:
        """Sentences of the customer's own framing, the first two run together when the writer does that.

        Else a salutation that ends in a comma ("Hi team,") stands on its own line, and a lead-in that
        ends in a colon ("Quick one:") runs into the sentence after it, which then starts in lower case."""
        if self.run_on and len(sentences) >= 2:
            first, second = sentences[0], sentences[1]
            joined = first.rstrip(".!:,") + ", " + _lower_first(second)
            return " ".join([joined, *sentences[2:]])
        out = sentences[0] if sentences else ""
        for nxt in sentences[1:]:
            if out.endswith(","):
                out += "\n\n" + nxt
            elif out.endswith(":"):
                out += " " + _lower_first(nxt)
            else:
                out += " " + nxt
        return out


_COMMON_START = re.compile(
    r"(?:For|Our|Ours|We|We're|We've|The|A|An|It|It's|This|That|These|My|There|Most|Half|Since|When|After|Just|So|"
    r"Nothing|Everything|Some|All|Any|Each|Every|Today|Yesterday|Background|Not|Only|Sorry|Thanks|Please)\b"
)
"""First words that start a sentence in capitals only because they start it (a name keeps its capital)."""


def _lower_first(sentence: str) -> str:
    """`sentence` with its first letter in lower case when its first word is a common one (not a name, "I" or "IT")."""
    return sentence[:1].lower() + sentence[1:] if _COMMON_START.match(sentence) else sentence


NO_NOISE = Noise()
"""No noise at all (one shared instance: a `Noise` is frozen)."""


def draw_noise(rng: random.Random, nonnative: bool, tags: frozenset[str]) -> Noise:
    """The noise of one customer ticket; a non-native writer's phrasing shows whenever there is noise.

    An unfilled placeholder is one of the in-app form's own fields for the ticket's platform, so
    only a report sent through the form (`tags` has "form") can carry one.
    """
    data = load_noise()
    if rng.random() >= data.rate:
        return NO_NOISE
    typos = [
        (word, rng.choice(slips))
        for word, slips in rng.sample(sorted(data.typos.items()), rng.randrange(*SLIPPED_WORDS))
    ]
    return Noise(
        typos=tuple(typos),
        nonnative=tuple(sorted(data.nonnative.items())) if nonnative else (),
        apostrophes=rng.random() < 0.35,
        lower_i=rng.random() < 0.4,
        run_on=rng.random() < 0.4,
        markdown=rng.random() < 0.3,
        placeholder=_placeholder(rng, data, tags) if rng.random() < 0.3 else None,
        salt=rng.randrange(1 << 30),
    )


def _placeholder(rng: random.Random, data: NoiseData, tags: frozenset[str]) -> str | None:
    fitting = [p.text for p in data.placeholders if p.requires <= tags and not p.forbids & tags]
    return rng.choice(fitting) if "form" in tags and fitting else None
