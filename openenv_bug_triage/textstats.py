"""Measures of how generated tickets read: repetition, boilerplate, time sense, titles, length, overlap.

Pure functions over ticket text (strings, datetimes, counts): they know nothing of how a ticket
was made, so they measure a generator, a fixture or a real tracker export alike.
`scripts/generator_stats.py` runs them over generated queues and compares each figure with its
target in `TARGETS`.

A *sentence* here is a span of one line ending in `.`, `!` or `?` (or the line's end), list
markers stripped, compared word for word: lower case, punctuation dropped. Fragments under
`MIN_SENTENCE_WORDS` words ("Hi,", "Thanks!") are not sentences: any two people write those alike.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Literal

from . import chronology
from .chronology import Late
from .models import Release

__all__ = [
    "FRAME_WORDS",
    "HARD_KINDS",
    "MIN_SENTENCE_WORDS",
    "TARGETS",
    "Affix",
    "LabelFrame",
    "Marked",
    "Target",
    "anachronisms",
    "boilerplate_share",
    "bottom_decile",
    "carries_none",
    "common_openings",
    "common_sentences",
    "distinct_affixes",
    "duplicate_copies",
    "hard_case_markers",
    "label_framed_share",
    "label_frames",
    "marked_share",
    "marker_phrases",
    "may_hold",
    "may_match",
    "mentions_attachment",
    "opening_share",
    "openings",
    "partition_overlap",
    "self_descriptions",
    "sentence_ticket_counts",
    "sentences",
    "stock_affixes",
    "title_words",
    "titled_alike",
    "titles_with_affix",
    "top_decile",
    "weekday_mismatches",
    "within_queue_reuse",
    "word_count",
    "words",
]

MIN_SENTENCE_WORDS = 3
"""Shorter fragments are not counted as sentences."""

# --------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    """A bound a figure must keep: `value <= limit` (`at_most`) or `value >= limit`."""

    limit: float
    at_most: bool
    unit: Literal["share", "count", "words", "ms"]

    def passes(self, value: float) -> bool:
        """True when `value` keeps the bound."""
        return value <= self.limit if self.at_most else value >= self.limit

    def __str__(self) -> str:
        limit = f"{self.limit:.0%}" if self.unit == "share" else f"{self.limit:g}"
        unit = "" if self.unit in ("share", "count") else f" {self.unit}"
        return f"{'<=' if self.at_most else '>='} {limit}{unit}"


TARGETS: dict[str, Target] = {
    "within_queue_reuse": Target(0.10, at_most=True, unit="share"),
    "common_sentences": Target(0, at_most=True, unit="count"),
    "boilerplate_share": Target(0.15, at_most=True, unit="share"),
    "anachronisms": Target(0, at_most=True, unit="count"),
    "weekday_mismatches": Target(0, at_most=True, unit="count"),
    "stock_title_affixes": Target(0.05, at_most=True, unit="share"),
    "customer_words_p10": Target(25, at_most=True, unit="words"),
    "customer_words_p90": Target(180, at_most=False, unit="words"),
    "customer_unpadded": Target(0.45, at_most=False, unit="share"),
    "attachments_mentioned": Target(0.5, at_most=False, unit="share"),
    "duplicates_sharing_sentence": Target(0.02, at_most=True, unit="share"),
    "duplicates_titled_alike": Target(0.02, at_most=True, unit="share"),
    "hard_cases_marked": Target(0.30, at_most=True, unit="share"),
    "label_frames": Target(0.10, at_most=True, unit="share"),
    "recurring_openings": Target(0.40, at_most=True, unit="share"),
    "overlap_test_in_validation": Target(0, at_most=True, unit="share"),
    "overlap_validation_in_train": Target(0, at_most=True, unit="share"),
    "overlap_test_in_train": Target(0, at_most=True, unit="share"),
    "generate_25_tickets_ms": Target(5, at_most=True, unit="ms"),
    "generate_50_tickets_ms": Target(10, at_most=True, unit="ms"),
}
"""What each figure of `scripts/generator_stats.py` should reach."""

# --------------------------------------------------------------------------- sentences

_LIST_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•>])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)*")


def may_hold(text: str, words: Iterable[str]) -> bool:
    """False when `text` is ASCII and holds none of `words` (lower case) in any case: then no pattern that ignores
    case and needs one of them matches it. A plain test before such a pattern; in Unicode a few other letters
    match ASCII ones when case is ignored, so a text that is not ASCII may always hold them."""
    if not text.isascii():
        return True
    lower = text.lower()
    return any(map(lower.__contains__, words))  # no generator to make on each call


_CASE_TWINS = ("\u0130", "\u0131", "\u017f", "\u212a")
"""The only letters outside ASCII that a case-blind pattern matches with an ASCII letter (İ and ı with i, ſ with s,
the Kelvin sign K with k); `str.lower` makes ASCII of none but İ and K."""


def may_match(text: str, words: Iterable[str]) -> bool:
    """`may_hold` for a case-blind pattern whose literals are all ASCII, told apart also in a text outside ASCII: such
    a pattern matches ASCII letters, or the four `_CASE_TWINS`, and a text holding none of those holds a match's
    letters in lower case (curly quotes and accents in a wording no longer send it to the pattern)."""
    if not text.isascii() and any(map(text.__contains__, _CASE_TWINS)):
        return True
    lower = text.lower()
    return any(map(lower.__contains__, words))


def words(text: str) -> list[str]:
    """The words of `text`, lower case, punctuation dropped ("don't" stays one word)."""
    return _WORD.findall(text.lower())


def word_count(text: str) -> int:
    """Whitespace-separated tokens of `text`, as a reader would count words."""
    return len(text.split())


def sentences(text: str, min_words: int = MIN_SENTENCE_WORDS) -> list[str]:
    """The sentences of `text` in order, each as its words joined by single spaces; only those of
    `min_words` words or more (never fewer than `MIN_SENTENCE_WORDS`: shorter are not sentences)."""
    out: list[str] = []
    least = max(min_words, MIN_SENTENCE_WORDS)
    for line in text.lower().splitlines():  # lower case once: markers, stops and breaks read the same
        for part in _SENTENCE_END.split(_LIST_MARKER.sub("", line)):
            ws = _WORD.findall(part)
            if len(ws) >= least:
                out.append(" ".join(ws))
    return out


def within_queue_reuse(queues: Iterable[Sequence[str]]) -> float:
    """Share of sentence instances that recur word for word in another ticket of the same queue.

    Each queue is its tickets' texts; a sentence counts once per ticket.
    """
    recurring = total = 0
    for queue in queues:
        per_ticket = [set(sentences(text)) for text in queue]
        tickets_with = Counter(s for ss in per_ticket for s in ss)
        for ss in per_ticket:
            total += len(ss)
            recurring += sum(tickets_with[s] > 1 for s in ss)
    return recurring / total if total else 0.0


def sentence_ticket_counts(texts: Iterable[str]) -> Counter[str]:
    """For each sentence, how many of `texts` (tickets) hold it."""
    return Counter(s for text in texts for s in set(sentences(text)))


def _shared_floor(share: float, tickets: int) -> int:
    """The fewest tickets that make up `share` of `tickets`: never fewer than two (one ticket shares nothing)."""
    return max(2, math.ceil(share * tickets))


def common_sentences(texts: Sequence[str], min_words: int = 6, over_share: float = 0.03) -> list[tuple[str, float]]:
    """Sentences of `min_words` words or more held by over `over_share` of `texts`, most common first."""
    counts = sentence_ticket_counts(texts)
    n = len(texts)
    floor = max(2, math.floor(over_share * n) + 1)
    found = [(s, c / n) for s, c in counts.items() if c >= floor and len(s.split()) >= min_words]
    return sorted(found, key=lambda sc: (-sc[1], sc[0]))


def boilerplate_share(texts: Sequence[str], min_share: float = 0.01) -> float:
    """Share of sentence instances whose sentence is in at least `min_share` of `texts` (and two of them)."""
    counts = sentence_ticket_counts(texts)
    floor = _shared_floor(min_share, len(texts))
    total = sum(counts.values())
    return sum(c for c in counts.values() if c >= floor) / total if total else 0.0


OPENING_WORDS = 3
"""A sentence's opening: its first content words (a stock frame recurs here even with its tail varied)."""

