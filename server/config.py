"""Server settings, read from environment variables."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar

DEFAULT_PORT = 7860
MAX_BODY_BYTES = 64 * 1024
TRAINER_TOKEN_VAR = "BUG_TRIAGE_TRAINER_TOKEN"
MIN_TOKEN_CHARS = 16

_Number = TypeVar("_Number", int, float)


@dataclass(frozen=True)
class Settings:
    """Limits of one server process, and the trainer token.

    `from_env` reads `MAX_SESSIONS`, `SESSION_TTL_S` and `BUG_TRIAGE_TRAINER_TOKEN`. With a
    trainer token set, `GET /grader` requests that carry it as `Authorization: Bearer <token>`
    get the full grade (expected labels); every other request gets the agent's copy.
    """

    max_sessions: int = 256
    session_ttl_s: float = 1800.0
    max_body_bytes: int = MAX_BODY_BYTES
    trainer_token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.max_sessions < 1:
            raise ValueError(f"MAX_SESSIONS must be at least 1, got {self.max_sessions}")
        if not (math.isfinite(self.session_ttl_s) and self.session_ttl_s > 0):
            raise ValueError(f"SESSION_TTL_S must be a positive number of seconds, got {self.session_ttl_s}")
        token = self.trainer_token
        if token is not None and not (
            len(token) >= MIN_TOKEN_CHARS and token.isascii() and token.isprintable() and " " not in token
        ):
            raise ValueError(
                f"{TRAINER_TOKEN_VAR} must be at least {MIN_TOKEN_CHARS} printable ASCII characters, no spaces "
                "(e.g. the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from `environ` (default `os.environ`); unset variables keep their defaults."""
        env = os.environ if environ is None else environ
        kwargs: _EnvSettings = {}
        if env.get("MAX_SESSIONS"):
            kwargs["max_sessions"] = _parse(env["MAX_SESSIONS"], int, "MAX_SESSIONS")
        if env.get("SESSION_TTL_S"):
            kwargs["session_ttl_s"] = _parse(env["SESSION_TTL_S"], float, "SESSION_TTL_S")
        if env.get(TRAINER_TOKEN_VAR):
            kwargs["trainer_token"] = env[TRAINER_TOKEN_VAR]
        return cls(**kwargs)


class _EnvSettings(TypedDict, total=False):
    """The fields `Settings.from_env` reads from the environment."""

    max_sessions: int
    session_ttl_s: float
    trainer_token: str


def port_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The port to listen on: `PORT`, else 7860."""
    env = os.environ if environ is None else environ
    port = _parse(env.get("PORT") or str(DEFAULT_PORT), int, "PORT")
    if not 0 <= port <= 65535:
        raise ValueError(f"PORT must be from 0 to 65535, got {port}")
    return port


def _parse(raw: str, kind: type[_Number], name: str) -> _Number:
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {raw!r}") from None
