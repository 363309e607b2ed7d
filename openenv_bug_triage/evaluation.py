"""Statistics of repeated evaluation: bootstrap intervals, pass@k and pass^k, paired comparison.

Pure functions over typed records, no I/O: the baseline (`scripts/baseline_inference.py --repeats`),
the reference policies (`scripts/reference_scores.py --repeats`) and `scripts/compare_runs.py` all
build and read the same `EvaluationReport`.

The unit of resampling is the *instance* (one task seed, or one generated instance of a split):
repeats of one instance are not independent draws of the task, so every interval resamples whole
instances, each carrying the mean of its repeats.

- `bootstrap_interval(values)`: the percentile bootstrap of the mean, seeded, so the same input
  gives the same interval in every process.
- `pass_at_k(n, c, k)`: the chance that at least one of k of the n repeats passes, estimated
  without bias from c passes in n (1 - C(n-c, k) / C(n, k)).
- `pass_hat_k(n, c, k)`: the chance that all k pass (tau2-bench's pass^k: C(c, k) / C(n, k)).
- `summarise_task(...)`: a task's `TaskStats` from its `EpisodeRecord`s.
- `compare_reports(a, b)`: per task, the paired bootstrap of the difference of the means over the
  instances both reports played; raises `InstanceMismatchError` when those differ.

Usage:

    records = [EpisodeRecord(instance="test/0", repeat=0, score=0.7, passed=False), ...]
    stats = summarise_task("bug_triage_generated_hard", records, pass_threshold=0.75, seed=0)
    stats.mean, stats.interval.low, stats.interval.high, stats.pass_at_k[3], stats.pass_hat_k[3]
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .models import GraderResult

FORMAT: Literal["bug-triage-evaluation/1"] = "bug-triage-evaluation/1"
"""The `format` field of every report this module builds."""
CONFIDENCE = 0.95
RESAMPLES = 2000
"""Bootstrap resamples per interval: the interval's ends move by well under 0.01 between seeds."""
PLACES = 6
"""Every figure in a report is rounded to this many decimals, so reports compare byte for byte."""

Variation = Literal["sampling", "repeat_seed", "none"]
"""What makes repeats differ: a model's sampling, a seeded policy's repeat seed, or nothing (deterministic)."""
Verdict = Literal["A higher", "B higher", "no clear difference"]


class EvaluationError(ValueError):
    """Records or reports that cannot be summarised or compared as given."""


class InstanceMismatchError(EvaluationError):
    """Two reports did not play the same instances of a task, so a paired comparison is impossible."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EpisodeRecord(_Strict):
    """One played episode: which instance, which repeat, and what it scored."""

    instance: str
    """The instance's id within its task: `seed-42` for a fixed task, `test/7` for a generated one."""
    repeat: int = Field(ge=0)
    score: float = Field(ge=0.0, le=1.0)
    passed: bool
    """The grader's verdict: score at or above the pass threshold (and, where the grading says so, few major mistakes)."""
    subscores: dict[str, float] = Field(default_factory=dict)
    reward_components: dict[str, float] = Field(default_factory=dict)
    """Each reward component summed over the episode's steps (components that never fired may be absent)."""
    total_reward: float = 0.0

    @classmethod
    def of(
        cls,
        instance: str,
        repeat: int,
        grade: GraderResult,
        reward_components: Mapping[str, float],
        rewards: Iterable[float],
    ) -> EpisodeRecord:
        """The record of one played episode from its grade, its summed reward components and its step rewards."""
        return cls(
            instance=instance,
            repeat=repeat,
            score=grade.score,
            passed=grade.passed,
            subscores=grade.subscores,
            reward_components=dict(reward_components),
            total_reward=round(sum(rewards), 6),
        )


class Interval(_Strict):
    """A confidence interval of a mean."""

    low: float
    high: float
    confidence: float = CONFIDENCE

    @property
    def width(self) -> float:
        """`high - low`."""
        return self.high - self.low


