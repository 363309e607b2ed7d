"""The blind label audit: the reader's file holds no truth, and the comparison counts what disagrees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUEUE = "generated_medium/validation/7"


def run(*args: str) -> str:
    cmd = [sys.executable, str(ROOT / "scripts" / "blind_audit.py"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout


def test_export_hides_the_truth_and_compare_counts_each_disagreement(tmp_path: Path) -> None:
    run("export", "--out", str(tmp_path), "--queue", QUEUE)
    key = json.loads((tmp_path / "key.json").read_text())
    reader = (tmp_path / "generated_medium_validation_7.md").read_text()
    tickets = key[QUEUE]
    assert len(tickets) == 15 and all(f"### {ticket_id}:" in reader for ticket_id in tickets)
    assert "disposition" not in reader and "true_" not in reader and "duplicate_of" not in reader

    labels = json.loads(json.dumps(key))
    fix = next(t for t, truth in tickets.items() if truth["disposition"] == "fix")
    other = next(t for t, truth in tickets.items() if truth["disposition"] != "fix")
    labels[QUEUE][fix]["severity"] = "sev0" if tickets[fix]["severity"] != "sev0" else "sev3"
    labels[QUEUE][other]["disposition"] = "fix"  # severity and the like are not compared where the key is no fix
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    out = run("compare", "--key", str(tmp_path / "key.json"), "--labels", str(tmp_path / "labels.json"))
    assert "tickets fully agreed: 13/15" in out
    assert f"{QUEUE} {fix}: severity" in out and f"{QUEUE} {other}: disposition 'fix'" in out
