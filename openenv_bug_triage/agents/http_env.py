"""`HttpEnvClient`: the server's HTTP contract behind the same `reset`/`step` shape as `BugTriageEnv`.

Contract: `POST /reset {task_id, seed, episode_id?}` -> `{observation, reward, done, episode_id}`;
`POST /step {action, episode_id}` -> `{observation, reward, done, info, episode_id}`;
`GET /state?episode_id=`; `GET /grader?episode_id=` (409 until the episode is done; the full
grade with `Authorization: Bearer <trainer token>`, else the agent's copy).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from pydantic import ValidationError

from ..models import GraderResult, ObservationModel, RewardModel
from .errors import EnvServerError


@contextmanager
def _contract(path: str) -> Iterator[None]:
    """Turn a response that does not follow the contract into `EnvServerError`."""
    try:
        yield
    except (KeyError, TypeError, ValidationError) as exc:
        raise EnvServerError(f"the environment server's answer to {path} does not follow the contract: {exc}") from None


class HttpEnvClient:
    """One episode at a time against a running environment server."""

    def __init__(
        self,
        base_url: str,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        trainer_token: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.episode_id: str | None = None
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)
        self._grader_headers = {"Authorization": f"Bearer {trainer_token}"} if trainer_token else {}

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
        split: str | None = None,
    ) -> ObservationModel:
        """Start an episode on the server; later calls act on the episode id it returns."""
        body: dict[str, Any] = {"task_id": task_id, "seed": seed}
        if split is not None:
            body["split"] = split
        if episode_id is not None:
            body["episode_id"] = episode_id
        data = self._call("POST", "/reset", json=body)
        with _contract("/reset"):
            self.episode_id = str(data["episode_id"])
            return ObservationModel.model_validate(data["observation"])

    def step(self, action: dict[str, Any]) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """Take one action; returns (observation, reward, done, info) like `BugTriageEnv.step`."""
        data = self._call("POST", "/step", json={"action": action, "episode_id": self._episode()})
        with _contract("/step"):
            info = data["info"]
            if data["done"] and info.get("grader") is None:
                raise EnvServerError("the environment server ended the episode without `info.grader`")
            return (
                ObservationModel.model_validate(data["observation"]),
                RewardModel.model_validate(info["reward"]),
                bool(data["done"]),
                info,
            )

    def state(self) -> dict[str, Any]:
        """The server's state report for this episode, as JSON."""
        return self._call("GET", "/state", params={"episode_id": self._episode()})

    def grade(self) -> GraderResult:
        """The grade of the finished episode (409 before it is done): full with the trainer token, else the agent's copy."""
        data = self._call("GET", "/grader", params={"episode_id": self._episode()}, headers=self._grader_headers)
        with _contract("/grader"):
            return GraderResult.model_validate(data)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _episode(self) -> str:
        if self.episode_id is None:
            raise EnvServerError("no episode on the server yet; call reset() first")
        return self.episode_id

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise EnvServerError(
                f"cannot reach the environment server at {self.base_url} ({type(exc).__name__}: {exc}); "
                "start it (`make serve`) or check --env-url"
            ) from None
        if response.status_code >= 400:
            raise EnvServerError(
                f"the environment server answered {method} {path} with HTTP {response.status_code}: "
                f"{response.text[:300]}"
            )
        try:
            data = response.json()
        except ValueError:
            raise EnvServerError(f"the environment server sent non-JSON for {method} {path}") from None
        if not isinstance(data, dict):
            raise EnvServerError(f"the environment server sent a JSON {type(data).__name__} for {method} {path}")
        return data
