"""Where the tool environment's episodes run: in this process, or on a server over its WebSocket.

Both wrap an environment of `BugTriageEnv`'s shape (`BugTriageEnv`, `client.WebSocketEnv`) and
answer with the same `Turn`, so the text an agent reads does not depend on where the episode
runs. The remote one needs openenv-core (`pip install openenv-bug-triage[server]`); it is
imported only when used, so the in-process tool environment needs pydantic alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..env import BugTriageEnv
from ..episode import EpisodeEnv
from ..models import ObservationModel


@dataclass(frozen=True)
class Turn:
    """One step's outcome as the tool environment needs it, whichever backend produced it."""

    observation: ObservationModel
    reward: float
    cumulative: float
    error: str | None
    terminated: bool
    truncated: bool
    score: float | None
    """The episode's grade (the agent's copy) once it has ended, else None."""

    @property
    def done(self) -> bool:
        """True once the episode has ended either way."""
        return self.terminated or self.truncated


class Backend(Protocol):
    """Starts episodes and takes actions; `reset` options are the dataset row's."""

    def reset(self, **options: Any) -> ObservationModel: ...

    def step(self, action: dict[str, Any]) -> Turn: ...


class EnvBackend:
    """An environment with `BugTriageEnv`'s `reset`/`step` shape, answering each step with a `Turn`."""

    def __init__(self, env: EpisodeEnv) -> None:
        self._env = env

    def reset(self, **options: Any) -> ObservationModel:
        """Start an episode; `options` are `BugTriageEnv.reset`'s keyword arguments."""
        return self._env.reset(**options)

    def step(self, action: dict[str, Any]) -> Turn:
        """Take one action."""
        result = self._env.step_result(action)
        grader = result.info.grader
        return Turn(
            observation=result.observation,
            reward=result.reward.value,
            cumulative=result.reward.cumulative,
            error=result.info.error,
            terminated=result.terminated,
            truncated=result.truncated,
            score=grader.score if grader is not None else None,
        )


class LocalBackend(EnvBackend):
    """A `BugTriageEnv` in this process."""

    def __init__(self) -> None:
        super().__init__(BugTriageEnv())


class RemoteBackend(EnvBackend):
    """An episode on a Bug Triage server, over its WebSocket (one connection, opened on first use)."""

    def __init__(self, base_url: str) -> None:
        try:  # openenv-core (and its websockets): only the remote mode pays for them
            from websockets.exceptions import ConnectionClosed

            from ..client import WebSocketEnv
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError(
                f"running episodes on a server (BUG_TRIAGE_ENV_URL is set) needs openenv-core, which is missing "
                f"({exc}): pip install 'openenv-bug-triage[server]', or unset BUG_TRIAGE_ENV_URL to play in-process"
            ) from exc
        self._url = base_url
        self._closed_error = ConnectionClosed
        self._connect = WebSocketEnv
        self._socket = WebSocketEnv(base_url)
        super().__init__(self._socket)

    def reset(self, **options: Any) -> ObservationModel:
        """Start an episode on the server with the same options as in-process.

        A connection the server closed (a restart, a dropped network, or an earlier episode's
        socket that died) is opened anew once; a server at capacity is named as the cause.
        """
        try:
            try:
                return super().reset(**options)
            except self._closed_error:
                self._reconnect()
                return super().reset(**options)
        except (self._closed_error, RuntimeError) as exc:
            if isinstance(exc, RuntimeError) and "CAPACITY_REACHED" not in str(exc):
                raise
            # A server at capacity sends CAPACITY_REACHED and closes; the client sees either, by timing.
            raise ConnectionError(
                f"the server at {self._url} refused the episode ({exc}); a server at capacity does so: its "
                "MAX_SESSIONS must cover every rollout in flight (TRL makes one environment per prompt of a "
                "generation batch: per_device_train_batch_size x steps_per_generation x GPUs)"
            ) from None

    def _reconnect(self) -> None:
        self._socket.close()
        self._socket = self._connect(self._url)
        self._env = self._socket

    def step(self, action: dict[str, Any]) -> Turn:
        """Take one action on the server."""
        try:
            return super().step(action)
        except self._closed_error as exc:
            raise ConnectionError(
                f"the server at {self._url} closed the WebSocket mid-episode ({exc}); the episode is lost"
            ) from None

    def close(self) -> None:
        """Close the WebSocket."""
        self._socket.close()
