"""The run's artifact (`artifacts/baseline_scores.json`) and console table.

Every run writes its artifact to a file of its own under `runs/` beside the stable path
(`artifacts/runs/20261201T052216Z-heuristic.json`); only a run that finished every task also
replaces the stable path, so a failed run never overwrites the last good artifact.

Apart from `created_at`, the artifact is a function of the run's inputs: no timings, no
hostnames, stable key order, so the heuristic and random agents write it byte for byte
the same on every run. Timings appear only in the console table.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .runner import EpisodeOutcome, RunOutcome


@dataclass(frozen=True)
class RunInfo:
    """What the run was: who acted, on what, with which settings."""

    agent: str
    model: str
    seed: int
    version: str
    env: str
    prompt_sha256: str | None
    handbook_sha256: str | None
    max_attempts: int | None
    temperature: float | None


def mean_score(run: RunOutcome) -> float | None:
    """Mean of the task scores, or None when some task did not finish."""
    if not run.completed or not run.episodes:
        return None
    return round(sum(e.grade.score for e in run.episodes if e.grade) / len(run.episodes), 6)


def task_entry(episode: EpisodeOutcome) -> dict[str, Any]:
    """One task's exact grade and counts."""
    grade = episode.grade
    counts = asdict(episode.counts)
    return {
        "completed": grade is not None,
        "score": grade.score if grade else None,
        "passed": grade.passed if grade else None,
        "subscores": grade.subscores if grade else None,
        "mistakes": grade.mistakes if grade else None,
        "counts": {"steps": episode.steps, "invalid_actions": episode.invalid_actions, **counts},
        "total_reward": round(float(sum(episode.rewards)), 6),
        "error": episode.error,
    }


def build_artifact(run: RunOutcome, info: RunInfo, now: datetime | None = None) -> dict[str, Any]:
    """The artifact as a dict; `created_at` is its only time-dependent field."""
    stamp = (now or datetime.now(UTC)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return {
        **asdict(info),
        "completed": run.completed,
        "error": run.error,
        "mean_score": mean_score(run),
        "tasks": {e.task_id: task_entry(e) for e in run.episodes},
        "created_at": stamp,
    }


def _write_temporary(directory: Path, artifact: dict[str, Any]) -> Path:
    """`artifact` as indented JSON in a hidden temporary file in `directory` (created if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".artifact.", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(artifact, indent=2, ensure_ascii=False) + "\n")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_artifact(path: Path, artifact: dict[str, Any]) -> None:
    """Write `artifact` to `path` as indented JSON, atomically (a reader never sees half a file)."""
    tmp = _write_temporary(path.parent, artifact)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def runs_dir(stable: Path) -> Path:
    """Where every run's own artifact goes: `runs/` beside the stable artifact path."""
    return stable.parent / "runs"


def write_run_artifact(directory: Path, artifact: dict[str, Any]) -> Path:
    """Write `artifact` to a new file in `directory`, named after its time and agent; returns the path.

    The file never replaces another: a second run in the same second gets `-2`, `-3`, ... appended.
    """
    stamp = str(artifact["created_at"]).replace("-", "").replace(":", "")
    stem = f"{stamp}-{artifact['agent']}"
    tmp = _write_temporary(directory, artifact)
    n = 1
    try:
        while True:
            path = directory / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
            try:
                os.link(tmp, path)  # atomic, and fails instead of replacing an existing file
            except FileExistsError:
                n += 1
            else:
                return path
    finally:
        tmp.unlink(missing_ok=True)


def format_table(run: RunOutcome) -> str:
    """Per-task score, passed, steps, invalid actions, fallbacks and seconds, then the mean."""
    header = f"{'task':<20} {'score':>7} {'passed':>6} {'steps':>5} {'invalid':>7} {'fallbacks':>9} {'seconds':>8}"
    lines = [header, "-" * len(header)]
    for e in run.episodes:
        score = f"{e.grade.score:.3f}" if e.grade else "n/a"
        passed = ("yes" if e.grade.passed else "no") if e.grade else "n/a"
        lines.append(
            f"{e.task_id:<20} {score:>7} {passed:>6} {e.steps:>5} {e.invalid_actions:>7} "
            f"{e.counts.fallbacks:>9} {e.seconds:>8.1f}"
        )
    mean = mean_score(run)
    lines.append("-" * len(header))
    lines.append(f"{'mean':<20} {f'{mean:.3f}' if mean is not None else 'n/a':>7}")
    return "\n".join(lines)
