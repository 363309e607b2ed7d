"""The gaming audit runs as a user runs it, in a fresh process: green on our tasks, red on a source a canary games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--episodes", "3", "--train-instances", "3"]

TOY_SOURCE = '''
"""A task source whose every ticket is to be deferred: `defer_everything` games it."""

from dataclasses import replace

from openenv_bug_triage.sources import LoadedTask, TaskInfo, register_source
from openenv_bug_triage.tasks import load_fixed_task


class AllDeferred:
    def __init__(self):
        easy = load_fixed_task("bug_triage_easy")
        truth = {
            tid: t.model_copy(update={"disposition": "defer", "duplicate_of": None, "needs_more_info": False,
                                      "should_escalate": False})
            for tid, t in easy.truth.items()
        }
        self.task = replace(easy, task_id="toy_all_deferred", truth=truth)

    def infos(self):
        t = self.task
        return [TaskInfo(task_id=t.task_id, difficulty=t.difficulty, source="toy", ticket_count=len(t.tickets),
                         step_budget=t.step_budget, description="every ticket waits in the backlog")]

    def load(self, task_id, seed, split):
        return LoadedTask(self.task, None, None)


register_source(AllDeferred())
'''


def audit(*args: str, pythonpath: list[Path] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [*pythonpath, os.environ.get("PYTHONPATH", "")]))}
    command = [sys.executable, str(ROOT / "scripts" / "audit.py"), *SMALL, *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def test_the_audit_passes_on_our_tasks_and_reports_every_policy_and_gap() -> None:
    """The fixed tasks and the easy level, on three instances. The other levels are left out: at 50
    instances `fields_only` beats the heuristic on generated_medium (the README's table), and on three
    instances the memoriser and the heuristic are within noise on generated_expert."""
    done = audit("--tasks", "fixed", "generated_easy", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["failures"] == []
    assert [t["task_id"] for t in report["tasks"]] == [
        "bug_triage_easy",
        "bug_triage_medium",
        "bug_triage_hard",
        "generated_easy",
    ]
    for task in report["tasks"]:
        means = {row["policy"]: row["mean"] for row in task["rows"]}
        assert {"heuristic", "shallow", "oracle", "memoriser", "fields_only", "keyword_stuffing"} <= set(means)
        assert means["oracle"] == 1.0
        judged = [r["mean"] for r in task["rows"] if r["kind"] == "canary" and r["judged"]]
        assert task["floor_gap"] == pytest.approx(means["heuristic"] - max(judged))
        assert task["headroom"] == pytest.approx(1.0 - means["heuristic"])
        assert task["floor_gap"] > 0
    memoriser = {t["task_id"]: next(r for r in t["rows"] if r["policy"] == "memoriser") for t in report["tasks"]}
    assert not memoriser["bug_triage_easy"]["judged"]  # the same tickets every seed
    assert memoriser["generated_easy"]["judged"]  # held-out instances
    fixed = next(s for s in report["separation"] if s["source"] == "fixed")
    assert fixed["levels"] == ["bug_triage_easy", "bug_triage_medium", "bug_triage_hard"]


def test_the_audit_fails_naming_the_canary_on_a_source_it_games(tmp_path: Path) -> None:
    (tmp_path / "toy_source.py").write_text(TOY_SOURCE)
    hidden = tmp_path / "no_sklearn" / "sklearn"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text('raise ImportError("scikit-learn hidden for this test")\n')

    done = audit("--source", "toy_source", "--tasks", "toy_all_deferred", pythonpath=[tmp_path, hidden.parent])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL: a canary beats the heuristic" in done.stdout
    assert "defer_everything beats the heuristic on toy_all_deferred" in done.stdout
    assert "shallow: not run: needs scikit-learn" in done.stdout  # the row says so instead of failing
    assert "| **shallow** | n/a |" in done.stdout


def test_the_audit_names_an_unknown_task_and_a_missing_source() -> None:
    done = audit("--tasks", "no_such_task")
    assert done.returncode == 2 and "unknown tasks ['no_such_task']" in done.stderr
    done = audit("--source", "no_such_module")
    assert done.returncode == 2 and "--source no_such_module" in done.stderr