class InstanceResult(_Strict):
    """One instance's repeats, in repeat order: what a paired comparison pairs on."""

    instance: str
    scores: list[float]
    passed: list[bool]

    @property
    def mean(self) -> float:
        """The mean score over the repeats."""
        return statistics.fmean(self.scores)


class TaskStats(_Strict):
    """Everything one task's repeated evaluation measured."""

    task_id: str
    instances: int = Field(ge=1)
    repeats: int = Field(ge=1)
    """Repeats played per instance (1 for a deterministic policy, whatever was asked)."""
    pass_threshold: float
    mean: float
    """Mean over instances of each instance's mean score."""
    interval: Interval
    """Percentile bootstrap interval of `mean`, resampling instances."""
    pass_at_k: dict[int, float]
    """k -> unbiased pass@k, for k = 1 .. repeats (pass@1 is the mean pass rate)."""
    pass_hat_k: dict[int, float]
    """k -> unbiased pass^k (all k repeats pass), for k = 1 .. repeats."""
    repeat_means_std: float | None
    """Sample standard deviation of the per-repeat means (None with one repeat)."""
    within_instance_std: float | None
    """Mean over instances of the sample standard deviation of its repeats' scores (None with one repeat)."""
    subscores: dict[str, float]
    """Mean of every grader subscore over all episodes."""
    reward_components: dict[str, float]
    """Mean per episode of every reward component's sum (0 for one that never fired), in the order given."""
    per_instance: list[InstanceResult]


class EvaluationReport(_Strict):
    """A repeated evaluation of one agent: who, how, and each task's statistics."""

    format: Literal["bug-triage-evaluation/1"] = FORMAT
    agent: str
    model: str
    split: str | None
    """The split generated tasks' instances came from (None when only fixed tasks ran)."""
    repeats_requested: int = Field(ge=1)
    variation: Variation
    variation_note: str
    """How repeats differ (or why they do not), in a sentence for the reader."""
    bootstrap_seed: int
    resamples: int
    completed: bool = True
    error: str | None = None
    mean_score: float | None
    """Mean of the task means (None when a task did not finish)."""
    tasks: dict[str, TaskStats]
    settings: dict[str, str | int | float | None] = Field(default_factory=dict)
    """The run's other settings as the script that made it records them (seed, version, endpoint, ...)."""
    created_at: str | None = None
    """When the run ended, for a run that records it (the report's only time-dependent field)."""


class TaskComparison(_Strict):
    """One task of two reports compared, paired on instances."""

    task_id: str
    instances: int
    mean_a: float
    mean_b: float
    difference: float
    """mean_a - mean_b."""
    interval: Interval
    """Paired bootstrap interval of `difference`."""
    verdict: Verdict

    @model_validator(mode="after")
    def _verdict_matches(self) -> TaskComparison:
        if self.verdict != verdict_of(self.interval):
            raise ValueError(f"verdict {self.verdict!r} does not match the interval {self.interval}")
        return self


class Comparison(_Strict):
    """Two reports compared task by task."""

    a: str
    b: str
    bootstrap_seed: int
    resamples: int
    tasks: dict[str, TaskComparison]


def instance_id(seed: int, split: str | None) -> str:
    """An instance's id within its task: `seed-42` for a fixed task, `test/7` for seed 7 of a generated task's split."""
    return f"seed-{seed}" if split is None else f"{split}/{seed}"


def deterministic_note(agent: str) -> tuple[Variation, str]:
    """What a report says of a deterministic policy's repeats (it plays each instance once)."""
    return "none", (
        f"{agent} is deterministic: every repeat would replay the same episode, so each instance was played "
        "once; pass@k = pass^k = pass@1 for every k and there is no spread across repeats"
    )


def _round(x: float) -> float:
    return round(x, PLACES) + 0.0  # + 0.0 turns -0.0 into 0.0


