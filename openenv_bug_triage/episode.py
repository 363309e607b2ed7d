"""The one episode loop: any policy on any environment with `BugTriageEnv`'s `reset`/`step` shape.

    episode = start(BugTriageEnv(), HeuristicPolicy(), "bug_triage_hard", seed=3).play()
    episode.rewards, episode.agent_grade.score

`start` resets the environment and the policy and returns an `Episode`; iterating it plays the
remaining steps one `Step` at a time, so a caller can log, check or stop between steps, and
`play()` plays them all (or up to a limit). The same loop runs in-process (`BugTriageEnv`), over HTTP
(`http_client.HttpEnvClient`) and over the WebSocket (`client.WebSocketEnv`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol

from .contract import StepResult
from .errors import EpisodeRunningError
from .models import GraderResult, ObservationModel, RewardModel

__all__ = ["Episode", "EpisodeEnv", "Policy", "Step", "start"]


class EpisodeEnv(Protocol):
    """What the loop needs of an environment: `BugTriageEnv`, `HttpEnvClient` and `WebSocketEnv` all fit.

    `step_result` is the one step contract; `step`, the Gym-style tuple, is its view for older callers.
    """

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> ObservationModel:
        """Start an episode (`ResetOptions` says what each option chooses)."""
        ...

    def step_result(self, action: dict[str, Any]) -> StepResult:
        """Take one action; returns the typed `StepResult`."""
        ...


class Policy(Protocol):
    """Anything that picks the next action from an observation."""

    @property
    def name(self) -> str:
        """What reports call the policy (read-only here: a plain attribute or a property both fit)."""
        ...

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        """Prepare for a new episode (`split` names a generated task's split)."""

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        """The next action, as a plain dict."""
        ...


@dataclass(frozen=True)
class Step:
    """One move: what the policy saw, what it did and what the environment answered."""

    number: int
    """1 for the first step of the episode."""
    seen: ObservationModel
    action: dict[str, Any]
    result: StepResult
    """What the environment answered, typed."""

    @property
    def observation(self) -> ObservationModel:
        """The observation after the step."""
        return self.result.observation

    @property
    def reward(self) -> RewardModel:
        """The step's reward and its components."""
        return self.result.reward

    @property
    def done(self) -> bool:
        """True when this step ended the episode."""
        return self.result.done

    @property
    def info(self) -> dict[str, Any]:
        """The step info as a plain dict (`grader` only on the last step)."""
        return self.result.info_dict()


class Episode:
    """An episode under way: iterate it to play the remaining steps one at a time, or `play()` them.

    It records every step it played; the properties read that record.
    """

    def __init__(self, env: EpisodeEnv, policy: Policy, first: ObservationModel) -> None:
        self.env = env
        self.policy = policy
        self.first = first
        """The observation `reset` returned."""
        self.steps: list[Step] = []

    def __iter__(self) -> Iterator[Step]:
        while not self.done:
            seen = self.observation
            action = self.policy.act(seen)
            self.steps.append(Step(len(self.steps) + 1, seen, action, self.env.step_result(action)))
            yield self.steps[-1]

    def play(self, limit: int | None = None) -> Episode:
        """Play on until the episode ends, or until it has `limit` steps in all; returns this episode."""
        for _ in islice(self, None if limit is None else max(limit - len(self.steps), 0)):
            pass
        return self

    @property
    def observation(self) -> ObservationModel:
        """The latest observation."""
        return self.steps[-1].observation if self.steps else self.first

    @property
    def done(self) -> bool:
        """True once the environment has ended the episode."""
        return bool(self.steps) and self.steps[-1].done

    @property
    def info(self) -> dict[str, Any]:
        """The latest step's info (empty before the first step)."""
        return self.steps[-1].info if self.steps else {}

    @property
    def actions(self) -> list[dict[str, Any]]:
        """Every action taken, in order."""
        return [s.action for s in self.steps]

    @property
    def rewards(self) -> tuple[float, ...]:
        """Every step's reward, in order."""
        return tuple(s.reward.value for s in self.steps)

    @property
    def reward_components(self) -> dict[str, float]:
        """Each reward component summed over the steps played, in the order they first fired."""
        totals: dict[str, float] = {}
        for s in self.steps:
            for name, value in s.reward.components.items():
                totals[name] = round(totals.get(name, 0.0) + value, 10)
        return totals

    @property
    def invalid_actions(self) -> int:
        """How many steps the environment judged invalid."""
        return sum(not s.result.info.action_valid for s in self.steps)

    @property
    def agent_grade(self) -> GraderResult:
        """The grade the final step's `info["grader"]` carries: the agent's copy, no answer key."""
        grade = self.steps[-1].result.info.grader if self.steps else None
        if not self.done or grade is None:
            raise EpisodeRunningError(
                f"no grade after {len(self.steps)} steps: the episode has not ended (or its last info has no "
                "`grader`); play it to the end first"
            )
        return grade


def start(
    env: EpisodeEnv, policy: Policy, task_id: str, seed: int, split: str | None = None, episode_id: str | None = None
) -> Episode:
    """Reset `env` to `task_id` (`split` and `seed` name a generated task's instance) and `policy` with it."""
    first = env.reset(task_id=task_id, seed=seed, episode_id=episode_id, split=split)
    policy.reset(task_id, seed, split=split)
    return Episode(env, policy, first)
