"""The defect catalogue's size and the shape of defects written with the full field set.

A defect that states how it fails (`intermittent`, `reach`, `internal`) states all three and
carries at least two real log excerpts; every partition has such defects in every component,
so each split can show any component failing with a known mechanism.
"""

from __future__ import annotations

import re
from collections import Counter

from openenv_bug_triage.catalogue import Defect, load_catalogue
from openenv_bug_triage.world import load_world


def _stated(d: Defect) -> bool:
    return d.intermittent is not None or d.reach is not None or bool(d.internal)


def test_the_catalogue_holds_enough_defects_for_every_split() -> None:
    counts = Counter(d.partition for d in load_catalogue().defects)
    assert sum(counts.values()) >= 200, counts
    assert counts["test"] >= 50, counts
    assert min(counts.values()) >= 50, counts


def test_a_defect_that_states_how_it_fails_states_it_fully_with_real_logs() -> None:
    stated = [d for d in load_catalogue().defects if _stated(d)]
    assert stated
    for d in stated:
        assert d.intermittent is not None and d.reach is not None and d.internal, d.id
        assert len(d.logs) >= 2, d.id
        assert all(5 <= len(log.splitlines()) <= 25 for log in d.logs), d.id


def test_every_partition_has_fully_stated_defects_in_every_component() -> None:
    components = set(load_world().owner)
    for partition in ("train", "validation", "test"):
        seen = {d.component for d in load_catalogue().defects if d.partition == partition and _stated(d)}
        assert seen == components, (partition, sorted(components - seen))


def test_an_alert_that_may_say_everyone_is_hit_shows_more_than_half_failing() -> None:
    """By the handbook, more than half of attempts failing for everyone is down (sev0) and at most
    half is severe degradation (sev1): an alert whose metric shows a share of 50% or less (thresholds
    and baselines aside) is marked `partial`, so it never says that everyone is hit."""
    limits = re.compile(r"\((?:threshold|baseline|SLO)[^)]*\)")
    for d in load_catalogue().defects:
        if d.alert is None or d.impact != "core" or not d.global_ or d.alert.partial:
            continue
        shares = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", limits.sub("", d.alert.metric))]
        assert all(share > 50 for share in shares), (d.id, d.alert.metric)


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:\.\d+)?)")


def test_every_catalogue_log_is_written_in_time_order() -> None:
    """A request logged on completion goes after the lines written while it ran, not before them."""
    for d in load_catalogue().defects:
        for log in d.logs:
            stamps = [(m[1], m[2].ljust(12, "0")) for line in log.splitlines() if (m := _STAMP.match(line))]
            assert stamps == sorted(stamps), d.id


_DATE_TO_INSTANT = re.compile(r"(?<![T\d:])\d{4}-\d\d-\d\d -> \d{4}-\d\d-\d\dT\d\d:\d\d")


def test_no_log_converts_a_date_to_an_instant_the_ticket_time_would_move() -> None:
    """A log line such as `due 2026-11-12 -> 2026-11-11T23:00:00Z` states a time zone's midnight in UTC: a ticket's
    log moves every stamp by minutes and seconds, so the converted instant would land at no time zone's midnight."""
    for d in load_catalogue().defects:
        for log in d.logs:
            assert not _DATE_TO_INSTANT.search(log), d.id
