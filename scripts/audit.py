"""A gaming audit: canary policies beside the heuristic, the shallow learned reference and the oracle, per task.

    python scripts/audit.py                                              # fixed and generated tasks, test split
    python scripts/audit.py --tasks generated --split validation --episodes 100
    python scripts/audit.py --source my_tracker --tasks my_tracker_week_48   # a source of your own
    python scripts/audit.py --json                                       # the same figures as JSON

Each canary (`openenv_bug_triage.canaries`) plays one shortcut: constant answers, keyword
stuffing, duplicate spam, asking for everything, rules over structured fields, reward probing,
memorising across instances, random moves. The table gives each policy's mean score per task, then

- the floor gap: the heuristic minus the best canary (a canary at or above the heuristic games the task);
- the headroom: the oracle minus the heuristic (what is left to learn);
- the difficulty separation: per source, the heuristic's score and its share of the oracle's from
  the easiest level to the hardest (they should fall).

It exits with status 1, naming them, when a canary beats the heuristic on a task. The memoriser
is judged only where its instances are held out: a fixed task replays the same tickets under
every seed, so learning them there is expected and shown, not judged.

Every task plays seeds 0 to N-1 (`--episodes`), of `--split` for tasks with splits. The fitted
canary (`fields_only`) and the shallow reference fit on train instances 0 to T-1
(`--train-instances`); a task without splits fits `fields_only` on every such task audited at once,
scored on the tickets it fitted (its best case). With `--split train` the played seeds start at
1,000,000, away from the fitted ones. `--source MODULE` imports a module that registers task
sources (`openenv_bug_triage.sources.register_source`) before the audit looks up `--tasks`.
`--write` puts the report, with its command, date and time, into the `<!-- figures:gaming_audit -->`
block of README.md.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Literal

from figures import replace_blocks, report_written
from pydantic import BaseModel, ConfigDict, computed_field
from reference_scores import pick_tasks

from openenv_bug_triage.canaries import CANARY_NAMES, Memoriser, Rules, fit_rules, make_canary, play, training_rows
from openenv_bug_triage.episode import Policy
from openenv_bug_triage.grading import load_grading
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy
from openenv_bug_triage.sources import load_task, task_info, task_infos

FRESH_TRAIN_SEED = 1_000_000
"""With `--split train`, played seeds start here, away from the seeds the fitted policies saw."""
REFERENCES = ("heuristic", "shallow", "oracle")


class Row(BaseModel):
    """One policy's scores on one task, or why it did not play."""

    model_config = ConfigDict(extra="forbid")

    policy: str
    kind: Literal["canary", "reference"]
    scores: list[float] | None
    """One score per instance, in seed order; None when the policy could not play."""
    note: str | None = None
    judged: bool = True
    """False where a beaten heuristic would not mean a gameable task (the memoriser on repeated tickets)."""

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use on a property
    @property
    def mean(self) -> float | None:
        """The mean score, None when the policy did not play."""
        return statistics.fmean(self.scores) if self.scores else None


class TaskAudit(BaseModel):
    """Every policy on one task, with the gaps the audit judges by."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    source: str
    difficulty: str
    split: str | None
    seeds: list[int]
    rows: list[Row]
    best_canary: str
    floor_gap: float
    """The heuristic's mean minus the best judged canary's."""
    headroom: float
    """The oracle's mean minus the heuristic's."""
    beaten_by: list[str]
    """Judged canaries whose mean is above the heuristic's."""

    def mean(self, policy: str) -> float | None:
        return next(r.mean for r in self.rows if r.policy == policy)


class Separation(BaseModel):
    """One source's levels from the easiest to the hardest: the heuristic's score and its share of the oracle's."""

    model_config = ConfigDict(extra="forbid")

    source: str
    levels: list[str]
    heuristic: list[float]
    normalised: list[float]
    falls: bool
    """True when both fall from each level to the next harder one."""