_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "i",
        "i'm",
        "i've",
        "i'd",
        "we",
        "we're",
        "we've",
        "our",
        "us",
        "my",
        "me",
        "it",
        "it's",
        "its",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "but",
        "so",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "with",
        "from",
        "by",
        "as",
        "if",
        "when",
        "then",
        "just",
        "only",
        "also",
        "not",
        "no",
        "do",
        "does",
        "did",
        "can",
        "can't",
        "could",
        "would",
        "will",
        "you",
        "your",
        "they",
        "their",
        "them",
        "have",
        "has",
        "had",
        "am",
    ]
)


def openings(text: str, n: int = OPENING_WORDS) -> set[str]:
    """The opening of each sentence of `text`: its first `n` content words (function words, numbers,
    builds and times left out), for sentences that have `n` of them."""
    out: set[str] = set()
    for s in sentences(text):
        ws = [w for w in s.split() if w not in _FUNCTION_WORDS and not any(c.isdigit() for c in w)]
        if len(ws) >= n:
            out.add(" ".join(ws[:n]))
    return out


def common_openings(texts: Sequence[str], over_share: float = 0.03) -> list[tuple[str, float]]:
    """Sentence openings held by over `over_share` of `texts` (tickets), most common first: frames
    that recur across reports even where the words after them differ."""
    counts = Counter(o for text in texts for o in openings(text))
    floor = max(2, math.floor(over_share * len(texts)) + 1)
    found = [(o, c / len(texts)) for o, c in counts.items() if c >= floor]
    return sorted(found, key=lambda oc: (-oc[1], oc[0]))


