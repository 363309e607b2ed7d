"""The defect catalogue's size and the shape of defects written with the full field set.

A defect that states how it fails (`intermittent`, `reach`, `internal`) states all three and
carries at least two real log excerpts; every partition has such defects in every component,
so each split can show any component failing with a known mechanism.
"""

from __future__ import annotations

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