class Audit(BaseModel):
    """The whole report: `--json` prints it."""

    model_config = ConfigDict(extra="forbid")

    episodes: int
    train_instances: int
    tasks: list[TaskAudit]
    separation: list[Separation]
    failures: list[str]
    """One line per canary that beats the heuristic on a task; empty when the audit passes."""


# --------------------------------------------------------------------------- playing


def seeds_for(task_id: str, split: str, episodes: int) -> tuple[str | None, list[int]]:
    """The split and seeds a task plays: seeds 0 to N-1 (from FRESH_TRAIN_SEED for train), no split without splits."""
    if task_info(task_id).splits is None:
        return None, list(range(episodes))
    first = FRESH_TRAIN_SEED if split == "train" else 0
    return split, list(range(first, first + episodes))


def fields_rules(tasks: Sequence[str], task_id: str, train_instances: int) -> Rules:
    """The `fields_only` canary's rules for `task_id`: fitted on its train split, or on every audited task without splits."""
    if task_info(task_id).splits is not None:
        return fit_rules(training_rows((task_id, seed, "train") for seed in range(train_instances)))
    return fit_rules(training_rows((t, None, None) for t in tasks if task_info(t).splits is None))


def memorised(task_id: str, split: str | None, seeds: Sequence[int]) -> Row:
    """The memoriser over the instances in order, learning on each; judged only when no instance repeats earlier tickets."""
    memoriser = Memoriser()
    scores, seen, repeats = [], set[tuple[str, str]](), False
    for seed in seeds:
        tickets = {(t.title, t.description) for t in load_task(task_id, seed, split).tickets}
        repeats = repeats or bool(tickets & seen)
        seen |= tickets
        scores.append(play(memoriser, task_id, seed, split))
    note = "instances repeat their tickets: memorising is expected, not judged" if repeats else None
    return Row(policy="memoriser", kind="canary", scores=scores, note=note, judged=not repeats)


Factory = Callable[[], Policy]
Shallow = tuple[Factory | None, str]
"""The shallow reference's policy factory (None when it cannot run here) and its row's note."""


def shallow_reference(train_instances: int) -> Shallow:
    """Fit the shallow reference on train instances of every generated level, or say why it cannot run here."""
    import shallow_baseline

    if shallow_baseline.MISSING is not None:
        return None, f"not run: {shallow_baseline.MISSING}"
    levels = [info.task_id for info in task_infos() if info.source == "generated"]
    runs = [(level, seed) for level in levels for seed in range(train_instances)]
    tickets, truths = shallow_baseline.labelled(levels, "train", runs)
    model = shallow_baseline.Shallow().fit(tickets, truths)
    note = f"TF-IDF + logistic regression fitted on {train_instances} train instances per generated level"
    return (lambda: shallow_baseline.ShallowPolicy(model=model)), note


def audit_task(
    task_id: str, tasks: Sequence[str], split: str, episodes: int, train_instances: int, shallow: Shallow
) -> TaskAudit:
    """Every canary and reference policy on one task."""
    info = task_info(task_id)
    run_split, seeds = seeds_for(task_id, split, episodes)
    rules = fields_rules(tasks, task_id, train_instances)

    def scores(make: Factory) -> list[float]:
        return [play(make(), task_id, seed, run_split) for seed in seeds]

    rows = []
    for name in CANARY_NAMES:
        if name == "memoriser":
            rows.append(memorised(task_id, run_split, seeds))
        else:
            rows.append(Row(policy=name, kind="canary", scores=scores(lambda name=name: make_canary(name, rules))))
    rows.append(Row(policy="heuristic", kind="reference", scores=scores(HeuristicPolicy)))
    make_shallow, note = shallow
    shallow_scores = None if make_shallow is None else scores(make_shallow)
    rows.append(Row(policy="shallow", kind="reference", scores=shallow_scores, note=note))
    rows.append(Row(policy="oracle", kind="reference", scores=scores(OraclePolicy)))

    means = {r.policy: r.mean for r in rows}
    heuristic, oracle = means["heuristic"] or 0.0, means["oracle"] or 0.0
    judged = [r for r in rows if r.kind == "canary" and r.judged and r.mean is not None]
    best = max(judged, key=lambda r: r.mean or 0.0)
    return TaskAudit(
        task_id=task_id,
        source=info.source,
        difficulty=info.difficulty,
        split=run_split,
        seeds=seeds,
        rows=rows,
        best_canary=best.policy,
        floor_gap=heuristic - (best.mean or 0.0),
        headroom=oracle - heuristic,
        beaten_by=[r.policy for r in judged if (r.mean or 0.0) > heuristic],
    )


