"""What the generator works out once per process answers as the plain computation would, every time."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import get_args

import pytest

from openenv_bug_triage.catalogue import Tag, _text, load_phrases
from openenv_bug_triage.generator.phrasing import CHOICE, compose
from openenv_bug_triage.generator.timeline import calendar_for

PARTITIONS = ("train", "validation", "test")


def test_pool_selections_match_a_plain_filter_whatever_was_asked_before() -> None:
    rng = random.Random(7)
    tags = list(get_args(Tag))
    asked = [frozenset(rng.sample(tags, rng.randrange(len(tags)))) for _ in range(60)]
    for pool in load_phrases().pools.values():
        for partition in PARTITIONS:
            entries = pool.entries(partition)
            assert pool.of(partition) == [_text(e) for e in entries]
            for have in asked:
                plain = [
                    _text(e)
                    for e in entries
                    if isinstance(e, str) or (set(e.requires) <= have and not have & set(e.forbids))
                ]
                assert pool.fitting(partition, have) == plain


def test_compose_draws_as_substituting_each_choice_in_turn() -> None:
    frames = [f for pool in load_phrases().pools.values() for p in PARTITIONS for f in pool.of(p)]
    assert any(CHOICE.search(f) for f in frames)
    for seed, frame in enumerate(frames):
        a, b = random.Random(seed), random.Random(seed)
        assert compose(frame, a) == CHOICE.sub(lambda m, r=b: r.choice(m.group(1).split("|")), frame)
        assert a.random() == b.random()  # the same number of draws


def test_timeline_lookups_match_a_scan_of_the_calendar() -> None:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    timeline = calendar_for(start, start + timedelta(days=3))
    for hours in range(-24 * 40, 24 * 4, 7):
        at = start + timedelta(hours=hours)
        for platform in ("web", "ios", "android", "api"):
            live = [r for r in timeline.releases if r.platform == platform and r.released_at <= at]
            assert timeline.live(platform, at) == live
            if live:
                assert timeline.current(platform, at) == live[-1]
            else:
                with pytest.raises(IndexError):
                    timeline.current(platform, at)
            after = next(r for r in timeline.releases if r.platform == platform and r.released_at > at)
            assert timeline.upcoming(platform, at) == after
