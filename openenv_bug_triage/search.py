"""Search over a live queue's tracker history: BM25+ (the `rank-bm25` package) over each entry's title and summary.

BM25+ keeps every word's weight positive, which a small history needs (BM25's own weight is zero for a word in
half the entries); an entry is a match only when it holds a word of the query.

The ranking is deterministic: scores are rounded before ties are broken by the newer entry, then the id, so
the same query gives the same list on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rank_bm25 import BM25Plus

from .models import TrackerEntry, TrackerStatus
from .tasks import STOPWORDS

__all__ = ["DEFAULT_RESULTS", "MAX_RESULTS", "TrackerIndex", "tokens"]

MAX_RESULTS = 10
"""The most entries one search returns."""
DEFAULT_RESULTS = 5
"""How many entries a search returns unless it asks for another number."""

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case words of `text` without the commonest English ones (the duplicate hints' `STOPWORDS`)."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class TrackerIndex:
    """A BM25 index over tracker entries, built once per episode."""

    def __init__(self, entries: Sequence[TrackerEntry]) -> None:
        self.entries = tuple(entries)
        corpus = [tokens(f"{e.title} {e.summary}") or ["_"] for e in self.entries]
        self._words = [frozenset(doc) for doc in corpus]
        self._bm25 = BM25Plus(corpus) if corpus else None

    def search(
        self,
        query: str,
        status: TrackerStatus | None = None,
        component: str | None = None,
        limit: int = DEFAULT_RESULTS,
    ) -> list[TrackerEntry]:
        """The entries that hold a word of `query`, best first, filtered by `status` and `component`."""
        words = tokens(query)
        if self._bm25 is None or not words:
            return []
        scores = self._bm25.get_scores(words)
        wanted = frozenset(words)
        ranked = sorted(
            (
                (-round(float(score), 6), -e.created_at.timestamp(), e.ticket_id, e)
                for e, score, held in zip(self.entries, scores, self._words, strict=True)
                if held & wanted
                and (status is None or e.status == status)
                and (component is None or e.component == component)
            ),
            key=lambda row: row[:3],
        )
        return [row[3] for row in ranked[: max(1, min(limit, MAX_RESULTS))]]