def separations(audits: Sequence[TaskAudit]) -> list[Separation]:
    """Per source with two levels or more, the heuristic and its share of the oracle from the easiest level up."""
    order = list(load_grading().weights)
    out = []
    for source in dict.fromkeys(a.source for a in audits):
        levels = sorted((a for a in audits if a.source == source), key=lambda a: order.index(a.difficulty))
        if len(levels) < 2:
            continue
        heuristic = [a.mean("heuristic") or 0.0 for a in levels]
        normalised = [h / (a.mean("oracle") or 1.0) for h, a in zip(heuristic, levels, strict=True)]
        falls = all(x > y for x, y in pairwise(heuristic)) and all(x > y for x, y in pairwise(normalised))
        out.append(
            Separation(
                source=source,
                levels=[a.task_id for a in levels],
                heuristic=heuristic,
                normalised=normalised,
                falls=falls,
            )
        )
    return out


def run_audit(
    tasks: Sequence[str], split: str, episodes: int, train_instances: int, with_shallow: bool = True
) -> Audit:
    """Play every policy on every task and judge the canaries."""
    shallow: Shallow = shallow_reference(train_instances) if with_shallow else (None, "not run: --no-shallow")
    audits = [audit_task(t, tasks, split, episodes, train_instances, shallow) for t in tasks]
    failures = [
        f"{name} beats the heuristic on {a.task_id}: {a.mean(name):.3f} > {a.mean('heuristic'):.3f}"
        for a in audits
        for name in a.beaten_by
    ]
    return Audit(
        episodes=episodes,
        train_instances=train_instances,
        tasks=audits,
        separation=separations(audits),
        failures=failures,
    )


# --------------------------------------------------------------------------- printing


def table(audit: Audit) -> str:
    """The report as Markdown: scores per policy and task, the gaps, the separation and the verdict."""
    tasks = audit.tasks
    lines = [
        "| policy | " + " | ".join(f"`{a.task_id}`" for a in tasks) + " |",
        "|---|" + "---|" * len(tasks),
    ]
    notes: dict[str, str] = {}
    for i, row in enumerate(tasks[0].rows):
        cells = []
        for a in tasks:
            r = a.rows[i]
            if r.mean is None:
                cells.append("n/a")
                notes.setdefault(f"{r.policy}: {r.note}", "")
                continue
            mark = "" if r.judged else " †"
            cells.append(f"{r.mean:.3f}{mark}")
            if not r.judged:
                notes.setdefault(f"† {r.policy}: {r.note}", "")
        label = f"**{row.policy}**" if row.kind == "reference" else row.policy
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| best canary | " + " | ".join(a.best_canary for a in tasks) + " |")
    lines.append("| floor gap (heuristic − best canary) | " + " | ".join(f"{a.floor_gap:+.3f}" for a in tasks) + " |")
    lines.append("| headroom (oracle − heuristic) | " + " | ".join(f"{a.headroom:+.3f}" for a in tasks) + " |")
    lines.append("")
    lines.extend(f"- {note}" for note in notes)
    for sep in audit.separation:
        heuristic = " → ".join(f"{v:.3f}" for v in sep.heuristic)
        normalised = " → ".join(f"{v:.3f}" for v in sep.normalised)
        verdict = "falls" if sep.falls else "does NOT fall"
        lines.append(
            f"- separation, {sep.source} ({', '.join(sep.levels)}): heuristic {heuristic}; "
            f"share of the oracle {normalised}: {verdict}"
        )
    if audit.failures:
        lines.append("- FAIL: a canary beats the heuristic:")
        lines.extend(f"  - {failure}" for failure in audit.failures)
    else:
        lines.append("- PASS: no canary beats the heuristic on any task")
    return "\n".join(lines) + "\n"


