"""The stateful HTTP API: /reset, /step, /state, /grader, /tasks, /handbook, /schema, and the Task API.

Handlers run the environment inline on the event loop (a step takes well under a
millisecond), under the session's lock. Every call after the reset that made an episode carries
its secret (`X-Episode-Secret`, see `server.sessions`); on a sealed server, test-split episodes get
sealed feedback unless the request carries the trainer token (`server.sealing`). Responses are
rendered by pydantic from fixed field orders, so the same task, seed and actions give the same
bytes apart from `episode_id` and `episode_secret`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import to_jsonable_python

from openenv_bug_triage import task_api
from openenv_bug_triage.actions import ACTION_ADAPTER
from openenv_bug_triage.contract import ResetOptions, StepInfo
from openenv_bug_triage.errors import BugTriageError
from openenv_bug_triage.models import (
    GraderResult,
    ObservationModel,
    RewardModel,
    StateModel,
)
from openenv_bug_triage.sources import TaskInfo
from openenv_bug_triage.world import load_handbook

from .adapter import ENV_NAME, available_tasks
from .sealing import SealedFeedback, is_sealed, sealed_grade
from .sessions import SECRET_HEADER, SessionStore
from .wire import ApiError, describe_errors, json_body

EPISODE_ID_HEADER = "X-Episode-Id"
"""A reset's reply names its episode in this header too, so a load balancer can learn which replica holds it."""
EPISODE_ID_QUERY = Query(
    default=None, description="Episode to read; may be left out only while the server holds a single episode."
)
SECRET_HEADER_PARAM = Header(
    default=None,
    alias=SECRET_HEADER,
    description="The `episode_secret` POST /reset returned; required by every call that reaches an existing episode.",
)
AUTHORIZATION_HEADER = Header(
    default=None,
    description="`Bearer <trainer token>` for the full grade and, on a sealed server, the unsealed feedback; "
    "anything else gets the agent's copy.",
)


# --------------------------------------------------------------------------- bodies

_M = TypeVar("_M", bound=BaseModel)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ResetBody(ResetOptions):
    """POST /reset: `ResetOptions`, strictly typed. Every field is optional; an empty body starts the default task."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class StepBody(_Body):
    """POST /step. `action` is any JSON object: one that fails the action schema is penalised, not refused."""

    action: dict[str, Any] = Field(description="One action; see GET /schema.")
    episode_id: str | None = Field(
        default=None,
        description="The id /reset returned; may be left out only while the server holds a single episode.",
    )
    timeout_s: float | None = Field(default=None, description="Accepted for OpenEnv compatibility; ignored.")
    request_id: str | None = Field(default=None, max_length=255, description="Accepted for OpenEnv compatibility.")


class ResetReply(BaseModel):
    """What POST /reset returns."""

    observation: ObservationModel
    reward: float | None
    done: bool
    episode_id: str
    episode_secret: str = Field(
        description=f"Send it as the {SECRET_HEADER} header on every later call for this episode."
    )
    sealed: bool = Field(description="True when the server withholds this episode's per-step correctness (SEALED).")
    seed: int
    split: str | None


class StepReply(BaseModel):
    """What POST /step returns: `reward` is the step's reward; `info.reward` breaks it down."""

    observation: ObservationModel
    reward: float
    done: bool
    info: StepInfo
    episode_id: str


class TaskList(BaseModel):
    """GET /tasks: fixed benchmark tasks, then generated tasks with their split sizes (null: unbounded)."""

    tasks: list[TaskInfo]


class SplitBody(_Body):
    """POST /bug_triage/tasks and /num_tasks (OpenEnv Task API)."""

    split: str = Field(max_length=16)


class TaskBody(_Body):
    """POST /bug_triage/task (OpenEnv Task API)."""

    split: str = Field(max_length=16)
    index: int


class TaskRangeBody(_Body):
    """POST /bug_triage/task_range (OpenEnv Task API): Python slice bounds, at most 1,000 specs."""

    split: str = Field(max_length=16)
    start: int | None = None
    stop: int | None = None


class SchemaReply(BaseModel):
    """GET /schema: the real action union and the models the API returns."""

    action: dict[str, Any]
    observation: dict[str, Any]
    state: dict[str, Any]
    reward: dict[str, Any]
    grader: dict[str, Any]
    info: dict[str, Any] = Field(description="The `info` of a POST /step reply.")


