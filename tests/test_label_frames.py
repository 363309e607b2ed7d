"""No stock frame gives a label away: a run of six words that recurs across scenarios and nearly
always comes with one severity or disposition is held by at most a small share of that label's
tickets. A scenario's own wording may carry its label (it states the facts the rules read); a
sentence added around it ("Nothing fails and no data is affected.") may not."""

from __future__ import annotations

from functools import cache

import pytest

from openenv_bug_triage import textstats as ts
from openenv_bug_triage.generator import GeneratedTask, generate, label_samples, load_levels

SMALL_SHARE = 0.10
"""The most of a label's tickets one predicting frame may reach (the `label_frames` target)."""
LABELS = ("true_severity", "disposition")


@cache
def sample(split: str, instances: int = 30) -> list[GeneratedTask]:
    return [generate(level.task_id, seed, split) for level in load_levels().levels for seed in range(instances)]


def test_a_stock_frame_across_scenarios_is_found_and_a_scenarios_own_wording_is_not() -> None:
    stock = "Nothing fails and no data is affected here."
    rows = [(f"The {w} page shows the wrong colour. {stock}", "sev3", w) for w in ("board", "list", "chart", "form")]
    rows += [(f"Saving the {w} loses everything.", "sev0", w) for w in ("board", "list", "chart", "form")]
    rows += [("Exports of the timesheet drop the last row entirely.", "sev2", "export")] * 6
    frames = ts.label_frames(rows)
    assert {f.frame for f in frames} == {
        "nothing fails and no data is",
        "fails and no data is affected",
        "and no data is affected here",
    }
    assert all(f.label == "sev3" and f.of_label == 1.0 for f in frames)
    assert ts.label_framed_share(rows, frames) == pytest.approx(4 / len(rows))
    mixed = rows + [(f"Nothing fails and no data is affected, but {w} crashes.", "sev0", w) for w in "abcd"]
    shared = {"nothing fails and no data is", "fails and no data is affected"}
    assert shared.isdisjoint(f.frame for f in ts.label_frames(mixed))  # as often with another label: no prediction


@pytest.mark.parametrize("split", ("train", "validation", "test"))
@pytest.mark.parametrize("field", LABELS)
def test_no_frame_predicts_a_label_in_more_than_a_small_share_of_its_tickets(split: str, field: str) -> None:
    frames = ts.label_frames(label_samples(sample(split), field))
    worst = [(f.frame, f.label, round(f.of_label, 3)) for f in frames if f.of_label > SMALL_SHARE]
    assert not worst, worst[:5]
    assert ts.TARGETS["label_frames"].limit == SMALL_SHARE
