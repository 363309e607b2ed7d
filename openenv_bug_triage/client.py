"""Typed OpenEnv client for a Bug Triage server, speaking OpenEnv's WebSocket protocol.

    from openenv_bug_triage.client import BugTriageClient

    with BugTriageClient(base_url="http://127.0.0.1:7860").sync() as env:
        result = env.reset(task_id="bug_triage_easy", seed=42)
        while not result.done:
            result = env.step({"action_type": "next_ticket"})
        print(result.observation.info.grader.score)

The server's `/ws` endpoint speaks OpenEnv's protocol; `BugTriageObservation` is an
`ObservationModel` (so in-process policies accept it) plus the episode id and the step info.
`WebSocketEnv` puts the client behind `BugTriageEnv`'s `reset`/`step` shape, for `episode.play`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from openenv.core.client_types import StepResult as ClientStepResult
from openenv.core.env_client import EnvClient
from pydantic import BaseModel
from websockets.exceptions import ConnectionClosed

from .contract import ResetOptions, StepResult
from .errors import EnvServerError, EpisodeLostError
from .models import ObservationModel, RewardModel
from .protocol import BugTriageAction, BugTriageObservation, BugTriageState, StepInfo, action_payload

__all__ = [
    "BugTriageAction",
    "BugTriageClient",
    "BugTriageObservation",
    "BugTriageState",
    "EpisodeLostError",
    "StepInfo",
    "WebSocketEnv",
]


class BugTriageClient(EnvClient[BaseModel | dict[str, Any], BugTriageObservation, BugTriageState]):
    """OpenEnv `EnvClient` over the server's `/ws`: one connection, one episode at a time.

    `reset(task_id=..., seed=..., episode_id=...)`; `step(action)` takes a `ClassifyAction`
    (or any member of the action union), a `BugTriageAction` or a plain dict.
    """

    def _step_payload(self, action: BaseModel | dict[str, Any]) -> dict[str, Any]:
        return action_payload(action)

    def _parse_result(self, payload: dict[str, Any]) -> ClientStepResult[BugTriageObservation]:
        obs = BugTriageObservation.model_validate(
            {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        )
        return ClientStepResult(observation=obs, reward=obs.reward, done=obs.done)

    def _parse_state(self, payload: dict[str, Any]) -> BugTriageState:
        return BugTriageState.model_validate(payload)


class WebSocketEnv:
    """A `BugTriageClient` session with `BugTriageEnv`'s `reset`/`step` shape (one connection, opened on first use).

    `step` returns the step info as the HTTP reply's `info` (a dict, `grader` None until the end).
    When the connection closes under a running episode (its server process stopped), `step` and
    `state` raise `EpisodeLostError` naming `episode_id`, the episode of the latest reset.
    """

    def __init__(self, base_url: str) -> None:
        self.client = BugTriageClient(base_url=base_url).sync()
        self.episode_id: str | None = None

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> BugTriageObservation:
        """Start an episode on the server (`index` picks a Task API spec); options left as None are not sent."""
        options = ResetOptions.unchecked(task_id, seed, split, index, episode_id)
        observation: BugTriageObservation = self.client.reset(**options.model_dump(exclude_none=True)).observation
        self.episode_id = observation.episode_id
        return observation

    def step(self, action: BaseModel | dict[str, Any]) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """Take one action; returns (observation, reward, done, info) like `BugTriageEnv.step`."""
        return self.step_result(action).as_tuple()

    def step_result(self, action: BaseModel | dict[str, Any]) -> StepResult:
        """Take one action; returns the typed `StepResult` (its observation a `BugTriageObservation`)."""
        with self._connected():
            result = self.client.step(action)
        observation: BugTriageObservation = result.observation
        info = observation.info
        if info is None:
            raise EnvServerError("the environment server answered a WebSocket step without its step info")
        if result.reward != info.reward.value:
            raise EnvServerError(f"the step's reward {result.reward} is not its info.reward {info.reward.value}")
        return StepResult.of(observation, info)

    def state(self) -> BugTriageState:
        """The server's state of this session's episode."""
        with self._connected():
            state: BugTriageState = self.client.state()
        return state

    def close(self) -> None:
        """Close the WebSocket."""
        self.client.close()

    @contextmanager
    def _connected(self) -> Iterator[None]:
        """Turn the connection closing under the episode into `EpisodeLostError`."""
        try:
            yield
        except ConnectionClosed as exc:
            if self.episode_id is None:
                raise EnvServerError(f"the WebSocket connection closed before any episode started ({exc})") from None
            cause = (
                f"its WebSocket connection closed ({exc}): the server process that held it stopped, "
                "or it closed the session after SESSION_TTL_S idle"
            )
            raise EpisodeLostError(self.episode_id, cause) from None
