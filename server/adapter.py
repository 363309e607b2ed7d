"""`BugTriageEnv` as an OpenEnv `Environment`, for the framework's `/ws`, `/mcp`, `/metadata` and `/web`.

One instance per WebSocket session, bound to its connection: the connection is the credential, so
an `episode_id` here is a label and needs no secret. `reset(seed=..., episode_id=..., task_id=...)`
honours all three; `step` passes the action to the environment untouched, so a malformed action
gets the in-process invalid-action penalty. Typed fields carry everything a client needs,
since OpenEnv drops observation metadata on the wire.
"""

from __future__ import annotations

import uuid
from functools import cache
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from openenv_bug_triage import BugTriageEnv, ObservationModel, __version__
from openenv_bug_triage.contract import ResetOptions, StepInfo
from openenv_bug_triage.protocol import BugTriageAction, BugTriageObservation, BugTriageState
from openenv_bug_triage.sources import TaskInfo, task_infos

from .sealing import TRAINER_CONNECTION, SealedFeedback, is_sealed
from .sessions import InvalidEpisodeIdError, InvalidResetError, SessionClosedError, is_valid_episode_id
from .wire import safe_text

ENV_NAME = "bug_triage"
ENV_DESCRIPTION = (
    "Triage a queue of software bug reports under a step budget and SLA pressure: classify, "
    "assign, link duplicates, request information, defer, close or escalate each ticket."
)
ENV_VERSION = __version__


@cache
def available_tasks() -> dict[str, TaskInfo]:
    """Every task's public description by id, fixed tasks first (loaded and validated once)."""
    return {info.task_id: info for info in task_infos()}


def wire_observation(
    obs: ObservationModel, episode_id: str, reward: float | None, done: bool, info: StepInfo | None
) -> BugTriageObservation:
    """An `ObservationModel` with the OpenEnv fields added.

    Validating is cheap here (its nested models are instances, taken as they are) and, in
    pydantic-core, faster than `model_construct`'s Python loop over the fields.
    """
    return BugTriageObservation.model_validate(
        {**obs.__dict__, "episode_id": episode_id, "info": info, "reward": reward, "done": done}
    )


class BugTriageEnvironment(Environment[BugTriageAction, BugTriageObservation, BugTriageState]):
    """OpenEnv adapter over one `BugTriageEnv`."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, sealed: bool = False) -> None:
        """`sealed`: seal test-split episodes (`server.sealing`) unless the connection is a trainer's."""
        super().__init__()
        self._env = BugTriageEnv()
        self._episode_id: str | None = None
        self._closed = False
        self._sealed_mode = sealed
        self._seal: SealedFeedback | None = None

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
        **kwargs: Any,
    ) -> BugTriageObservation:
        """Start an episode: `BugTriageEnv.reset`'s `task_id`, `seed`, `split` and `index`."""
        self._check_open()
        if kwargs:
            raise InvalidResetError(
                f"unknown reset parameter(s) {sorted(map(safe_text, kwargs))}; "
                "use task_id, seed, split, index and episode_id"
            )
        for name, value, kind in (("split", split, str), ("index", index, int)):
            if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
                raise InvalidResetError(f"{name} must be {'a string' if kind is str else 'an integer'} or omitted")
        if episode_id is not None and not (isinstance(episode_id, str) and is_valid_episode_id(episode_id)):
            raise InvalidEpisodeIdError("episode_id must be 1 to 128 letters, digits or ._:- (or omitted)")
        episode_id = episode_id or uuid.uuid4().hex
        obs = self._env.reset_with(ResetOptions.unchecked(task_id, seed, split, index, episode_id))
        self._episode_id = episode_id
        self._seal = SealedFeedback() if is_sealed(self._sealed_mode, self._env.state().split) else None
        return wire_observation(obs, episode_id, None, False, None)

    def step(self, action: BugTriageAction, timeout_s: float | None = None, **kwargs: Any) -> BugTriageObservation:
        """Take one action; an invalid one is penalised, not rejected."""
        self._check_open()
        payload = action.to_payload() if isinstance(action, BugTriageAction) else action
        result = self._env.step_result(payload)
        if self._seal is not None:
            sealed_result = self._seal.step(result)
            if not TRAINER_CONNECTION.get():
                result = sealed_result
        assert self._episode_id is not None  # step() succeeded, so reset() ran
        return wire_observation(result.observation, self._episode_id, result.reward.value, result.done, result.info)

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> BugTriageObservation:
        """`reset` on the event loop: it takes well under a millisecond, less than a hop to a thread."""
        return self.reset(seed=seed, episode_id=episode_id, **kwargs)

    async def step_async(
        self, action: BugTriageAction, timeout_s: float | None = None, **kwargs: Any
    ) -> BugTriageObservation:
        """`step` on the event loop, for the same reason."""
        return self.step(action, timeout_s=timeout_s, **kwargs)

    @property
    def state(self) -> BugTriageState:
        """The episode's state (never hidden truth)."""
        self._check_open()
        state = self._env.state()
        if self._seal is not None and not TRAINER_CONNECTION.get():
            state = self._seal.state(state)
        return BugTriageState.model_construct(**dict(state))

    # OpenEnv's Task API (TaskProvider), served by openenv 0.10's HTTP server when present
    def list_splits(self) -> list[dict[str, str]]:
        """The generated tasks' splits."""
        return self._env.list_splits()

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        """Task specs of `split` (bounded preview)."""
        return [spec.model_dump() for spec in self._env.list_tasks(split)]

    def num_tasks(self, split: str) -> int:
        """How many task specs `split` holds."""
        return self._env.num_tasks(split)

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        """One task spec; an IndexError when out of range."""
        return self._env.get_task(split, index).model_dump()

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None) -> list[dict[str, Any]]:
        """Task specs in `[start, stop)`."""
        return [spec.model_dump() for spec in self._env.get_task_range(split, start, stop)]

    def get_metadata(self) -> EnvironmentMetadata:
        """Name, description and version for `/metadata`."""
        return EnvironmentMetadata(name=ENV_NAME, description=ENV_DESCRIPTION, version=ENV_VERSION)

    def close(self) -> None:
        """Refuse further use; the framework calls this when a session ends or idles out."""
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError("this session was closed (idle timeout or shutdown); reconnect and reset")