def opening_share(texts: Sequence[str], over_share: float = 0.03) -> float:
    """Share of `texts` holding a sentence whose opening is in over `over_share` of them."""
    common = {o for o, _ in common_openings(texts, over_share)}
    return sum(bool(openings(text) & common) for text in texts) / len(texts) if texts else 0.0


_PASTED_IMAGE = re.compile(r"\[image: [^\]\n]+\]")
"""An image pasted into an email, as a mail client marks it (`[image: Screenshot 2026-08-06 at 04.14.02.png]`)."""


def partition_overlap(held_out: Iterable[str], other: Iterable[str], min_words: int = 6) -> float:
    """Share of the distinct sentences of `held_out` texts (`min_words` or more) also in `other` texts.

    Short sentences are left out: "It still happens." can turn up in any two sets of reports; so are images pasted
    into an email, which are file names, not writing (two screenshots taken the same second share one).
    """
    mine = {s for text in held_out for s in sentences(_PASTED_IMAGE.sub("", text)) if len(s.split()) >= min_words}
    theirs = {s for text in other for s in sentences(_PASTED_IMAGE.sub("", text))}
    return len(mine & theirs) / len(mine) if mine else 0.0


_SELF_DESCRIPTION = re.compile(
    r"\b(?:i['’]?m (?:the|a|an|one of|new to)\b|i am (?:the|a|an|one of|new to)\b|i['’]?m (?:\w+ ){1,3}at (?-i:[A-Z])"
    r"|i (?:manage|run|look after|coordinate|lead|head)\b|writing on behalf of|we['’]?re (?:a|an)\b|we are (?:a|an)\b"
    r"|my (?:mother|father|mum|mom|dad|wife|husband|son|daughter|kids|grandmother|grandfather)\b)",
    re.I,
)
_SELF_DESCRIPTION_WORDS = (
    *("im ", "i'm ", "i am ", "writing on behalf of", "were a", "we're a", "we are a"),
    *(f"i {verb}" for verb in ("manage", "run", "look after", "coordinate", "lead", "head")),
    *(f"my {kin}" for kin in ("mo", "fa", "mum", "dad", "wife", "husband", "son", "daughter", "kids", "grand")),
)
"""What every `_SELF_DESCRIPTION` match holds (`may_hold`): most texts hold none, and are spared the pattern."""
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def self_descriptions(text: str) -> list[str]:
    """The sentences of `text` in which the writer says who they are (a role, a group they run, the
    organisation, their family). A report has one writer: two such sentences are two people spliced."""
    if not may_hold(text, _SELF_DESCRIPTION_WORDS) or not _SELF_DESCRIPTION.search(text):
        return []  # a sentence's match is one in the whole text: most have none
    return [part for part in _CLAUSE_END.split(text) if _SELF_DESCRIPTION.search(part)]


