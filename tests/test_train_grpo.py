"""`scripts/train_grpo.py --dry-run`: the whole data and rollout path, scripted, without torch or TRL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from server_helpers import LiveServer

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "train_grpo.py"
PROBE = """
import runpy, sys
sys.argv = ["train_grpo.py", *sys.argv[1:]]
try:
    runpy.run_path({script!r}, run_name="__main__")
except SystemExit as exit:
    assert exit.code == 0, exit.code
heavy = sorted(m for m in ("torch", "trl", "datasets", "transformers") if m in sys.modules)
print("heavy imports:", heavy or "none")
"""


def dry_run(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(script=str(SCRIPT)), "--dry-run", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.splitlines() if line.startswith(("bug_triage_", "generated_"))]


def test_dry_run_plays_every_row_to_full_score_without_torch_or_trl() -> None:
    tasks = ("--tasks", "bug_triage_easy", "generated_medium")
    output = dry_run(*tasks, "--dry-run-rows", "6", "--train-episodes", "2", "--eval-episodes", "1")
    assert "dataset: 4 training rows, 2 evaluation rows" in output
    played = rows(output)
    assert [r[0] for r in played] == [
        "bug_triage_easy/0",
        "generated_medium/train/0",
        "bug_triage_easy/1",
        "generated_medium/train/1",
        "bug_triage_easy/1000000",
        "generated_medium/validation/0",
    ]
    assert all(r[2] == "0" and r[4] == "1.000" for r in played), output
    assert "heavy imports: none" in output


def test_dry_run_against_a_server_prints_the_same_rollouts(server: LiveServer) -> None:
    args = ("--tasks", "bug_triage_easy", "generated_easy", "--dry-run-rows", "2", "--reward", "dense")
    local = dry_run(*args)
    remote = dry_run(*args, "--env-url", server.url)
    assert "(in-process)" in local and f"({server.url})" in remote
    assert rows(remote) == rows(local) and len(rows(local)) == 2
