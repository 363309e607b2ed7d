"""The evaluation statistics: pass@k / pass^k estimators, bootstrap intervals, paired comparison."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openenv_bug_triage.agents.repeated import variation
from openenv_bug_triage.evaluation import (
    EpisodeRecord,
    EvaluationError,
    EvaluationReport,
    InstanceMismatchError,
    bootstrap_interval,
    compare_reports,
    mean_of_tasks,
    pass_at_k,
    pass_hat_k,
    summarise_task,
    verdict_of,
)
from openenv_bug_triage.policies import (
    DETERMINISTIC,
    POLICIES,
    HeuristicPolicy,
    RandomPolicy,
    policy_for_repeat,
    run_episode,
)
from openenv_bug_triage.reward import WEIGHTS

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def outcomes(draw: st.DrawFn) -> tuple[int, int]:
    """(n, c): n repeats of which c passed."""
    n = draw(st.integers(min_value=1, max_value=12))
    return n, draw(st.integers(min_value=0, max_value=n))


@st.composite
def task_records(draw: st.DrawFn) -> list[EpisodeRecord]:
    """Episodes of a task: some instances, each with the same number of repeats."""
    instances = draw(st.integers(min_value=1, max_value=8))
    repeats = draw(st.integers(min_value=1, max_value=5))
    return [
        EpisodeRecord(instance=f"test/{i}", repeat=r, score=(s := draw(scores)), passed=s >= 0.75)
        for i in range(instances)
        for r in range(repeats)
    ]


@given(outcomes())
def test_pass_at_one_is_the_pass_rate(nc: tuple[int, int]) -> None:
    n, c = nc
    assert math.isclose(pass_at_k(n, c, 1), c / n) and math.isclose(pass_hat_k(n, c, 1), c / n)


@given(outcomes(), st.data())
def test_pass_hat_k_at_most_pass_at_one_at_most_pass_at_k(nc: tuple[int, int], data: st.DataObject) -> None:
    n, c = nc
    k = data.draw(st.integers(min_value=1, max_value=n))
    assert pass_hat_k(n, c, k) <= pass_at_k(n, c, 1) + 1e-12 <= pass_at_k(n, c, k) + 2e-12
    assert 0.0 <= pass_hat_k(n, c, k) <= 1.0 and 0.0 <= pass_at_k(n, c, k) <= 1.0


def test_pass_estimators_on_known_values() -> None:
    assert pass_at_k(5, 0, 3) == 0.0 and pass_hat_k(5, 5, 3) == 1.0
    assert pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)  # both draws miss: C(2,2)/C(4,2)
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    with pytest.raises(EvaluationError, match=r"k=4 must lie in 1\.\.3"):
        pass_at_k(3, 1, 4)
    with pytest.raises(EvaluationError, match="c=5"):
        pass_hat_k(3, 5, 1)


@given(task_records())
def test_task_pass_at_one_is_the_mean_pass_rate_and_the_bounds_hold(records: list[EpisodeRecord]) -> None:
    stats = summarise_task("t", records, 0.75, resamples=200)
    rate = statistics.fmean(r.passed for r in records)
    assert stats.pass_at_k[1] == pytest.approx(rate, abs=1e-6) == stats.pass_hat_k[1]
    for k in stats.pass_at_k:
        assert stats.pass_hat_k[k] <= stats.pass_at_k[1] + 1e-6 <= stats.pass_at_k[k] + 2e-6


@given(st.lists(scores, min_size=1, max_size=30), st.integers(min_value=0, max_value=10**6))
@settings(max_examples=60)
def test_the_interval_holds_the_mean(values: list[float], seed: int) -> None:
    interval = bootstrap_interval(values, seed, resamples=300)
    assert interval.low <= round(statistics.fmean(values), 6) <= interval.high


@given(st.lists(scores, min_size=6, max_size=20).filter(lambda v: statistics.pstdev(v) > 0.05))
@settings(max_examples=30, deadline=None)
def test_the_interval_shrinks_with_more_instances(values: list[float]) -> None:
    few = bootstrap_interval(values, 1)
    many = bootstrap_interval(values * 9, 1)  # nine times the instances, the same spread: a third of the width
    assert many.width < few.width * 0.6


@given(task_records())
@settings(max_examples=25)
def test_identical_input_gives_identical_bytes(records: list[EpisodeRecord]) -> None:
    first = summarise_task("t", records, 0.75, seed=3, resamples=200).model_dump_json()
    again = summarise_task("t", [r.model_copy() for r in records], 0.75, seed=3, resamples=200).model_dump_json()
    assert first == again


def test_spread_is_measured_across_and_within_repeats() -> None:
    records = [
        EpisodeRecord(instance=i, repeat=r, score=s, passed=s >= 0.75)
        for i, row in (("a", (0.2, 0.4)), ("b", (1.0, 0.6)))
        for r, s in enumerate(row)
    ]
    stats = summarise_task("t", records, 0.75, resamples=200)
    assert stats.repeats == 2 and stats.instances == 2 and stats.mean == 0.55
    assert stats.repeat_means_std == pytest.approx(statistics.stdev([0.6, 0.5]), abs=1e-6)
    within = (statistics.stdev([0.2, 0.4]) + statistics.stdev([1.0, 0.6])) / 2
    assert stats.within_instance_std == pytest.approx(within, abs=1e-6)
    # a never passes, b passes one repeat of two: pass@2 = (0 + 1) / 2, pass^2 = 0
    assert stats.pass_at_k == {1: 0.25, 2: 0.5} and stats.pass_hat_k == {1: 0.25, 2: 0.0}
    one = summarise_task("t", [r for r in records if r.repeat == 0], 0.75, resamples=200)
    assert one.repeat_means_std is None and one.within_instance_std is None


def test_components_and_subscores_are_averaged_over_episodes_in_order() -> None:
    records = [
        EpisodeRecord(
            instance="x", repeat=0, score=0.5, passed=False, subscores={"sla": 1.0}, reward_components={"relabel": -0.1}
        ),
        EpisodeRecord(instance="x", repeat=1, score=0.5, passed=False, subscores={"sla": 0.0}),
    ]
    stats = summarise_task("t", records, 0.75, resamples=50, components=["no_op", "relabel"])
    assert stats.reward_components == {"no_op": 0.0, "relabel": -0.05} and stats.subscores == {"sla": 0.5}


def test_uneven_or_doubled_repeats_are_refused() -> None:
    a0 = EpisodeRecord(instance="a", repeat=0, score=0.5, passed=False)
    with pytest.raises(EvaluationError, match="same repeats"):
        summarise_task("t", [a0, a0.model_copy(update={"repeat": 1}), a0.model_copy(update={"instance": "b"})], 0.75)
    b1 = a0.model_copy(update={"instance": "b", "repeat": 1})
    with pytest.raises(EvaluationError, match=r"same repeats, found \[\(0,\), \(1,\)\]"):
        summarise_task("t", [a0, b1], 0.75)
    with pytest.raises(EvaluationError, match="repeat 0 twice"):
        summarise_task("t", [a0, a0], 0.75)


def _report(task_scores: dict[str, dict[str, list[float]]]) -> EvaluationReport:
    tasks = {
        task: summarise_task(
            task,
            [
                EpisodeRecord(instance=i, repeat=r, score=s, passed=s >= 0.75)
                for i, repeats in instances.items()
                for r, s in enumerate(repeats)
            ],
            0.75,
            resamples=500,
        )
        for task, instances in task_scores.items()
    }
    return EvaluationReport(
        agent="x",
        model="x",
        split="test",
        repeats_requested=1,
        variation="none",
        variation_note="",
        bootstrap_seed=0,
        resamples=500,
        mean_score=mean_of_tasks(tasks),
        tasks=tasks,
    )


def test_a_paired_comparison_finds_a_consistent_gap_that_an_unpaired_view_would_blur() -> None:
    base = [0.1 * i for i in range(10)]  # instances differ a lot between them ...
    a = _report({"t": {f"s{i}": [v + 0.05] for i, v in enumerate(base)}})  # ... A beats B by 0.05 on every one
    b = _report({"t": {f"s{i}": [v] for i, v in enumerate(base)}})
    assert not (a.tasks["t"].interval.low > b.tasks["t"].interval.high)  # the unpaired intervals overlap
    result = compare_reports(a, b).tasks["t"]
    assert result.verdict == "A higher" and result.difference == pytest.approx(0.05)
    assert compare_reports(b, a).tasks["t"].verdict == "B higher"
    assert compare_reports(a, a).tasks["t"].verdict == "no clear difference"


def test_noise_is_no_clear_difference() -> None:
    a = _report({"t": {f"s{i}": [v] for i, v in enumerate([0.2, 0.9, 0.4, 0.6, 0.3, 0.8])}})
    b = _report({"t": {f"s{i}": [v] for i, v in enumerate([0.9, 0.2, 0.6, 0.4, 0.8, 0.3])}})
    assert compare_reports(a, b).tasks["t"].verdict == "no clear difference"


def test_different_instances_or_tasks_are_refused() -> None:
    a = _report({"t": {"test/0": [0.5], "test/1": [0.5]}})
    with pytest.raises(InstanceMismatchError, match=r"only in A: \['test/1'\]; only in B: \['test/2'\]"):
        compare_reports(a, _report({"t": {"test/0": [0.5], "test/2": [0.5]}}))
    with pytest.raises(InstanceMismatchError, match="different tasks"):
        compare_reports(a, _report({"u": {"test/0": [0.5], "test/1": [0.5]}}))


def test_verdict_follows_the_interval() -> None:
    interval = bootstrap_interval([0.1, 0.2, 0.3])
    assert verdict_of(interval) == "A higher"
    assert verdict_of(bootstrap_interval([-0.1, 0.1])) == "no clear difference"


def test_random_repeats_draw_anew_and_repeat_zero_is_the_plain_run() -> None:
    plain = run_episode(RandomPolicy(), "bug_triage_easy", 7)
    again = run_episode(policy_for_repeat("random", 0), "bug_triage_easy", 7)
    other = run_episode(policy_for_repeat("random", 1), "bug_triage_easy", 7)
    assert again.rewards == plain.rewards and other.rewards != plain.rewards
    assert all(type(policy_for_repeat(name, 3)) is POLICIES[name] for name in POLICIES)
    heuristic = [run_episode(policy_for_repeat("heuristic", r), "bug_triage_easy", 7).rewards for r in range(2)]
    assert "heuristic" in DETERMINISTIC and heuristic[0] == heuristic[1]


def test_an_episodes_reward_components_sum_its_steps() -> None:
    result = run_episode(HeuristicPolicy(), "bug_triage_medium", 42)
    assert set(result.reward_components) <= set(WEIGHTS) and result.reward_components
    assert math.isclose(sum(result.reward_components.values()), sum(result.rewards), abs_tol=1e-9)  # no step clamped


def test_the_variation_note_says_what_makes_repeats_differ() -> None:
    assert variation("heuristic", None, 42)[0] == "none"
    assert variation("random", None, 42)[0] == "repeat_seed"
    kind, note = variation("llm", 0.0, 42)
    assert kind == "sampling" and "temperature 0" in note and "API seed 42 + r" in note and "not deterministic" in note
    assert "default temperature" in variation("llm", None, 42)[1]