# --------------------------------------------------------------------------- duplicates and hard cases


def duplicate_copies(original: str, duplicate: str, min_words: int = 6) -> list[str]:
    """Sentences of `min_words` words or more that a duplicate's text shares with its original's.

    A duplicate re-told by its own reporter shares none: the same defect in other words.
    """
    mine = {s for s in sentences(original) if len(s.split()) >= min_words}
    return sorted(mine & set(sentences(duplicate)))


_VERSION_TOKEN = re.compile(r"^v?\d+(?:\.\d+)*$|^build$|^v$")


def title_words(title: str) -> frozenset[str]:
    """A title's words less the build it names and a reply marker: what it says, not how it is dressed."""
    return frozenset(w for w in words(title) if not _VERSION_TOKEN.match(w) and w not in ("re", "fwd", "fw"))


def titled_alike(original: str, duplicate: str, at_least: float = 0.8) -> bool:
    """True when a duplicate's title is its original's with trivial changes (build, case, brackets, a word).

    Alike means the two titles' words (less builds and reply markers) overlap by `at_least`
    of their union (Jaccard).
    """
    a, b = title_words(original), title_words(duplicate)
    return bool(a | b) and len(a & b) / len(a | b) >= at_least


def _phrases(text: str, n: int) -> set[str]:
    """The sentences of `text` and the runs of `n` words inside them."""
    out: set[str] = set()
    for s in sentences(text):
        ws = s.split()
        out.add(s)
        out.update(" ".join(ws[i : i + n]) for i in range(len(ws) - n + 1))
    return out


def marker_phrases(
    kind_texts: Sequence[str], other_texts: Sequence[str], n: int = 4, min_share: float = 0.2, lift: float = 2.0
) -> list[tuple[str, float]]:
    """Stock phrases that mark a kind of ticket: a sentence or a run of `n` words held by at least
    `min_share` of `kind_texts` (and two of them) and at least `lift` times as common there as in
    `other_texts`. Most common first, with the share of `kind_texts` holding each.

    A kind that follows from what a report means, told in its reporter's words, has none; one
    told by a stock sentence ("It worked fine before the update") has that sentence.
    """
    counts = Counter(p for text in kind_texts for p in _phrases(text, n))
    others = Counter(p for text in other_texts for p in _phrases(text, n))
    floor = max(2, math.ceil(min_share * len(kind_texts)))
    found = []
    for phrase, c in counts.items():
        share = c / len(kind_texts)
        elsewhere = others[phrase] / len(other_texts) if other_texts else 0.0
        if c >= floor and share >= lift * elsewhere:
            found.append((phrase, share))
    return sorted(found, key=lambda ps: (-ps[1], ps[0]))