def _check_rate(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise EvaluationError(f"{name}={value} must lie in {low}..{high}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased chance that at least one of k draws of the n repeats passes, given c of them passed."""
    _check_rate("n", n, 1, 1 << 30)
    _check_rate("c", c, 0, n)
    _check_rate("k", k, 1, n)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased chance that all k draws of the n repeats pass, given c of them passed (tau2-bench's pass^k)."""
    _check_rate("n", n, 1, 1 << 30)
    _check_rate("c", c, 0, n)
    _check_rate("k", k, 1, n)
    return math.comb(c, k) / math.comb(n, k)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, linearly interpolated."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def bootstrap_interval(
    values: Sequence[float], seed: int | str = 0, resamples: int = RESAMPLES, confidence: float = CONFIDENCE
) -> Interval:
    """Percentile bootstrap interval of the mean of `values`, drawn from `random.Random(seed)`.

    The interval always holds the sample mean (a percentile interval of a very skewed sample could
    miss it by a hair; its ends are widened to the mean then). One value gives the point interval.
    """
    if not values:
        raise EvaluationError("bootstrap_interval needs at least one value")
    if not 0 < confidence < 1:
        raise EvaluationError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    if resamples < 1:
        raise EvaluationError(f"resamples must be at least 1, not {resamples}")
    mean = statistics.fmean(values)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1 - confidence) / 2
    low, high = _quantile(means, tail), _quantile(means, 1 - tail)
    return Interval(low=_round(min(low, mean)), high=_round(max(high, mean)), confidence=confidence)


def verdict_of(interval: Interval) -> Verdict:
    """`A higher` when the interval of A - B lies above 0, `B higher` below 0, else `no clear difference`."""
    if interval.low > 0:
        return "A higher"
    if interval.high < 0:
        return "B higher"
    return "no clear difference"


def _stdev(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def _means(records: Iterable[Mapping[str, float]], names: Iterable[str], count: int) -> dict[str, float]:
    """For each name (in order, then any others sorted), its sum over `records` divided by `count`."""
    totals: dict[str, float] = dict.fromkeys(names, 0.0)
    rows = list(records)
    for name in sorted({n for row in rows for n in row} - set(totals)):
        totals[name] = 0.0
    for name in totals:
        totals[name] = _round(math.fsum(row.get(name, 0.0) for row in rows) / count)
    return totals


def group_instances(records: Iterable[EpisodeRecord]) -> list[InstanceResult]:
    """Records grouped by instance (in first-seen order), each instance's repeats in repeat order.

    Raises `EvaluationError` when a repeat appears twice or the instances did not all play the same repeats.
    """
    grouped: dict[str, dict[int, EpisodeRecord]] = {}
    for record in records:
        repeats = grouped.setdefault(record.instance, {})
        if record.repeat in repeats:
            raise EvaluationError(f"instance {record.instance!r} has repeat {record.repeat} twice")
        repeats[record.repeat] = record
    played = {tuple(sorted(r)) for r in grouped.values()}
    if len(played) > 1:
        raise EvaluationError(f"every instance must play the same repeats, found {sorted(played)}")
    return [
        InstanceResult(
            instance=instance,
            scores=[repeats[r].score for r in sorted(repeats)],
            passed=[repeats[r].passed for r in sorted(repeats)],
        )
        for instance, repeats in grouped.items()
    ]


def summarise_task(
    task_id: str,
    records: Sequence[EpisodeRecord],
    pass_threshold: float,
    seed: int = 0,
    resamples: int = RESAMPLES,
    components: Sequence[str] = (),
) -> TaskStats:
    """A task's statistics from its episodes: every instance must have played the same repeats.

    `components` names the reward components to report in order (each 0 when it never fired);
    components the records hold beyond those follow, sorted. The bootstrap draws from a generator
    seeded with `seed` and the task id, so every task's interval is reproducible on its own.
    """
    if not records:
        raise EvaluationError(f"task {task_id!r} has no episodes to summarise")
    per_instance = group_instances(records)
    repeats = len(per_instance[0].scores)
    instance_means = [i.mean for i in per_instance]
    repeat_means = [statistics.fmean(i.scores[r] for i in per_instance) for r in range(repeats)]
    several = repeats > 1
    return TaskStats(
        task_id=task_id,
        instances=len(per_instance),
        repeats=repeats,
        pass_threshold=pass_threshold,
        mean=_round(statistics.fmean(instance_means)),
        interval=bootstrap_interval(instance_means, f"{seed}/{task_id}", resamples),
        pass_at_k={
            k: _round(statistics.fmean(pass_at_k(repeats, sum(i.passed), k) for i in per_instance))
            for k in range(1, repeats + 1)
        },
        pass_hat_k={
            k: _round(statistics.fmean(pass_hat_k(repeats, sum(i.passed), k) for i in per_instance))
            for k in range(1, repeats + 1)
        },
        repeat_means_std=_round(_stdev(repeat_means)) if several else None,
        within_instance_std=_round(statistics.fmean(_stdev(i.scores) for i in per_instance)) if several else None,
        subscores=_means((r.subscores for r in records), (), len(records)),
        reward_components=_means((r.reward_components for r in records), components, len(records)),
        per_instance=[
            InstanceResult(instance=i.instance, scores=[_round(s) for s in i.scores], passed=i.passed)
            for i in per_instance
        ],
    )


def mean_of_tasks(tasks: Mapping[str, TaskStats]) -> float | None:
    """The mean of the task means (None without tasks)."""
    return _round(statistics.fmean(t.mean for t in tasks.values())) if tasks else None


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], seed: int | str = 0, resamples: int = RESAMPLES
) -> Interval:
    """Bootstrap interval of mean(a) - mean(b), resampling the pairs (a[i], b[i]) together."""
    if len(a) != len(b):
        raise EvaluationError(f"paired samples must have the same length, not {len(a)} and {len(b)}")
    return bootstrap_interval([x - y for x, y in zip(a, b, strict=True)], seed, resamples)