def summary(audit: Audit) -> str:
    """The report in brief, a task a row: the references, the best canary, the gaps and the verdict."""
    lines = [
        "| task | heuristic | shallow | oracle | best canary | floor gap | headroom |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in audit.tasks:
        means = {r.policy: r.mean for r in a.rows}
        cells = [f"{v:.3f}" if (v := means.get(p)) is not None else "n/a" for p in ("heuristic", "shallow", "oracle")]
        best = means.get(a.best_canary)
        best_cell = f"{a.best_canary} {best:.3f}" if best is not None else a.best_canary
        lines.append(
            f"| `{a.task_id}` | " + " | ".join(cells) + f" | {best_cell} | {a.floor_gap:+.3f} | {a.headroom:+.3f} |"
        )
    lines.append("")
    if audit.failures:
        lines.append("FAIL: " + "; ".join(audit.failures) + ".")
    else:
        lines.append("PASS: no canary beats the heuristic on any task.")
    return "\n".join(lines) + "\n"


def write_block(audit: Audit, report: str, seconds: float) -> None:
    """Put the full report into the `gaming_audit` block (docs) and its summary into `gaming_audit/summary`
    (README), each captioned with its command, date and time."""
    arguments = [a for a in sys.argv[1:] if a != "--write"]
    command = " ".join(["python scripts/audit.py", *arguments])
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    caption = f"`{command}`, measured {today} on one shared 2-core machine ({seconds:.0f} s):"
    report_written("gaming_audit", replace_blocks("gaming_audit", f"{caption}\n\n{report}"))
    report_written("gaming_audit/summary", replace_blocks("gaming_audit/summary", f"{caption}\n\n{summary(audit)}"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--tasks", nargs="+", default=["fixed", "generated"], help="task ids, or fixed / generated / all"
    )
    parser.add_argument(
        "--split", default="test", choices=["train", "validation", "test"], help="for tasks with splits"
    )
    parser.add_argument("--episodes", type=int, default=20, help="instances per task (seeds 0 to N-1)")
    parser.add_argument(
        "--train-instances", type=int, default=30, help="train instances per level the fitted policies see"
    )
    parser.add_argument("--source", action="append", default=[], help="a module to import that registers task sources")
    parser.add_argument(
        "--no-shallow", action="store_true", help="leave out the shallow reference (it fits for a while)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--write",
        action="store_true",
        help="also write the report into the figure blocks (summary in README.md, table in docs/gaming.md)",
    )
    args = parser.parse_args()
    if min(args.episodes, args.train_instances) < 1:
        parser.error("--episodes and --train-instances must be at least 1")
    for module in args.source:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            parser.error(f"--source {module}: {exc}; put its directory on PYTHONPATH")
    known = {info.task_id for info in task_infos()}
    tasks = pick_tasks(args.tasks)
    unknown = [t for t in tasks if t not in known]
    if unknown:
        parser.error(f"unknown tasks {unknown}; choose from {sorted(known)} or fixed / generated / all")
    started = time.perf_counter()
    audit = run_audit(tasks, args.split, args.episodes, args.train_instances, not args.no_shallow)
    report = table(audit)
    print(audit.model_dump_json(indent=2) if args.json else report, end="\n" if args.json else "")
    if args.write:
        write_block(audit, report, time.perf_counter() - started)
    return 1 if audit.failures else 0


if __name__ == "__main__":
    sys.exit(main())