HARD_KINDS: tuple[str, ...] = (
    "feature_attached",
    "wrong_cause",
    "two_problems",
    "regression",
    "release_note",
    "retold",
    "misfiled",
    "loud",
    "quiet",
    "urgency_claim",
)
"""Kinds of ticket that make triage hard: each should follow from what a report means, not from a stock phrase."""


@dataclass(frozen=True)
class Marked:
    """How far one kind of ticket is told by stock phrases."""

    kind: str
    tickets: int
    marked: float
    """Share of the kind's tickets that hold one of its marker phrases."""
    markers: tuple[tuple[str, float], ...]


def hard_case_markers(by_kind: Mapping[str, Sequence[str]], texts: Sequence[str]) -> list[Marked]:
    """For each kind of `by_kind` (its tickets' texts), its marker phrases against the rest of `texts`.

    `texts` are every ticket's text of the sample, the kind's own among them; a kind's
    tickets are matched out of `texts` by identity of text, so pass the same strings.
    """
    out = []
    for kind, mine in by_kind.items():
        own = Counter(mine)
        rest = Counter(texts) - own
        markers = marker_phrases(mine, list(rest.elements()))
        out.append(Marked(kind, len(mine), marked_share(mine, [m for m, _ in markers]), tuple(markers)))
    return out


def marked_share(kind_texts: Sequence[str], markers: Iterable[str], n: int = 4) -> float:
    """Share of `kind_texts` that hold any of `markers` (phrases from `marker_phrases`)."""
    wanted = set(markers)
    if not kind_texts:
        return 0.0
    return sum(bool(_phrases(text, n) & wanted) for text in kind_texts) / len(kind_texts)


@dataclass(frozen=True)
class LabelFrame:
    """A stock frame that gives a label away: most tickets holding it, across scenarios, share one label."""

    frame: str
    label: str
    tickets: int
    """Tickets holding the frame."""
    purity: float
    """Share of them whose label is `label`."""
    of_label: float
    """Share of all the label's tickets that hold the frame."""


FRAME_WORDS = 6
"""Frames are sentences and runs of this many words (shorter runs are everyday phrasing)."""


def _runs(text: str, n: int) -> set[str]:
    """The runs of `n` words inside the sentences of `text` (a sentence of `n` words is its own run).

    Numbers are left out: a build, a count or a time is what one report says, not how it is phrased.
    """
    out: set[str] = set()
    for s in sentences(text):
        ws = [w for w in s.split() if not w.isdigit()]
        out.update(" ".join(ws[i : i + n]) for i in range(len(ws) - n + 1))
    return out


def label_frames(
    samples: Sequence[tuple[str, str, str]],
    n: int = FRAME_WORDS,
    min_groups: int = 3,
    min_tickets: int = 4,
    purity: float = 0.9,
    lift: float = 1.5,
) -> list[LabelFrame]:
    """Frames of `n` words that predict a label: held by at least `min_tickets` tickets of at least
    `min_groups` groups, at least `purity` of them with one label, `lift` times its base rate.

    `samples` are (text, label, group): the group is what a ticket is about (its scenario), so a
    scenario's own wording, which rightly carries its label, is not a frame; a sentence that
    carries the label across unrelated scenarios ("Nothing fails and no data is affected.") is.
    Largest share of the label's tickets first.
    """
    labels = Counter(label for _, label, _ in samples)
    holders: dict[str, Counter[str]] = {}
    groups: dict[str, set[str]] = {}
    for text, label, group in samples:
        for run in _runs(text, n):
            holders.setdefault(run, Counter())[label] += 1
            groups.setdefault(run, set()).add(group)
    total = len(samples)
    found = []
    for run, by_label in holders.items():
        held = sum(by_label.values())
        if held < min_tickets or len(groups[run]) < min_groups:
            continue
        label, count = by_label.most_common(1)[0]
        share = count / held
        if share >= purity and share >= lift * labels[label] / total:
            found.append(LabelFrame(run, label, held, share, count / labels[label]))
    return sorted(found, key=lambda f: (-f.of_label, f.frame))


