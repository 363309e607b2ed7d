"""`HttpEnvClient`: the server's HTTP contract behind the same `reset`/`step` shape as `BugTriageEnv`.

Contract: `POST /reset` with `ResetOptions` (task_id, seed, split, index, episode_id, each optional) -> `{observation, reward, done, episode_id, episode_secret, ...}`;
`POST /step {action, episode_id}` -> `{observation, reward, done, info, episode_id}`;
`GET /state?episode_id=`; `GET /grader?episode_id=` (409 until the episode is done; the full
grade with `Authorization: Bearer <trainer token>`, else the agent's copy). The reset's
`episode_secret` goes back as the `X-Episode-Secret` header on every later call, and a trainer
token as `Authorization` on every call (a sealed server then reports the unsealed feedback).

Needs httpx (the `baseline` extra); the core install does not import this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from pydantic import ValidationError

from .contract import EPISODE_SECRET_HEADER, ResetOptions, StepInfo, StepResult
from .errors import EnvServerError, EpisodeLostError
from .models import GraderResult, ObservationModel, RewardModel

__all__ = ["EnvServerError", "EpisodeLostError", "HttpEnvClient"]


@contextmanager
def _contract(path: str) -> Iterator[None]:
    """Turn a response that does not follow the contract into `EnvServerError`."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValidationError) as exc:  # AttributeError: `info` not an object
        raise EnvServerError(f"the environment server's answer to {path} does not follow the contract: {exc}") from None


class HttpEnvClient:
    """One episode at a time against a running environment server.

    Give the server's `base_url`, or `http`, an `httpx.Client` already pointed at it (a FastAPI
    `TestClient` is one), which this client then uses but does not close. Every failure, from an
    unreachable server to a 4xx answer, raises `EnvServerError`; `last_response` is the latest
    raw response, for callers that check the bytes on the wire.
    """

    def __init__(
        self,
        base_url: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        trainer_token: str | None = None,
        *,
        http: httpx.Client | None = None,
    ) -> None:
        if (base_url is None) == (http is None):
            raise TypeError("HttpEnvClient needs either base_url or http (an httpx.Client), not both")
        self._owns_http = http is None
        if http is None:
            http = httpx.Client(base_url=str(base_url).rstrip("/"), timeout=timeout, transport=transport)
        self._http = http
        self.base_url = str(http.base_url).rstrip("/")
        self.episode_id: str | None = None
        self.episode_secret: str | None = None
        """The secret of the latest reset's episode, sent with every later call."""
        self.last_response: httpx.Response | None = None
        self._trainer_headers = {"Authorization": f"Bearer {trainer_token}"} if trainer_token else {}

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
        split: str | None = None,
        index: int | None = None,
    ) -> ObservationModel:
        """Start an episode on the server (see `ResetOptions`); later calls act on the episode id it returns."""
        options = ResetOptions.unchecked(task_id, seed, split, index, episode_id)
        data = self.post("/reset", options.model_dump(exclude_none=True))
        with _contract("/reset"):
            self.episode_id, self.episode_secret = str(data["episode_id"]), str(data["episode_secret"])
            return ObservationModel.model_validate(data["observation"])

    def step(self, action: dict[str, Any]) -> tuple[ObservationModel, RewardModel, bool, dict[str, Any]]:
        """Take one action; returns (observation, reward, done, info) like `BugTriageEnv.step`."""
        return self.step_result(action).as_tuple()

    def step_result(self, action: dict[str, Any]) -> StepResult:
        """Take one action; returns the typed `StepResult` the server's reply carries."""
        episode = self._episode()
        data = self._call("POST", "/step", episode, json={"action": action, "episode_id": episode})
        with _contract("/step"):
            info = StepInfo.model_validate(data["info"])
            if data["done"] and info.grader is None:
                raise EnvServerError("the environment server ended the episode without `info.grader`")
            if data["reward"] != info.reward.value:
                raise EnvServerError(f"the step's reward {data['reward']} is not its info.reward {info.reward.value}")
            return StepResult.of(ObservationModel.model_validate(data["observation"]), info)

    def state(self) -> dict[str, Any]:
        """The server's state report for this episode, as JSON."""
        episode = self._episode()
        return self._call("GET", "/state", episode, params={"episode_id": episode})

    def grade(self) -> GraderResult:
        """The grade of the finished episode (409 before it is done): full with the trainer token, else the agent's copy."""
        episode = self._episode()
        data = self._call("GET", "/grader", episode, params={"episode_id": episode})
        with _contract("/grader"):
            return GraderResult.model_validate(data)

    def get(self, path: str, **params: str) -> dict[str, Any]:
        """`GET path?params` on the server; its JSON object."""
        return self._call("GET", path, None, params=params)

    def post(self, path: str, body: Any) -> dict[str, Any]:
        """`POST path` with a JSON body; the server's JSON object."""
        return self._call("POST", path, None, json=body)

    def close(self) -> None:
        """Close the connection pool (unless it was given as `http`)."""
        if self._owns_http:
            self._http.close()

    def _episode(self) -> str:
        if self.episode_id is None:
            raise EnvServerError("no episode on the server yet; call reset() first")
        return self.episode_id

    def _call(self, method: str, path: str, episode: str | None, **kwargs: Any) -> dict[str, Any]:
        """One request; a 404 `episode_not_found` for `episode` (the call acts on it) is `EpisodeLostError`."""
        headers = dict(self._trainer_headers)
        if self.episode_secret is not None:
            headers[EPISODE_SECRET_HEADER] = self.episode_secret
        try:
            response = self._http.request(method, path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise EnvServerError(
                f"cannot reach the environment server at {self.base_url} ({type(exc).__name__}: {exc}); "
                "start it (`make serve`) or check --env-url"
            ) from None
        self.last_response = response
        if response.status_code == 404 and episode is not None and _error_type(response) == "episode_not_found":
            raise EpisodeLostError(
                episode,
                "the server answered 404 episode_not_found (the replica that held it stopped or restarted, or it expired)",
            )
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


def _error_type(response: httpx.Response) -> str | None:
    """The `error.type` of an error reply, when it has the server's error shape."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    return error.get("type") if isinstance(error, dict) else None
