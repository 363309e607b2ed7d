"""Server settings from environment variables: their names, defaults, precedence and error messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import DEFAULT_PORT, Listen, Settings, SettingsError, port_from_env

VARIABLES = (
    "MAX_SESSIONS",
    "SESSION_TTL_S",
    "BUG_TRIAGE_TRAINER_TOKEN",
    "SEALED",
    "BUG_TRIAGE_TRAJECTORY_DIR",
    "HOST",
    "PORT",
)
TOKEN = "a-trainer-token-0123456789"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_defaults_when_no_variable_is_set(clean_env: pytest.MonkeyPatch) -> None:
    settings = Settings()
    assert (settings.max_sessions, settings.session_ttl_s, settings.trainer_token) == (256, 1800.0, None)
    assert settings.trajectory_dir == Path("artifacts") and settings.sealed is False
    assert Listen() == Listen(host="127.0.0.1", port=DEFAULT_PORT) and DEFAULT_PORT == 7860


def test_variables_are_read_by_their_names_and_explicit_fields_win(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("MAX_SESSIONS", "9")
    clean_env.setenv("SESSION_TTL_S", "2.5")
    clean_env.setenv("BUG_TRIAGE_TRAINER_TOKEN", TOKEN)
    clean_env.setenv("BUG_TRIAGE_TRAJECTORY_DIR", "/srv/runs")
    clean_env.setenv("HOST", "127.0.0.1")
    clean_env.setenv("PORT", "8123")
    settings = Settings()
    assert (settings.max_sessions, settings.session_ttl_s, settings.trainer_token) == (9, 2.5, TOKEN)
    assert settings.trajectory_dir == Path("/srv/runs")
    assert Settings(max_sessions=3).max_sessions == 3 and Settings(max_sessions=3).session_ttl_s == 2.5
    assert Listen() == Listen(host="127.0.0.1", port=8123) and port_from_env() == 8123
    assert Settings.from_env() == settings


@pytest.mark.parametrize(("value", "sealed"), [("1", True), ("true", True), ("0", False), ("false", False)])
def test_sealed_is_read_from_sealed(clean_env: pytest.MonkeyPatch, value: str, sealed: bool) -> None:
    clean_env.setenv("SEALED", value)
    assert Settings().sealed is sealed and Settings.from_env({"SEALED": value}).sealed is sealed


def test_field_names_lowercase_names_and_empty_values_are_not_read(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("max_sessions", "5")
    clean_env.setenv("trainer_token", "x")
    clean_env.setenv("Max_Sessions", "6")
    clean_env.setenv("SESSION_TTL_S", "")
    assert Settings() == Settings.from_env({"SESSION_TTL_S": "", "max_sessions": "5"}) == Settings.from_env({})
    assert Settings().max_sessions == 256 and Settings().session_ttl_s == 1800.0


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MAX_SESSIONS": "0"}, "MAX_SESSIONS must be at least 1, got 0"),
        ({"MAX_SESSIONS": "many"}, "MAX_SESSIONS must be an integer, got 'many'"),
        ({"MAX_SESSIONS": "2.5"}, "MAX_SESSIONS must be an integer, got '2.5'"),
        ({"SESSION_TTL_S": "-1"}, "SESSION_TTL_S must be a positive number of seconds, got -1.0"),
        ({"SESSION_TTL_S": "nan"}, "SESSION_TTL_S must be a positive number of seconds, got nan"),
        ({"SESSION_TTL_S": "soon"}, "SESSION_TTL_S must be a number, got 'soon'"),
        ({"MAX_SESSIONS": "x", "SESSION_TTL_S": "0"}, "MAX_SESSIONS must be an integer, got 'x'; SESSION_TTL_S must"),
        ({"SEALED": "maybe"}, "SEALED must be 1 or 0 (true or false), got 'maybe'"),
    ],
)
def test_a_bad_value_names_its_variable(clean_env: pytest.MonkeyPatch, environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as from_mapping:
        Settings.from_env(environ)
    assert str(from_mapping.value).startswith(message)
    for name, value in environ.items():
        clean_env.setenv(name, value)
    with pytest.raises(SettingsError) as from_process:
        Settings()
    assert str(from_process.value) == str(from_mapping.value)


def test_a_bad_port_and_a_bad_field_say_what_to_fix(clean_env: pytest.MonkeyPatch) -> None:
    for bad, message in (("http", "PORT must be an integer, got 'http'"), ("70000", "PORT must be from 0 to 65535")):
        with pytest.raises(SettingsError, match=message):
            port_from_env({"PORT": bad})
    clean_env.setenv("PORT", "http")
    Settings()  # the app's settings do not read PORT: `uvicorn server.app:app --port ...` still starts
    with pytest.raises(SettingsError, match="max_session: Extra inputs are not permitted"):
        Settings(max_session=3)


def test_a_bad_token_is_never_echoed(clean_env: pytest.MonkeyPatch) -> None:
    bad = "tab\tin-the-middle-0123456789"
    clean_env.setenv("BUG_TRIAGE_TRAINER_TOKEN", bad)
    with pytest.raises(SettingsError, match="BUG_TRIAGE_TRAINER_TOKEN must be at least 16") as caught:
        Settings()
    assert bad not in str(caught.value) and "in-the-middle" not in repr(caught.value)
    assert TOKEN not in repr(Settings(trainer_token=TOKEN))