def label_framed_share(samples: Sequence[tuple[str, str, str]], frames: Iterable[LabelFrame]) -> float:
    """Share of `samples` holding a frame that predicts their own label."""
    by_label: dict[str, set[str]] = {}
    for f in frames:
        by_label.setdefault(f.label, set()).add(f.frame)
    if not samples:
        return 0.0
    hit = sum(bool(_runs(text, FRAME_WORDS) & by_label.get(label, set())) for text, label, _ in samples)
    return hit / len(samples)


# --------------------------------------------------------------------------- time sense

_ISO_STAMP = re.compile(
    r"(?<![\d.])(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?\s?(Z|UTC|[+-]\d{2}:?\d{2})?)?(?!\d)"
)


def _stamp(m: re.Match[str]) -> datetime | date | None:
    """The date or (aware) datetime an `_ISO_STAMP` match names; None when it is no real date."""
    y, mo, d, h, mi, s, zone = m.groups()
    try:
        if h is None:
            return date(int(y), int(mo), int(d))
        tz = UTC
        if zone and zone not in ("Z", "UTC"):
            sign = 1 if zone[0] == "+" else -1
            digits = zone[1:].replace(":", "")
            tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0), tzinfo=tz)
    except ValueError:
        return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def anachronisms(text: str, created_at: datetime, releases: Sequence[Release] = ()) -> list[Late]:
    """Timestamps, dates and releases in `text` later than `created_at`: `chronology.late`, the loader's rule.

    With the queue's release calendar, a final version is late when it was not out by
    `created_at`, and a staging or development build of a version still to come is not.
    """
    return chronology.late(text, created_at, releases)


_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(
    r"\b(?:(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?)(?![\w'])",
    re.I,
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+(\d{{4}}))?\b", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.I)
_RELATIVE = re.compile(r"\b(today|tonight|this (?:morning|afternoon|evening)|yesterday)\b", re.I)
_NEAR = 30
"""Characters between a weekday name and the date it is written with."""
_SINCE = re.compile(r"\b(?:since|before|until|after|last|every|each)\s+$", re.I)
"""Words that make a weekday a day of its own ("since Tuesday ... today"), or one that recurs ("every Monday
morning ... TODAY"), not the day it is written."""
_QUOTED_NAME = re.compile(r"'[A-Z][^'\n]*'|\"[^\"\n]*\"")
"""A quoted name ('Due today', "Today view"): its words are not a time reference."""


def _unquoted(sentence: str) -> str:
    """The sentence with quoted names blanked out, offsets kept."""
    return _QUOTED_NAME.sub(lambda m: " " * len(m.group(0)), sentence)


