"""Validate task fixtures and print what a fixture author needs to see.

python scripts/check_fixtures.py [data/tasks/bug_triage_easy.json ...]
python scripts/check_fixtures.py --write    # also writes the task table into the docs' `figures:tasks` block
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from figures import replace_blocks, report_written

from openenv_bug_triage.errors import FixtureError
from openenv_bug_triage.rules import correct_steps
from openenv_bug_triage.sources import load_task, task_infos
from openenv_bug_triage.tasks import load_task_file
from openenv_bug_triage.world import DATA_DIR


def report(path: Path) -> bool:
    """Print one fixture's figures; False when it is refused."""
    try:
        task = load_task_file(path)
    except FixtureError as exc:
        print(f"REFUSED {path.name}: {exc}")
        return False
    truth = task.truth
    dispositions = Counter(t.disposition for t in truth.values())
    dups = {tid for tid, t in truth.items() if t.duplicate_of}
    hinted = {(t.ticket_id, h) for t in task.tickets for h in t.suspected_duplicate_ids}
    real = {(tid, t.duplicate_of) for tid, t in truth.items() if t.duplicate_of}
    lengths = [len(t.description) for t in task.tickets]
    print(
        f"OK {path.name}: {len(task.tickets)} tickets, budget {task.step_budget}, "
        f"correct triage {sum(correct_steps(t.disposition, t.should_escalate) for t in truth.values())} steps"
    )
    print(f"  dispositions: {dict(sorted(dispositions.items()))}; duplicates {len(dups) / len(truth):.0%}")
    print(
        f"  severities (fix): {dict(sorted(Counter(t.true_severity for t in truth.values() if t.disposition == 'fix').items()))}"
    )
    print(
        f"  escalations: {sum(t.should_escalate for t in truth.values())}; tiers: {dict(Counter(t.customer_tier for t in task.tickets))}"
    )
    print(
        f"  hints: {len(hinted & real)}/{len(real)} real duplicates hinted, {len(hinted - real)} false hints: {sorted(hinted - real)}"
    )
    missing = [t.ticket_id for t in task.tickets if truth[t.ticket_id].true_component not in t.component_candidates]
    print(f"  true component not in candidates: {missing}")
    print(f"  description length: median {statistics.median(lengths):.0f}, min {min(lengths)}, max {max(lengths)}")
    return True


def task_table() -> str:
    """Every registered task as a Markdown table: the figure block `tasks` of the docs."""
    lines = [
        "`python scripts/check_fixtures.py --write`:",
        "",
        "| task | source | tickets | step budget | correct triage (steps) | instances: train / validation / test |",
        "|---|---|---|---|---|---|",
    ]
    for info in task_infos():
        if info.splits is None:
            truth = load_task(info.task_id).truth
            steps = sum(correct_steps(t.disposition, t.should_escalate) for t in truth.values())
            correct, instances = str(steps), "one fixed queue"
        else:
            sizes = [info.splits.get(split) for split in ("train", "validation", "test")]
            correct = "varies"
            instances = " / ".join("unbounded" if n is None else f"{n:,}" for n in sizes)
        lines.append(
            f"| `{info.task_id}` | {info.source} | {info.ticket_count} | {info.step_budget} | {correct} | {instances} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    arguments = [a for a in sys.argv[1:] if a != "--write"]
    paths = [Path(p) for p in arguments] or sorted((DATA_DIR / "tasks").glob("*.json"))
    ok = [report(p) for p in paths]
    if "--write" in sys.argv[1:]:
        report_written("tasks", replace_blocks("tasks", task_table()))
    return 0 if all(ok) else 1


if __name__ == "__main__":
    raise SystemExit(main())
