"""Compare two evaluation reports task by task: is A's mean score really different from B's?

    python scripts/compare_runs.py artifacts/evaluation.json artifacts/runs/20261201T091500Z-llm.json
    python scripts/compare_runs.py artifacts/reference/heuristic.json artifacts/evaluation.json --output cmp.json

Either report may come from `scripts/baseline_inference.py --repeats` or `scripts/reference_scores.py
--repeats`. Both must have played the same tasks and instances (the same `--tasks`, `--split`, seeds and
instance count; repeats may differ): each instance's mean over its repeats is paired with the other
report's, and a paired bootstrap over instances gives the difference A - B with its 95% interval.
The verdict is `A higher` or `B higher` when that interval excludes 0, else `no clear difference`.

A script of its own rather than a subcommand: it reads reports of both scripts and runs nothing.
Exit codes: 0 compared; 2 a report is missing, is not an evaluation report, or the instances differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError

from openenv_bug_triage.evaluation import (
    CONFIDENCE,
    Comparison,
    EvaluationReport,
    InstanceMismatchError,
    compare_reports,
)

EXIT_OK, EXIT_USAGE = 0, 2


class ReportError(Exception):
    """A file that cannot be read as an evaluation report."""


def load_report(path: Path) -> EvaluationReport:
    """The evaluation report at `path`; raises `ReportError` saying what is wrong and how to get one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return EvaluationReport.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the document"
        raise ReportError(
            f"{path} is not an evaluation report ({where}: {first['msg']}); write one with "
            "`scripts/baseline_inference.py --repeats K` or `scripts/reference_scores.py --repeats K`"
        ) from None


def format_comparison(result: Comparison, a: EvaluationReport, b: EvaluationReport) -> str:
    """The comparison as a table, with who A and B are above it."""
    lines = [f"A = {result.a} ({a.model}, {a.agent})", f"B = {result.b} ({b.model}, {b.agent})", ""]
    header = ["task", "instances", "mean A", "mean B", "A - B", f"{CONFIDENCE:.0%} interval", "verdict"]
    rows = [
        [
            t.task_id.removeprefix("bug_triage_"),
            str(t.instances),
            f"{t.mean_a:.3f}",
            f"{t.mean_b:.3f}",
            f"{t.difference:+.3f}",
            f"[{t.interval.low:+.3f}, {t.interval.high:+.3f}]",
            t.verdict,
        ]
        for t in result.tasks.values()
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:-1], widths[1:-1], strict=True))]
        lines.append("  ".join([*cells, row[-1]]))
    lines.append("")
    lines.append(
        "paired bootstrap over instances; a verdict other than `no clear difference` means the interval excludes 0"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path, help="report A")
    parser.add_argument("b", type=Path, help="report B")
    parser.add_argument("--output", type=Path, help="also write the comparison as JSON to this path")
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    args = parser.parse_args(argv)
    try:
        a, b = load_report(args.a), load_report(args.b)
        result = compare_reports(a, b, str(args.a), str(args.b), args.seed)
    except (ReportError, InstanceMismatchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(format_comparison(result, a, b))
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