def _dates_in(sentence: str, created: date) -> list[tuple[int, int, date]]:
    """(start, end, date) of each written date in `sentence`; a date without a year is the latest one not after `created`."""
    out: list[tuple[int, int, date]] = []
    for m in _ISO_STAMP.finditer(sentence):
        stamp = _stamp(m)
        if stamp is not None:
            out.append((m.start(), m.end(), stamp.date() if isinstance(stamp, datetime) else stamp))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for m in pattern.finditer(sentence):
            month = _MONTHS.index(m.group(month_group)[:3].lower()) + 1
            day, year = int(m.group(day_group)), m.group(3)
            try:
                when = date(int(year) if year else created.year, month, day)
                if not year and when > created:
                    when = when.replace(year=created.year - 1)
            except ValueError:
                continue
            out.append((m.start(), m.end(), when))
    return out


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Characters between two spans of one string (negative when they overlap)."""
    return max(b[0] - a[1], a[0] - b[1])


def weekday_mismatches(text: str, created_at: datetime) -> list[str]:
    """Weekday names that disagree with the date they are written with.

    A weekday is checked against a date written within a few characters of it in the same
    sentence ("Tuesday 2026-11-10", "10 Nov (Tue)"); a full weekday name with no date beside it
    is checked against the creation day when it goes with "today", "this morning" and the like,
    or the day before with "yesterday", unless "since", "until", "last"... make it a day of its own
    ("since Tuesday, urgent today"). A weekday with neither ("since Monday") is not checked,
    nor a short form away from a date ("sat", "sun" and "wed" are words too).
    """
    created = _aware(created_at).date()
    found: list[str] = []
    for line in text.splitlines():
        for sentence in _SENTENCE_END.split(line):
            dates = _dates_in(sentence, created)
            for m in _WEEKDAY.finditer(sentence):
                full, short = m.group(1), m.group(2)
                day = (
                    _WEEKDAY_NAMES.index(full.lower())
                    if full
                    else [n[:3] for n in _WEEKDAY_NAMES].index(short[:3].lower())
                )
                near = [(_gap(m.span(), (start, end)), when) for start, end, when in dates]
                near = [(gap, when) for gap, when in near if gap <= (_NEAR if full else 3)]
                if near:
                    when = min(near)[1]
                elif (
                    full
                    and not _SINCE.search(sentence[: m.start()])
                    and (
                        rel := [r for r in _RELATIVE.finditer(_unquoted(sentence)) if _gap(m.span(), r.span()) <= _NEAR]
                    )
                ):
                    when = created - timedelta(days=1 if rel[0].group(1).lower() == "yesterday" else 0)
                else:
                    continue
                if when.weekday() != day:
                    found.append(f"{m.group(0)} with {when.isoformat()}, a {_WEEKDAY_NAMES[when.weekday()].title()}")
    return found


# --------------------------------------------------------------------------- titles


@dataclass(frozen=True)
class Affix:
    """A title prefix or suffix shared by titles about different things."""

    text: str
    side: Literal["prefix", "suffix"]
    titles: int
    """How many titles carry it."""
    groups: int
    """How many different groups (scenarios, components) those titles are about."""


_IN_WORD_APOSTROPHE = re.compile(r"(?<=[^\W\d_])['’](?=[^\W\d_])")


def _eligible(tokens: tuple[str, ...]) -> bool:
    """Two words or more, or one token with a mark in it ("Re:", "[bug]"): a lone word ("Cannot",
    "Can't": an apostrophe inside a word is no mark) is language."""
    return len(tokens) >= 2 or not _IN_WORD_APOSTROPHE.sub("", tokens[0]).isalnum()


def _affix_candidates(
    tokens: list[str], max_words: int
) -> Iterable[tuple[Literal["prefix", "suffix"], tuple[str, ...]]]:
    for k in range(1, min(max_words, len(tokens) - 1) + 1):
        yield "prefix", tuple(tokens[:k])
        yield "suffix", tuple(tokens[-k:])


def stock_affixes(
    titles: Sequence[tuple[str, str]], min_share: float = 0.01, min_groups: int = 4, max_words: int = 4
) -> list[Affix]:
    """Prefixes and suffixes (up to `max_words` words) shared by many titles of different groups.

    `titles` are (title, group) pairs, the group saying what the title is about (its scenario or
    component). An affix is stock when at least `min_share` of the titles (and three of them) carry it
    and those titles span at least `min_groups` groups, with at least `min_groups` different words
    beside it: a wording that rides on titles about anything. A whole title that many reporters
    give alike ("Can you check?") carries no affix: the words beside its first two never change.
    Every stock affix, most common first; `distinct_affixes` trims the list for reading.
    """
    carriers: dict[tuple[Literal["prefix", "suffix"], tuple[str, ...]], list[tuple[str, str]]] = {}
    for title, group in titles:
        tokens = title.lower().split()
        for side, affix in set(_affix_candidates(tokens, max_words)):
            if _eligible(affix):
                rest = tokens[len(affix) :] if side == "prefix" else tokens[: -len(affix)]
                carriers.setdefault((side, affix), []).append((group, " ".join(words(" ".join(rest)))))
    floor = max(3, math.ceil(min_share * len(titles)))
    stock = {
        key: (len(found), len({g for g, _ in found}))
        for key, found in carriers.items()
        if len(found) >= floor
        and len({g for g, _ in found}) >= min_groups
        and len({rest for _, rest in found}) >= min_groups
    }

    out = [Affix(" ".join(affix), side, count, groups) for (side, affix), (count, groups) in stock.items()]
    return sorted(out, key=lambda a: (-a.titles, a.side, a.text))


def _extends(longer: Affix, shorter: Affix) -> bool:
    """True when `longer` is `shorter` with more words on its inner side ("at our company" of "our company")."""
    a, b = longer.text.split(), shorter.text.split()
    if longer.side != shorter.side or len(a) <= len(b):
        return False
    return a[: len(b)] == b if longer.side == "prefix" else a[-len(b) :] == b


def distinct_affixes(affixes: Sequence[Affix]) -> list[Affix]:
    """`affixes` less the parts of a longer one and the chains of two, for a reader.

    A part ("our company" of "at our company") goes when the longer affix carries nearly all its
    titles; a chain ("company - need help", the tail of one affix before another) goes when it
    carries far fewer titles than the affix it ends with.
    """
    out = []
    for a in affixes:
        part = any(_extends(b, a) and b.titles >= 0.9 * a.titles for b in affixes)
        chain = any(_extends(a, b) and a.titles < 0.9 * b.titles for b in affixes)
        if not (part or chain):
            out.append(a)
    return out


def titles_with_affix(titles: Iterable[str], affixes: Iterable[Affix]) -> int:
    """How many of `titles` begin or end with one of `affixes` (word for word, any case)."""
    prefixes = {tuple(a.text.split()) for a in affixes if a.side == "prefix"}
    suffixes = {tuple(a.text.split()) for a in affixes if a.side == "suffix"}
    count = 0
    for title in titles:
        tokens = tuple(title.lower().split())
        count += any(tokens[: len(p)] == p and len(tokens) > len(p) for p in prefixes) or any(
            tokens[-len(s) :] == s and len(tokens) > len(s) for s in suffixes
        )
    return count


# --------------------------------------------------------------------------- length and attachments


def bottom_decile(values: Sequence[float]) -> float:
    """The least value with at least a tenth of `values` at or below it (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(math.ceil(0.1 * len(ordered)), 1) - 1]


