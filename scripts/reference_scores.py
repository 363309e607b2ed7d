"""Print the reference policies' scores per task: mean and standard deviation over episodes.

    python scripts/reference_scores.py                                   # fixed tasks, seed 42
    python scripts/reference_scores.py --seeds 1 2 3 4 5 6 7 8 9 10     # fixed tasks, ten shuffles
    python scripts/reference_scores.py --tasks generated --split test --episodes 200

`--write` also puts the table into the figure block of README.md and docs/ that these arguments
name (`<!-- figures:reference_scores/seed-42 -->`, `.../validation-200`, ...).

    python scripts/reference_scores.py --tasks generated --episodes 50 --repeats 5

`--repeats K` evaluates instead: each policy plays every instance K times (the random policy with a
seed of its own per repeat; the deterministic heuristic and oracle once, which the report says), and
`<report-dir>/<policy>.json` gets its report (`openenv_bug_triage.evaluation`: mean with a 95%
bootstrap interval over instances, pass@k and pass^k, spread across repeats, mean subscores and
reward components), the console its tables, and `<report-dir>/scores.png` a plot of all policies.
`scripts/compare_runs.py` compares two such reports.

Fixed tasks use the seeds given (default 42). Generated tasks play `--episodes` instances of
`--split`, seeds 0 to N-1 (the same instances every run), so a held-out score reproduces.
`--tasks` takes task ids, or `fixed`, `generated` or `all`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from figures import REPO, fenced, replace_blocks, report_written

from openenv_bug_triage.evaluation import (
    EpisodeRecord,
    EvaluationReport,
    build_report,
    deterministic_note,
    format_report,
    instance_id,
)
from openenv_bug_triage.evaluation_plot import INSTALL_HINT, PlotUnavailableError, plot_reports
from openenv_bug_triage.grading import load_grading
from openenv_bug_triage.policies import DETERMINISTIC, POLICIES, policy_for_repeat, run_episode
from openenv_bug_triage.reward import COMPONENTS
from openenv_bug_triage.sources import is_generated, task_infos

DEFAULT_REPORT_DIR = Path("artifacts/reference")


def pick_tasks(names: list[str]) -> list[str]:
    """Expand `fixed`, `generated` and `all` into task ids, keeping order."""
    infos = task_infos()
    groups = {
        "fixed": [i.task_id for i in infos if i.splits is None],
        "generated": [i.task_id for i in infos if i.splits is not None],
        "all": [i.task_id for i in infos],
    }
    out: list[str] = []
    for name in names:
        out.extend(groups.get(name, [name]))
    return list(dict.fromkeys(out))


def cell(scores: list[float]) -> str:
    """One table cell: the mean, with the standard deviation when there is more than one episode."""
    mean = statistics.fmean(scores)
    return f"{mean:.3f}" if len(scores) == 1 else f"{mean:.3f} ± {statistics.pstdev(scores):.3f}"


def score_table(tasks: list[str], seeds: list[int], split: str, episodes: int) -> str:
    """The scores of every reference policy as a Markdown table (the last column: the mean of the task means)."""
    lines = [
        "| policy | " + " | ".join(f"`{t}`" for t in tasks) + " | mean |",
        "|---|" + "---|" * (len(tasks) + 1),
    ]
    for name, policy_cls in POLICIES.items():
        cells, means = [], []
        for task_id in tasks:
            if is_generated(task_id):
                runs: list[tuple[int, str | None]] = [(s, split) for s in range(episodes)]
            else:
                runs = [(s, None) for s in seeds]
            scores = [run_episode(policy_cls(), task_id, seed, run_split).grade.score for seed, run_split in runs]
            cells.append(cell(scores))
            means.append(statistics.fmean(scores))
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {statistics.fmean(means):.3f} |")
    return "\n".join(lines) + "\n"


def command(arguments: list[str]) -> str:
    """The command line that prints (and, with `--write`, writes) a table."""
    return " ".join(["python scripts/reference_scores.py", *arguments])


def block(tasks: list[str], seeds: list[int], split: str, episodes: int, arguments: list[str]) -> tuple[str, str]:
    """The figure block's name and body for these arguments."""
    if any(is_generated(t) for t in tasks):
        name = f"reference_scores/{split}-{episodes}"
        runs = f"mean ± sd over `{split}` instances, seeds 0 to {episodes - 1}"
    else:
        name = "reference_scores/seed-" + "-".join(map(str, seeds))
        runs = f"seed {seeds[0]}" if len(seeds) == 1 else f"mean ± sd over seeds {', '.join(map(str, seeds))}"
    caption = f"`{command(arguments)}` ({runs}):"
    return name, f"{caption}\n\n{score_table(tasks, seeds, split, episodes)}"