def compare_tasks(a: TaskStats, b: TaskStats, seed: int = 0, resamples: int = RESAMPLES) -> TaskComparison:
    """One task of two reports compared on each instance's mean score, paired by instance id."""
    ids_a = [i.instance for i in a.per_instance]
    ids_b = {i.instance: i for i in b.per_instance}
    if set(ids_a) != set(ids_b):
        only_a, only_b = sorted(set(ids_a) - set(ids_b)), sorted(set(ids_b) - set(ids_a))
        raise InstanceMismatchError(
            f"task {a.task_id}: the reports played different instances (only in A: {only_a[:5] or 'none'}; "
            f"only in B: {only_b[:5] or 'none'}); run both with the same --tasks, --split and seeds "
            "(--seed and --instances, or --seeds and --episodes)"
        )
    xs = [i.mean for i in a.per_instance]
    ys = [ids_b[i].mean for i in ids_a]
    interval = paired_bootstrap(xs, ys, f"{seed}/{a.task_id}", resamples)
    return TaskComparison(
        task_id=a.task_id,
        instances=len(xs),
        mean_a=_round(statistics.fmean(xs)),
        mean_b=_round(statistics.fmean(ys)),
        difference=_round(statistics.fmean(xs) - statistics.fmean(ys)),
        interval=interval,
        verdict=verdict_of(interval),
    )


def compare_reports(
    a: EvaluationReport, b: EvaluationReport, name_a: str = "A", name_b: str = "B", seed: int = 0
) -> Comparison:
    """Every task of two reports compared; raises `InstanceMismatchError` unless both ran the same tasks and instances."""
    if set(a.tasks) != set(b.tasks):
        raise InstanceMismatchError(
            f"the reports ran different tasks (A: {sorted(a.tasks)}; B: {sorted(b.tasks)}); "
            "run both with the same --tasks"
        )
    resamples = max(a.resamples, b.resamples)
    return Comparison(
        a=name_a,
        b=name_b,
        bootstrap_seed=seed,
        resamples=resamples,
        tasks={t: compare_tasks(a.tasks[t], b.tasks[t], seed, resamples) for t in a.tasks},
    )