def top_decile(values: Sequence[float]) -> float:
    """The greatest value with at least a tenth of `values` at or above it (nearest rank)."""
    ordered = sorted(values, reverse=True)
    return ordered[max(math.ceil(0.1 * len(ordered)), 1) - 1]


_ATTACHED = re.compile(
    r"\battach(?:ed|ing)\b|\bi(?:'ve| have)? attach|\benclos(?:ed|ing)\b|\bscreen ?shots?\b|\bscreen ?(?:recording|capture|cast)s?\b"
    r"|\b(?:video|recording|loom|gif)\b|\bhar (?:file|export)\b|\.(?:png|jpe?g|gif|mp4|mov|webm|har)\b"
    r"|\b(?:console|browser) (?:output|log)s?\b|\blog (?:file|export|bundle)s?\b|\bsee (?:the )?(?:image|picture|file)s?\b",
    re.I,
)


def carries_none(texts: Sequence[str], patterns: Sequence[re.Pattern[str]]) -> float:
    """Share of `texts` in which none of `patterns` is found (a text's padding, say, by its sentence frames)."""
    return sum(not any(p.search(text) for p in patterns) for text in texts) / len(texts) if texts else 0.0


def mentions_attachment(text: str) -> bool:
    """True when `text` says what the reporter attached: a screenshot, a recording, a HAR or log file."""
    return _ATTACHED.search(text) is not None
