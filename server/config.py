"""Server settings, read from environment variables by pydantic-settings.

`Settings` holds what the app needs (`MAX_SESSIONS`, `SESSION_TTL_S`, `BUG_TRIAGE_TRAINER_TOKEN`,
`SEALED`, `BUG_TRIAGE_TRAJECTORY_DIR`); `Listen` holds where `main` serves it (`HOST`, `PORT`), read apart so
that a bad `PORT` never stops `uvicorn server.app:app --port ...`. Unset or empty variables keep their
defaults; a bad value raises `SettingsError`, whose message names the variable and never echoes a token.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_PORT = 7860
MAX_BODY_BYTES = 64 * 1024
TRAINER_TOKEN_VAR = "BUG_TRIAGE_TRAINER_TOKEN"
MIN_TOKEN_CHARS = 16
DEFAULT_TRAJECTORY_DIR = Path("artifacts")

_KINDS = {
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_parsing": "a number",
    "bool_parsing": "1 or 0 (true or false)",
}


class SettingsError(ValueError):
    """An environment variable of the server has a bad value; the message names it and says what it must be."""


class _EnvSettings(BaseSettings):
    """Fields read from the environment variable their `validation_alias` names (that name only)."""

    model_config = SettingsConfigDict(
        case_sensitive=True, env_ignore_empty=True, extra="forbid", frozen=True, hide_input_in_errors=True
    )

    def __init__(self, **values: Any) -> None:
        """Fields given by name (`max_sessions=4`) win; the others come from the environment, else their defaults."""
        fields = type(self).model_fields
        try:
            super().__init__(**{_variable(fields[name]) if name in fields else name: v for name, v in values.items()})
        except ValidationError as exc:
            raise _settings_error(type(self), exc) from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        """Settings from `environ`, or from the process environment when None."""
        if environ is None:
            return cls()
        variables = {var: environ[var] for var in map(_variable, cls.model_fields.values()) if environ.get(var)}
        try:
            return cls.model_validate(variables)
        except ValidationError as exc:
            raise _settings_error(cls, exc) from None


def _variable(field: FieldInfo) -> str:
    """The environment variable a field is read from."""
    assert isinstance(field.validation_alias, str), "every settings field names its variable"
    return field.validation_alias


def _settings_error(cls: type[_EnvSettings], exc: ValidationError) -> SettingsError:
    """One line per bad variable, in the validators' words; pydantic's own words never quote a token."""
    lines = []
    for err in exc.errors():
        var = str(err["loc"][0]) if err["loc"] else cls.__name__
        if err["type"] == "value_error":
            lines.append(str(err["ctx"]["error"]))
        elif err["type"] in _KINDS:
            lines.append(f"{var} must be {_KINDS[err['type']]}, got {err['input']!r}")
        else:
            lines.append(f"{var}: {err['msg']}")
    return SettingsError("; ".join(lines))


class Settings(_EnvSettings):
    """Limits of one server process, the trainer token and the trajectory folder.

    With a trainer token set, `GET /grader` requests that carry it as `Authorization: Bearer <token>`
    get the full grade (expected labels); every other request gets the agent's copy.
    With `SEALED=1`, episodes of the generated test split report only whether each action was valid,
    and their grade only the score and subscores, except to requests with the trainer token
    (`server.sealing`): the mode a reported test score comes from.
    """

    max_sessions: int = Field(default=256, validation_alias="MAX_SESSIONS")
    session_ttl_s: float = Field(default=1800.0, validation_alias="SESSION_TTL_S")
    trainer_token: str | None = Field(default=None, validation_alias=TRAINER_TOKEN_VAR, repr=False)
    sealed: bool = Field(default=False, validation_alias="SEALED")
    trajectory_dir: Path = Field(default=DEFAULT_TRAJECTORY_DIR, validation_alias="BUG_TRIAGE_TRAJECTORY_DIR")
    """Where `/web` lists the trajectories (`*.jsonl`) it can replay; relative to the working directory."""

    @field_validator("max_sessions")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"MAX_SESSIONS must be at least 1, got {value}")
        return value

    @field_validator("session_ttl_s")
    @classmethod
    def _positive_seconds(cls, value: float) -> float:
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"SESSION_TTL_S must be a positive number of seconds, got {value}")
        return value

    @field_validator("trainer_token")
    @classmethod
    def _strong_token(cls, token: str | None) -> str | None:
        if token is not None and not (
            len(token) >= MIN_TOKEN_CHARS and token.isascii() and token.isprintable() and " " not in token
        ):
            raise ValueError(
                f"{TRAINER_TOKEN_VAR} must be at least {MIN_TOKEN_CHARS} printable ASCII characters, no spaces "
                "(e.g. the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        return token


class Listen(_EnvSettings):
    """Where `main` serves the app: `HOST` (default 127.0.0.1; the Docker image sets 0.0.0.0) and `PORT` (default 7860)."""

    host: str = Field(default="127.0.0.1", validation_alias="HOST")
    port: int = Field(default=DEFAULT_PORT, validation_alias="PORT")

    @field_validator("port")
    @classmethod
    def _port_range(cls, port: int) -> int:
        if not 0 <= port <= 65535:
            raise ValueError(f"PORT must be from 0 to 65535, got {port}")
        return port


def port_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The port to listen on: `PORT`, else 7860."""
    return Listen.from_env(environ).port
