"""The baseline run: every agent kind over the package's episode loop, in-process or over HTTP.

It prints one line per episode event in the format OpenEnv evaluation harnesses parse:
`[START] task=... env=bug-triage-openenv model=...`, `[STEP] step=... action=... reward=... done=...
error=...` and `[END] success=... steps=... score=... rewards=...`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TextIO

from ..episode import Episode, EpisodeEnv, Policy, start
from ..models import GraderResult, ObservationModel
from ..sources import is_generated
from .errors import ServiceError
from .llm import AgentCounts
from .trajectory import TrajectoryWriter

ENV_NAME = "bug-triage-openenv"


class TriageEnv(EpisodeEnv, Protocol):
    """What a run needs of an environment: `BugTriageEnv` and `HttpEnvClient` both fit."""

    def grade(self) -> GraderResult:
        """The full grade of the finished episode."""
        ...


class Agent(Policy, Protocol):
    """A policy that also reports per-episode counts (zero for the reference policies).

    `last_replies` holds the model's raw replies behind the latest action (empty for policies).
    """

    counts: AgentCounts
    last_replies: list[str]


@dataclass
class PolicyAgent:
    """A reference policy (heuristic, random) as an `Agent`: it never rejects, retries or falls back."""

    policy: Policy
    counts: AgentCounts = field(default_factory=AgentCounts)
    last_replies: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The wrapped policy's name."""
        return self.policy.name

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        """Reset the wrapped policy."""
        self.policy.reset(task_id, seed, split)

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        """The wrapped policy's action."""
        return self.policy.act(obs)


@dataclass
class EpisodeOutcome:
    """What one episode produced; `grade` is None when the run stopped before the episode ended."""

    task_id: str
    grade: GraderResult | None
    steps: int
    rewards: list[float]
    invalid_actions: int
    counts: AgentCounts
    seconds: float
    error: str | None = None
    components: dict[str, float] = field(default_factory=dict)
    """Each reward component summed over the steps played."""


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _num(value: float, places: int) -> str:
    text = f"{value:.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _one_line(text: str | None) -> str:
    return "null" if text is None else " ".join(text.split())


class EventLog:
    """Writes the `[START]`, `[STEP]` and `[END]` lines, flushing each one."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def _emit(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def start(self, task_id: str, model: str) -> None:
        """An episode begins."""
        self._emit(f"[START] task={task_id} env={ENV_NAME} model={model}")

    def step(self, n: int, action: dict[str, Any], reward: float, done: bool, error: str | None) -> None:
        """One step was taken."""
        action_json = json.dumps(action, ensure_ascii=False, separators=(",", ":"))
        self._emit(
            f"[STEP] step={n} action={action_json} reward={_num(reward, 2)} done={_flag(done)} error={_one_line(error)}"
        )

    def end(self, success: bool, steps: int, score: float, rewards: list[float]) -> None:
        """The episode ended (or the run stopped)."""
        shown = ",".join(_num(r, 2) for r in rewards)
        self._emit(f"[END] success={_flag(success)} steps={steps} score={_num(score, 3)} rewards={shown}")


class Progress:
    """A one-line progress bar on a terminal; silent when the stream is not a TTY."""

    WIDTH = 24

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self._drawn = 0

    def update(self, task_id: str, obs: ObservationModel) -> None:
        """Redraw the bar for the step count in `obs`."""
        if not self.enabled:
            return
        total = obs.steps_used + obs.steps_remaining
        filled = self.WIDTH * obs.steps_used // max(total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        line = f"{task_id:<20} [{bar}] {obs.steps_used}/{total} steps, {obs.remaining_count} open"
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def clear(self) -> None:
        """Erase the bar."""
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def play_episode(
    env: TriageEnv,
    agent: Agent,
    task_id: str,
    seed: int,
    model: str,
    events: EventLog,
    progress: Progress,
    trajectory: TrajectoryWriter | None = None,
    split: str | None = None,
) -> EpisodeOutcome:
    """Play `task_id` to the end; a `ServiceError` ends it early with `error` set instead of raising.

    For a generated task `split` (default train) and `seed` name the instance; fixed tasks ignore `split`.

    With `trajectory`, every step and the episode's end are also recorded there.
    """
    started = time.monotonic()
    events.start(task_id, model)
    if trajectory is not None:
        trajectory.start(task_id, seed)
    episode: Episode | None = None
    grade: GraderResult | None = None
    agent_grade: GraderResult | None = None
    error: str | None = None
    try:
        episode = start(env, agent, task_id, seed, split if is_generated(task_id) else None)
        progress.update(task_id, episode.first)
        for step in episode:
            progress.clear()  # stdout and stderr may share the terminal
            events.step(step.number, step.action, step.reward.value, step.done, step.info.get("error"))
            if trajectory is not None:
                trajectory.step(step, agent.last_replies)
            progress.update(task_id, step.observation)
        agent_grade = episode.agent_grade  # the copy the agent saw: no answer key
        grade = env.grade()  # the trainer-side grade: its mistakes name the expected labels
    except ServiceError as exc:
        error = str(exc)
    finally:
        progress.clear()
        rewards = list(episode.rewards) if episode is not None else []
        success = grade is not None and grade.passed
        events.end(success, len(rewards), grade.score if grade else 0.0, rewards)
        if trajectory is not None:
            trajectory.end(len(rewards), sum(rewards), agent_grade, error)
    seconds = round(time.monotonic() - started, 3)
    invalid = episode.invalid_actions if episode is not None else 0
    components = episode.reward_components if episode is not None else {}
    return EpisodeOutcome(
        task_id, grade, len(rewards), rewards, invalid, replace(agent.counts), seconds, error, components
    )


@dataclass
class RunOutcome:
    """Every episode played, in task order; `error` says why the run stopped early, if it did."""

    episodes: list[EpisodeOutcome]
    error: str | None = None

    @property
    def completed(self) -> bool:
        """True when every task was played to its end."""
        return self.error is None


def run_tasks(
    env: TriageEnv,
    agent: Agent,
    task_ids: list[str],
    seed: int,
    model: str,
    events: EventLog,
    progress: Progress,
    trajectory: TrajectoryWriter | None = None,
    split: str | None = None,
) -> RunOutcome:
    """Play each task in order with the same seed (and `split`, for generated tasks); stop at the first
    episode a service failure cut short."""
    episodes: list[EpisodeOutcome] = []
    for task_id in task_ids:
        outcome = play_episode(env, agent, task_id, seed, model, events, progress, trajectory, split)
        episodes.append(outcome)
        if outcome.error is not None:
            return RunOutcome(episodes, outcome.error)
    return RunOutcome(episodes)
