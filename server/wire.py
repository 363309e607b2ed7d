"""Request bodies in, JSON errors out: strict JSON, a body limit, and error handlers that never echo input.

Every error the server sends is `{"error": {"type": ..., "message": ...}}`. Messages are
written here or by the environment (which quotes input through `repr`), and error bodies
are ASCII-escaped, so no error response can fail to encode.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from pydantic_core import from_json
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from openenv_bug_triage.errors import (
    BugTriageError,
    EpisodeDoneError,
    InvalidSeedError,
    InvalidSplitError,
    ResetNeededError,
    UnknownTaskError,
)
from openenv_bug_triage.task_api import TaskApiError

from .sessions import (
    EpisodeIdRequiredError,
    EpisodeSecretMissingError,
    EpisodeSecretWrongError,
    InvalidEpisodeIdError,
    InvalidResetError,
    NoSessionError,
    SessionClosedError,
    SessionNotFoundError,
    SessionsFullError,
)

WS_IDLE_CLOSE_CODE = 4408
"""Close code of a WebSocket that sent nothing for the idle timeout (4000-4999 are the application's)."""
JSON_SCOPE_KEY = "bug_triage.json_body"
"""Where `BodyGuard` leaves the parsed body in the ASGI scope, so handlers do not parse twice."""

_BIG_EXPONENT = re.compile(rb"[0-9][eE][+]?[0-9]{3}")


class ApiError(Exception):
    """An error answer: HTTP status, a snake_case type and a message that says how to fix it."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


def error_response(status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None) -> Response:
    """The JSON error body, ASCII-escaped so that it always encodes."""
    body = json.dumps({"error": {"type": error_type, "message": message}}, ensure_ascii=True)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


# --------------------------------------------------------------------------- parsing


def parse_json(body: bytes) -> Any:
    """Parse a request body as strict JSON: UTF-8, no NaN or infinities, no lone surrogates, depth <= 200."""
    try:
        value = from_json(body, allow_inf_nan=False)
    except ValueError as exc:  # pydantic-core's messages name a position, never the input
        hint = " (strings must be valid Unicode: no lone UTF-16 surrogate escapes)" if "escape" in str(exc) else ""
        raise ApiError(422, "invalid_json", f"request body is not valid JSON: {exc}{hint}") from None
    if _BIG_EXPONENT.search(body) and not _all_finite(value):
        raise ApiError(422, "invalid_json", "request body has a number too large for a 64-bit float")
    return value


def _all_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


async def json_body(request: Request) -> Any:
    """The request's parsed JSON body; an empty body reads as `{}`."""
    if JSON_SCOPE_KEY in request.scope:
        return request.scope[JSON_SCOPE_KEY]
    body = await request.body()
    return parse_json(body) if body.strip() else {}


class BodyGuard:
    """ASGI middleware: bodies over the limit get 413; JSON bodies that are not strict JSON get 422.

    Guards every route, the framework's included (`/mcp`), so that no handler sees input it
    could fail to encode, whatever content type it claims (no route takes form bodies: the
    playground at `/web` reads files in the browser). A WebSocket client hanging up is not
    logged as a server error; one that sends nothing for `ws_idle_s` (gone, or half-open: it
    neither reads nor answers) is treated as gone, so its session and slot are freed, and its
    connection is closed with `WS_IDLE_CLOSE_CODE`.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int, ws_idle_s: float | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.ws_idle_s = ws_idle_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            with contextlib.suppress(WebSocketDisconnect):  # openenv-core's /ws re-closes a closed socket
                await self.app(scope, *_guard_frames(receive, send, self.ws_idle_s))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is None and b"transfer-encoding" not in headers:
            await self.app(scope, receive, send)
            return
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._reject(scope, receive, send, self._too_large())
            return
        body, complete = await self._read(receive)
        if not complete:
            await self._reject(scope, receive, send, self._too_large())
            return
        if body.strip():
            try:
                scope[JSON_SCOPE_KEY] = parsed = parse_json(body)
            except ApiError as exc:
                await error_response(exc.status, exc.error_type, exc.message)(scope, receive, send)
                return
            if isinstance(parsed, dict) and "action" in parsed and not isinstance(parsed["action"], dict):
                message = "`action` must be a JSON object with an `action_type`; see GET /schema"
                await error_response(422, "invalid_request", message)(scope, receive, send)
                return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks), True
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                return b"", False
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), True

    def _too_large(self) -> Response:
        return error_response(
            413, "payload_too_large", f"request body is larger than {self.max_body_bytes // 1024} KiB"
        )

    @staticmethod
    async def _reject(scope: Scope, receive: Receive, send: Send, response: Response) -> None:
        response.headers["connection"] = "close"
        await response(scope, receive, send)


def ws_frame_problem(message: Message) -> str | None:
    """Why a WebSocket frame is not one strict-JSON object (None when it is)."""
    text = message.get("text")
    if text is None:
        return "send each message as a text frame holding one JSON object, not a binary frame"
    try:
        value = parse_json(text.encode("utf-8", "surrogatepass"))
    except ApiError as exc:
        return exc.message
    if not isinstance(value, dict):
        return "a message must be a JSON object with a `type`: reset, step, state or close"
    return None


def _guard_frames(receive: Receive, send: Send, idle_s: float | None) -> tuple[Receive, Send]:
    """Answer frames that are not strict JSON objects with an error, and keep the session open; end a
    session whose client sent nothing for `idle_s` seconds.

    openenv-core's `/ws` loop ends the session on such frames (binary frames, arrays, deep
    nesting, huge numbers, lone surrogates), losing the episode; here they never reach it.
    An idle client reads to the app as a disconnect: the app frees the session first, then closes
    the socket, and that close goes out with `WS_IDLE_CLOSE_CODE` and a reason that says why.
    """
    idle = False

    async def next_message() -> Message:
        nonlocal idle
        if idle_s is None:
            return await receive()
        try:
            async with asyncio.timeout(idle_s):  # a deadline on this task: no extra task per message
                return await receive()
        except TimeoutError:
            idle = True
            return {"type": "websocket.disconnect", "code": WS_IDLE_CLOSE_CODE}

    async def guarded_receive() -> Message:
        while True:
            message = await next_message()
            if message["type"] != "websocket.receive" or (problem := ws_frame_problem(message)) is None:
                return message
            error = {"type": "error", "data": {"message": problem, "code": "INVALID_JSON"}}
            await send({"type": "websocket.send", "text": json.dumps(error, ensure_ascii=True)})

    async def guarded_send(message: Message) -> None:
        if idle:
            if message["type"] == "websocket.close":
                reason = f"nothing received for {idle_s:g} s (SESSION_TTL_S); reconnect and reset"
                await send({"type": "websocket.close", "code": WS_IDLE_CLOSE_CODE, "reason": reason})
            return  # nothing else reaches a client taken for gone
        await send(message)

    return guarded_receive, guarded_send


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


# --------------------------------------------------------------------------- exception handlers


def _status_type(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "http_error"


_DOMAIN_ERRORS: dict[type[Exception], tuple[int, str]] = {
    UnknownTaskError: (422, "unknown_task"),
    InvalidSeedError: (422, "invalid_seed"),
    InvalidSplitError: (422, "invalid_split"),
    TaskApiError: (400, "invalid_task_index"),
    InvalidEpisodeIdError: (422, "invalid_episode_id"),
    ResetNeededError: (409, "reset_needed"),
    NoSessionError: (409, "reset_needed"),
    EpisodeIdRequiredError: (409, "episode_id_required"),
    EpisodeDoneError: (409, "episode_done"),
    SessionNotFoundError: (404, "episode_not_found"),
    EpisodeSecretMissingError: (403, "episode_secret_missing"),
    EpisodeSecretWrongError: (403, "episode_secret_wrong"),
    SessionsFullError: (503, "sessions_full"),
    InvalidResetError: (422, "invalid_request"),
    SessionClosedError: (409, "session_closed"),
}


def install_error_handlers(app: FastAPI) -> None:
    """Give every error, the framework's included, the `{"error": {...}}` shape and no echoed input."""

    async def on_api_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.error_type, exc.message)

    async def on_http_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        return error_response(exc.status_code, _status_type(exc.status_code), message, headers=exc.headers)

    async def on_validation_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError | ValidationError)
        return error_response(422, "invalid_request", describe_errors(exc.errors()))

    def domain_handler(status: int, error_type: str) -> Callable[[Request, Exception], Awaitable[Response]]:
        async def handler(_: Request, exc: Exception) -> Response:
            return error_response(status, error_type, str(exc))

        return handler

    async def on_unexpected(_: Request, exc: Exception) -> Response:
        return error_response(500, "internal_error", f"the server failed ({type(exc).__name__}); this is a bug")

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(ValidationError, on_validation_error)  # raised inside framework routes (/web)
    for exc_type, (status, error_type) in _DOMAIN_ERRORS.items():
        app.add_exception_handler(exc_type, domain_handler(status, error_type))
    app.add_exception_handler(BugTriageError, domain_handler(500, "internal_error"))
    app.add_exception_handler(Exception, on_unexpected)


def describe_errors(errors: Any) -> str:
    """Pydantic errors as `location: message` lines, without the offending input."""
    lines = []
    for err in list(errors)[:5]:
        loc = ".".join(str(p) if isinstance(p, int) else safe_text(p) for p in err.get("loc", ()))
        lines.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
    return "; ".join(lines)


def safe_text(part: Any) -> str:
    """`part` as text when it is short printable ASCII, safe to put in a message; else a placeholder."""
    text = str(part)
    return text if text.isascii() and text.isprintable() and len(text) <= 64 else "<key>"
