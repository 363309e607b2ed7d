"""A PNG of evaluation reports: each task's mean score with its 95% interval, one colour per report.

matplotlib is a development dependency (`requirements-dev.txt`, the `dev` extra), never a runtime one:
it is imported only when a plot is drawn, and `PlotUnavailableError` says how to install it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .evaluation import EvaluationError, EvaluationReport

INSTALL_HINT = "pip install matplotlib (it comes with requirements-dev.txt and the `dev` extra)"
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


class PlotUnavailableError(EvaluationError):
    """matplotlib is not installed, so no plot can be drawn."""


def plot_reports(reports: Sequence[tuple[str, EvaluationReport]], path: Path) -> Path:
    """Draw (label, report) pairs into the PNG at `path` (its folder is created); returns `path`.

    Tasks run along the x axis in the first report's order; each report's points sit side by side.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailableError(f"matplotlib is not installed, so no plot was drawn: {INSTALL_HINT}") from None
    if not reports:
        raise EvaluationError("plot_reports needs at least one report")
    task_ids = list(dict.fromkeys(t for _, r in reports for t in r.tasks))
    figure = Figure(figsize=(max(6.5, 2.0 * len(task_ids) + 1.5), 5.2), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    spacing = 0.8 / len(reports)
    threshold = None
    for n, (label, report) in enumerate(reports):
        offset = (n - (len(reports) - 1) / 2) * spacing
        xs: list[float] = []
        means: list[float] = []
        below: list[float] = []
        above: list[float] = []
        for x, task_id in enumerate(task_ids):
            stats = report.tasks.get(task_id)
            if stats is None:
                continue
            threshold = stats.pass_threshold
            xs.append(x + offset)
            means.append(stats.mean)
            below.append(stats.mean - stats.interval.low)
            above.append(stats.interval.high - stats.mean)
        shape = {1} | {t.repeats for t in report.tasks.values()}
        sizes = sorted({t.instances for t in report.tasks.values()})
        runs = f"{'/'.join(map(str, sizes))} inst x {max(shape)} rep"
        if report.variation == "none":
            runs += ", deterministic"
        colour = COLOURS[n % len(COLOURS)]
        axes.errorbar(
            xs, means, yerr=[below, above], fmt="o", capsize=5, color=colour, label=f"{label} ({runs})", markersize=6
        )
        for point, mean in zip(xs, means, strict=True):
            axes.annotate(f"{mean:.2f}", (point, mean), textcoords="offset points", xytext=(7, -3), fontsize=8)
    if threshold is not None:
        axes.axhline(threshold, color="grey", linestyle="--", linewidth=1)
        axes.text(len(task_ids) - 0.5, threshold + 0.01, f"pass threshold {threshold:g}", ha="right", fontsize=8)
    axes.set_xticks(range(len(task_ids)), [t.removeprefix("bug_triage_") for t in task_ids])
    axes.set_xlim(-0.6, len(task_ids) - 0.4)
    axes.set_ylim(-0.02, 1.05)
    axes.set_ylabel("mean score")
    axes.set_title("Mean score per task, 95% bootstrap interval over instances", fontsize=11)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=min(len(reports), 3), fontsize=8, frameon=False)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, metadata={"Software": None})
    return path
