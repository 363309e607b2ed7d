"""Repeated evaluation of a baseline agent: every task's instances, each played K times, into one report.

`scripts/baseline_inference.py --repeats K --instances N` plays instances `--seed` .. `--seed + N - 1`
of every task (for a generated task, of `--split`) K times each and writes an
`evaluation.EvaluationReport` (mean with a 95% bootstrap interval over instances, pass@k and pass^k,
spread across and within repeats, mean subscores and reward components) instead of the plain artifact.

What makes repeats differ is said in the report: the LLM samples (repeat r sends API seed `--seed + r`);
the random policy draws each repeat from a seed of its own; the heuristic is deterministic, so it
plays each instance once and the report says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..evaluation import EpisodeRecord, Variation, deterministic_note, instance_id
from ..policies import DETERMINISTIC
from ..sources import is_generated
from .runner import Agent, EventLog, Progress, TriageEnv, play_episode
from .trajectory import TrajectoryWriter


@dataclass
class RepeatedRun:
    """Every finished task's episodes; `error` says why the run stopped early, if it did."""

    records: dict[str, list[EpisodeRecord]] = field(default_factory=dict)
    error: str | None = None


def variation(agent: str, temperature: float | None, seed: int) -> tuple[Variation, str]:
    """How the repeats of `agent` differ, and that sentence for the report."""
    if agent in DETERMINISTIC:
        return deterministic_note(agent)
    if agent == "random":
        return "repeat_seed", "the random policy draws each repeat of an instance from a seed of its own"
    at = "the model's default temperature" if temperature is None else f"temperature {temperature:g}"
    note = f"the model samples at {at}; repeat r asks with API seed {seed} + r"
    if temperature == 0:
        note += " (at temperature 0, repeats differ only where the endpoint is not deterministic)"
    return "sampling", note


def run_repeated(
    env: TriageEnv,
    agent_for: Callable[[int], Agent],
    task_ids: Sequence[str],
    seeds: Sequence[int],
    repeats: int,
    model: str,
    events: EventLog,
    progress: Progress,
    trajectory: TrajectoryWriter | None = None,
    split: str | None = None,
) -> RepeatedRun:
    """Play every task's instances `repeats` times, repeat r with `agent_for(r)`.

    A service failure stops the run: the task it cut short is left out, the finished ones are kept.
    """
    run = RepeatedRun()
    agents = [agent_for(r) for r in range(repeats)]
    for task_id in task_ids:
        instance_split = split if is_generated(task_id) else None
        episodes: list[EpisodeRecord] = []
        for seed in seeds:
            for repeat, agent in enumerate(agents):
                outcome = play_episode(env, agent, task_id, seed, model, events, progress, trajectory, split)
                if outcome.error is not None or outcome.grade is None:
                    run.error = outcome.error or f"{task_id} seed {seed} ended without a grade"
                    return run
                episodes.append(
                    EpisodeRecord.of(
                        instance_id(seed, instance_split), repeat, outcome.grade, outcome.components, outcome.rewards
                    )
                )
        run.records[task_id] = episodes
    return run