def instances(task_id: str, seeds: list[int], split: str, episodes: int) -> list[tuple[int, str | None]]:
    """The (seed, split) of every instance a task plays: `seeds` for a fixed task, 0..episodes-1 of `split` else."""
    return [(s, split) for s in range(episodes)] if is_generated(task_id) else [(s, None) for s in seeds]


def evaluate_policy(
    name: str, tasks: list[str], seeds: list[int], split: str, episodes: int, repeats: int
) -> EvaluationReport:
    """Policy `name` over every instance of `tasks`, `repeats` times each (once when it is deterministic)."""
    played = 1 if name in DETERMINISTIC else repeats
    records: dict[str, list[EpisodeRecord]] = {}
    for task_id in tasks:
        records[task_id] = []
        for seed, run_split in instances(task_id, seeds, split, episodes):
            for repeat in range(played):
                result = run_episode(policy_for_repeat(name, repeat), task_id, seed, run_split)
                records[task_id].append(
                    EpisodeRecord.of(
                        instance_id(seed, run_split), repeat, result.grade, result.reward_components, result.rewards
                    )
                )
    variation = (
        deterministic_note(name)
        if name in DETERMINISTIC
        else ("repeat_seed", f"{name} draws each repeat of an instance from a seed of its own")
    )
    return build_report(
        agent=name,
        model=name,
        split=split if any(is_generated(t) for t in tasks) else None,
        repeats_requested=repeats,
        variation=variation,
        records=records,
        pass_threshold=load_grading().pass_threshold,
        components=[c.name for c in COMPONENTS],
        settings={"seeds": " ".join(map(str, seeds)), "episodes": episodes},
    )


def evaluation_block(tasks: list[str], args: argparse.Namespace) -> tuple[str, str]:
    """The figure block's name and the plot's file name (under docs/images/) for a `--repeats` run."""
    if any(is_generated(t) for t in tasks):
        name = f"reference_scores/{args.split}-{args.episodes}x{args.repeats}"
    else:
        name = "reference_scores/seed-" + "-".join(map(str, args.seeds)) + f"x{args.repeats}"
    return name, name.replace("/", "-") + ".png"


def evaluate(args: argparse.Namespace, tasks: list[str], arguments: list[str]) -> None:
    """`--repeats`: write each policy's report and the plot, print the tables; with `--write`, the figure block."""
    reports = []
    for name in args.policies:
        report = evaluate_policy(name, tasks, args.seeds, args.split, args.episodes, args.repeats)
        path = args.report_dir / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
        print(format_report(report) + f"\nwrote {path}\n")
        reports.append((name, report))
    try:
        print(f"wrote {plot_reports(reports, args.report_dir / 'scores.png')}")
    except PlotUnavailableError:
        print(f"no plot: matplotlib is not installed ({INSTALL_HINT}); the reports are written", file=sys.stderr)
        if args.write:
            sys.exit("--write puts the plot into docs/images/ too, so it needs matplotlib: " + INSTALL_HINT)
    if args.write:
        block_name, image = evaluation_block(tasks, args)
        plot_reports(reports, REPO / "docs" / "images" / image)
        tables = "\n\n".join(format_report(r, detail=False) for _, r in reports)
        caption = f"`{command(arguments)}` (each policy's report under `{DEFAULT_REPORT_DIR}/`):"
        alt = "Mean score per task and policy with 95% bootstrap intervals over instances"
        body = f"{fenced(tables, caption)}\n![{alt}](images/{image})\n"
        report_written(block_name, replace_blocks(block_name, body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["fixed"], help="task ids, or fixed / generated / all")
    parser.add_argument("--seeds", type=int, nargs="+", default=[42], help="fixed tasks: seeds to average over")
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"], help="generated tasks")
    parser.add_argument("--episodes", type=int, default=50, help="generated tasks: instances (seeds 0..N-1)")
    parser.add_argument("--write", action="store_true", help="also write the table into the documents' figure block")
    parser.add_argument(
        "--repeats", type=int, help="evaluate: play every instance K times and write a report per policy (see above)"
    )
    parser.add_argument(
        "--policies", nargs="+", choices=list(POLICIES), default=list(POLICIES), help="with --repeats: which policies"
    )
    parser.add_argument(
        "--report-dir", type=Path, default=DEFAULT_REPORT_DIR, help=f"with --repeats (default: {DEFAULT_REPORT_DIR})"
    )
    args = parser.parse_args()
    arguments = [a for a in sys.argv[1:] if a != "--write"]
    if args.repeats is not None:
        if args.repeats < 1:
            parser.error("--repeats takes a count of at least 1")
        evaluate(args, pick_tasks(args.tasks), arguments)
        return
    name, body = block(pick_tasks(args.tasks), args.seeds, args.split, args.episodes, arguments)
    print(body, end="")
    if args.write:
        report_written(name, replace_blocks(name, body))


if __name__ == "__main__":
    main()