def build_report(
    *,
    agent: str,
    model: str,
    split: str | None,
    repeats_requested: int,
    variation: tuple[Variation, str],
    records: Mapping[str, Sequence[EpisodeRecord]],
    pass_threshold: float,
    components: Sequence[str] = (),
    seed: int = 0,
    resamples: int = RESAMPLES,
    error: str | None = None,
    settings: Mapping[str, str | int | float | None] | None = None,
    created_at: str | None = None,
) -> EvaluationReport:
    """A report over every task of `records` (task id -> its episodes); `error` marks a run that stopped early.

    A stopped run reports only the tasks it finished, and no `mean_score`.
    """
    tasks = {
        task_id: summarise_task(task_id, episodes, pass_threshold, seed, resamples, components)
        for task_id, episodes in records.items()
        if episodes
    }
    if variation[0] == "none":  # a deterministic agent's k tries are one try: pass@k = pass^k = pass@1, exactly
        tasks = {
            task_id: stats.model_copy(
                update={
                    "pass_at_k": dict.fromkeys(range(1, repeats_requested + 1), stats.pass_at_k[1]),
                    "pass_hat_k": dict.fromkeys(range(1, repeats_requested + 1), stats.pass_hat_k[1]),
                }
            )
            for task_id, stats in tasks.items()
        }
    return EvaluationReport(
        agent=agent,
        model=model,
        split=split,
        repeats_requested=repeats_requested,
        variation=variation[0],
        variation_note=variation[1],
        bootstrap_seed=seed,
        resamples=resamples,
        completed=error is None,
        error=error,
        mean_score=mean_of_tasks(tasks) if error is None else None,
        tasks=tasks,
        settings=dict(settings or {}),
        created_at=created_at,
    )


def _short(task_id: str) -> str:
    return task_id.removeprefix("bug_triage_")


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    """Rows under a header, the first column left-aligned and the others right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, None, *rows]:
        if row is None:
            lines.append("  ".join("-" * w for w in widths))
            continue
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        lines.append("  ".join(cells).rstrip())
    return lines


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_report(report: EvaluationReport, detail: bool = True) -> str:
    """The report as readable tables: scores with intervals and pass rates, then (with `detail`) the mean
    subscores and reward components."""
    tasks = list(report.tasks.values())
    k = report.repeats_requested
    level = f"{CONFIDENCE:.0%}"
    header = ["task", "inst x rep", "mean", f"{level} interval", "pass@1", f"pass@{k}", f"pass^{k}"]
    header += ["sd(rep means)", "mean sd within"]
    rows = [
        [
            _short(t.task_id),
            f"{t.instances} x {t.repeats}",
            f"{t.mean:.3f}",
            f"[{t.interval.low:.3f}, {t.interval.high:.3f}]",
            f"{t.pass_at_k[1]:.3f}",
            f"{t.pass_at_k[k]:.3f}" if k in t.pass_at_k else "-",
            f"{t.pass_hat_k[k]:.3f}" if k in t.pass_hat_k else "-",
            _figure(t.repeat_means_std),
            _figure(t.within_instance_std),
        ]
        for t in tasks
    ]
    threshold = tasks[0].pass_threshold if tasks else 0.0
    lines = [f"{report.model} ({report.agent}): {report.variation_note}"]
    lines += [f"pass = the grader's verdict (score >= {threshold:g}); intervals: bootstrap over instances", ""]
    lines += _grid(header, rows)
    if report.mean_score is not None:
        lines.append(f"mean of task means: {report.mean_score:.3f}")
    if report.error is not None:
        lines.append(f"stopped early: {report.error}")
    if not detail:
        return "\n".join(lines)
    names = [_short(t.task_id) for t in tasks]
    for title, field, style in (
        ("subscores (mean per episode)", "subscores", ".3f"),
        ("reward components (sum per episode, mean)", "reward_components", "+.3f"),
    ):
        keys = list(dict.fromkeys(name for t in tasks for name in getattr(t, field)))
        if keys:
            table = [[key, *(format(getattr(t, field).get(key, 0.0), style) for t in tasks)] for key in keys]
            lines += ["", title, *_grid(["", *names], table)]
    return "\n".join(lines)
