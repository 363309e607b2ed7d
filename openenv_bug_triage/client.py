"""Typed OpenEnv client for a Bug Triage server, speaking OpenEnv's WebSocket protocol.

    from openenv_bug_triage.client import BugTriageClient

    with BugTriageClient(base_url="http://127.0.0.1:7860").sync() as env:
        result = env.reset(task_id="bug_triage_easy", seed=42)
        while not result.done:
            result = env.step({"action_type": "next_ticket"})
        print(result.observation.info.grader.score)

The server's `/ws` endpoint speaks OpenEnv's protocol; `BugTriageObservation` is an
`ObservationModel` (so in-process policies accept it) plus the episode id and the step info.
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from pydantic import BaseModel

from .protocol import BugTriageAction, BugTriageObservation, BugTriageState, StepInfo, action_payload

__all__ = ["BugTriageAction", "BugTriageClient", "BugTriageObservation", "BugTriageState", "StepInfo"]


class BugTriageClient(EnvClient[BaseModel | dict[str, Any], BugTriageObservation, BugTriageState]):
    """OpenEnv `EnvClient` over the server's `/ws`: one connection, one episode at a time.

    `reset(task_id=..., seed=..., episode_id=...)`; `step(action)` takes a `ClassifyAction`
    (or any member of the action union), a `BugTriageAction` or a plain dict.
    """

    def _step_payload(self, action: BaseModel | dict[str, Any]) -> dict[str, Any]:
        return action_payload(action)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[BugTriageObservation]:
        obs = BugTriageObservation.model_validate(
            {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        )
        return StepResult(observation=obs, reward=obs.reward, done=obs.done)

    def _parse_state(self, payload: dict[str, Any]) -> BugTriageState:
        return BugTriageState.model_validate(payload)