def json_model(model: type[_M]) -> Callable[[Request], Awaitable[_M]]:
    """A FastAPI dependency: the request's JSON body as a `model`, or a 422 that names the field.

    The body is the strict JSON `BodyGuard` parsed (whatever content type it claims; empty reads
    as `{}`), so handlers take typed bodies while every route answers bad JSON alike.
    """

    async def typed_body(request: Request) -> _M:
        body = await json_body(request)
        if not isinstance(body, dict):
            raise ApiError(422, "invalid_request", f"request body must be a JSON object, got a JSON {_json_kind(body)}")
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            raise ApiError(422, "invalid_request", describe_errors(exc.errors())) from None

    return typed_body


def _json_kind(value: Any) -> str:
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return kinds.get(type(value), "null")


def _specs(payload: dict[str, Any]) -> Response:
    """A Task API answer: task specs (metadata only) as JSON."""
    return Response(json.dumps(to_jsonable_python(payload)), media_type="application/json")


def _json(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(model.model_dump_json(), status_code=status, media_type="application/json", headers=headers)


# --------------------------------------------------------------------------- routes


def is_trainer(authorization: str | None, trainer_token: str | None) -> bool:
    """True when a trainer token is set and `authorization` is `Bearer <token>`.

    The digests are compared in constant time, so neither the time taken nor its dependence on
    the length of the guess says anything about the token.
    """
    if trainer_token is None or authorization is None:
        return False
    scheme, _, given = authorization.strip().partition(" ")
    digest = hashlib.sha256(given.strip().encode("utf-8", "surrogatepass")).digest()
    return scheme.lower() == "bearer" and hmac.compare_digest(digest, hashlib.sha256(trainer_token.encode()).digest())


def build_router(store: SessionStore, trainer_token: str | None = None, sealed: bool = False) -> APIRouter:
    """The session-aware routes over `store`; `trainer_token` unlocks full grades on `/grader` and, with
    `sealed`, the unsealed feedback of test-split episodes (see `server.sealing`)."""
    router = APIRouter()
    tasks = available_tasks()
    task_list = TaskList(tasks=list(tasks.values()))
    schema = SchemaReply(
        action=ACTION_ADAPTER.json_schema(),
        observation=ObservationModel.model_json_schema(),
        state=StateModel.model_json_schema(),
        reward=RewardModel.model_json_schema(),
        grader=GraderResult.model_json_schema(),
        info=StepInfo.model_json_schema(),
    )

    @router.post(
        "/reset",
        tags=["Environment Control"],
        summary="Start an episode",
        response_model=ResetReply,
        openapi_extra={"requestBody": {"content": {"application/json": {"schema": ResetBody.model_json_schema()}}}},
    )
    async def reset(
        body: Annotated[ResetBody, Depends(json_model(ResetBody))], secret: str | None = SECRET_HEADER_PARAM
    ) -> Response:
        fresh = body.episode_id is None or not store.has(body.episode_id)
        session = store.open(body.episode_id, secret)
        with session.lock:
            named = body.task_id is not None or body.index is not None
            try:
                task_id = body.task_id if named else session.task_id  # no task named: the episode's own
                options = ResetOptions.unchecked(task_id, body.seed, body.split, body.index, session.episode_id)
                obs = session.env.reset_with(options)
            except BugTriageError:
                if fresh:
                    store.discard(session)
                raise
            session.done, session.task_id = False, obs.task_id
            state = session.env.state()
            session.seal = SealedFeedback() if is_sealed(sealed, state.split) else None
        return _json(
            ResetReply.model_construct(
                observation=obs,
                reward=None,
                done=False,
                episode_id=session.episode_id,
                episode_secret=session.secret,
                sealed=session.seal is not None,
                seed=state.seed,
                split=state.split,
            ),
            headers={EPISODE_ID_HEADER: session.episode_id},
        )

    @router.post(
        "/step",
        tags=["Environment Control"],
        summary="Take one action",
        response_model=StepReply,
        openapi_extra={"requestBody": {"content": {"application/json": {"schema": StepBody.model_json_schema()}}}},
    )
    async def step(
        body: Annotated[StepBody, Depends(json_model(StepBody))],
        secret: str | None = SECRET_HEADER_PARAM,
        authorization: str | None = AUTHORIZATION_HEADER,
    ) -> Response:
        session = store.get(body.episode_id, secret)
        with session.lock:
            result = session.env.step_result(body.action)
            session.done = result.done
            if session.seal is not None:
                sealed_result = session.seal.step(result)  # the running sealed totals move whoever asks
                if not is_trainer(authorization, trainer_token):
                    result = sealed_result
        reply = StepReply.model_construct(
            observation=result.observation,
            reward=result.reward.value,
            done=result.done,
            info=result.info,
            episode_id=session.episode_id,
        )
        return _json(reply)

    @router.get("/state", tags=["State Management"], summary="Episode state", response_model=StateModel)
    async def state(
        episode_id: str | None = EPISODE_ID_QUERY,
        secret: str | None = SECRET_HEADER_PARAM,
        authorization: str | None = AUTHORIZATION_HEADER,
    ) -> Response:
        session = store.get(episode_id, secret)
        with session.lock:
            report = session.env.state()
            if session.seal is not None and not is_trainer(authorization, trainer_token):
                report = session.seal.state(report)
            return _json(report)

    @router.get(
        "/grader",
        tags=["State Management"],
        summary="Grade of a finished episode",
        response_model=GraderResult,
        responses={409: {"description": "The episode has not ended yet."}},
    )
    async def grader(
        episode_id: str | None = EPISODE_ID_QUERY,
        secret: str | None = SECRET_HEADER_PARAM,
        authorization: str | None = AUTHORIZATION_HEADER,
    ) -> Response:
        session = store.get(episode_id, secret)
        with session.lock:
            if not session.done:
                raise ApiError(
                    409, "episode_not_done", "the grade is available once the episode ends; keep stepping until `done`"
                )
            if is_trainer(authorization, trainer_token):
                return _json(session.env.grade(reveal=True))
            grade = session.env.grade(reveal=False)
            return _json(sealed_grade(grade) if session.seal is not None else grade)

    @router.get("/tasks", tags=["Environment Info"], summary="Tasks", response_model=TaskList)
    async def list_tasks() -> Response:
        return _json(task_list)

    @router.get(f"/{ENV_NAME}/splits", tags=["Task API"], summary="Splits of the generated tasks")
    async def splits() -> Response:
        return Response(json.dumps(task_api.list_splits()), media_type="application/json")

    @router.post(f"/{ENV_NAME}/tasks", tags=["Task API"], summary="Task specs of a split (bounded preview)")
    async def split_tasks(body: Annotated[SplitBody, Depends(json_model(SplitBody))]) -> Response:
        return _specs({"tasks": task_api.list_tasks(body.split), "env_name": ENV_NAME})

    @router.post(f"/{ENV_NAME}/num_tasks", tags=["Task API"], summary="Number of task specs in a split")
    async def num_tasks(body: Annotated[SplitBody, Depends(json_model(SplitBody))]) -> Response:
        return Response(json.dumps({"num_tasks": task_api.num_tasks(body.split)}), media_type="application/json")

    @router.post(f"/{ENV_NAME}/task", tags=["Task API"], summary="One task spec by split and index")
    async def one_task(body: Annotated[TaskBody, Depends(json_model(TaskBody))]) -> Response:
        return _specs({"task": task_api.get_task(body.split, body.index)})

    @router.post(f"/{ENV_NAME}/task_range", tags=["Task API"], summary="Task specs in [start, stop)")
    async def task_range(body: Annotated[TaskRangeBody, Depends(json_model(TaskRangeBody))]) -> Response:
        return _specs({"tasks": task_api.get_task_range(body.split, body.start, body.stop)})

    @router.get("/list_environments", tags=["Task API"], summary="The environment name the Task API paths start with")
    async def list_environments() -> Response:
        return Response(json.dumps([ENV_NAME]), media_type="application/json")

    @router.get(
        "/handbook",
        tags=["Environment Info"],
        summary="The triage handbook agents read",
        response_class=PlainTextResponse,
    )
    async def handbook() -> Response:
        return Response(load_handbook(), media_type="text/markdown; charset=utf-8")

    @router.get("/schema", tags=["Schema"], summary="Action union, observation, state, reward and grade schemas")
    async def get_schema() -> Response:
        return _json(schema)

    return router
