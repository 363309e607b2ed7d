"""Bad requests get a clear JSON error with the status the contract names, and never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import LiveServer, in_process, play_http, reset_holding_secret

from openenv_bug_triage.policies import OraclePolicy
from server.app import build_app
from server.config import Settings

NEXT = {"action_type": "next_ticket"}


@pytest.fixture(scope="module")
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        client.post("/reset", json={})
        yield client


def raw(body: str | bytes) -> dict[str, Any]:
    return {
        "content": body.encode() if isinstance(body, str) else body,
        "headers": {"content-type": "application/json"},
    }


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


CASES = [
    # body that is not JSON, or `action` that is not an object: 422
    ("POST", "/step", raw("not json"), 422),
    ("POST", "/step", raw(b"\xff\xfe{}"), 422),
    ("POST", "/step", raw('{"action": {"action_type": "next_ticket"}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": "next_ticket"}} trailing'), 422),
    ("POST", "/step", raw('{"action": {"action_type": "close", "reason": "\x01"}}'), 422),
    ("POST", "/step", raw("[]"), 422),
    ("POST", "/step", raw("null"), 422),
    ("POST", "/step", raw('"next_ticket"'), 422),
    ("POST", "/step", raw(""), 422),
    ("POST", "/step", {"json": {}}, 422),
    ("POST", "/step", {"json": {"action": "next_ticket"}}, 422),
    ("POST", "/step", {"json": {"action": ["next_ticket"]}}, 422),
    ("POST", "/step", {"json": {"action": None}}, 422),
    ("POST", "/step", {"json": {"action": 1e300}}, 422),
    ("POST", "/step", {"json": {"action": NEXT, "bogus": 1}}, 422),
    ("POST", "/step", {"json": {"action": NEXT, "episode_id": 5}}, 422),
    ("POST", "/step", {"json": {"action": NEXT, "episode_id": {"$ne": None}}}, 422),
    ("POST", "/step", {"data": {"action": "x"}}, 422),  # form-encoded
    ("POST", "/step", {"files": {"action": b"{}"}}, 422),  # multipart
    # lone surrogates, NaN, infinities, numbers out of range, deep nesting: 422, never echoed
    ("POST", "/step", raw('{"action": {"action_type": "\\ud800"}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": "close", "reason": "\\udfff\\ud800"}}'), 422),
    ("POST", "/step", raw('{"action": {"\\ud800": 1}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": NaN}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": Infinity}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": -Infinity}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": 1e400}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": -1E+999}}'), 422),
    ("POST", "/step", raw('{"action": {"action_type": ' + "9" * 5000 + "}}"), 422),
    ("POST", "/step", raw('{"action": {"x": ' + nested(300) + "}}"), 422),
    ("POST", "/reset", raw('{"seed": NaN}'), 422),
    ("POST", "/reset", raw('{"task_id": "\\ud800"}'), 422),
    ("POST", "/mcp", raw('{"jsonrpc": "2.0", "method": "\\ud800", "id": 1}'), 422),
    ("POST", "/mcp", raw('{"jsonrpc": "2.0", "method": "x", "id": NaN}'), 422),
    ("POST", "/mcp", {"content": b'{"method": "\\ud800"}', "headers": {"content-type": "multipart/form-data"}}, 422),
    ("POST", "/mcp", {"content": b'{"method": "\\ud800"}', "headers": {"content-type": "text/plain"}}, 422),
    # an action object that fails the schema is the environment's business: 200 with the penalty
    ("POST", "/step", {"json": {"action": {}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "classify"}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "next_ticket", "ticket_id": 10**100}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "assign", "team": 1.5e308}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "defer", "reason": "\u0000\u001f\u007f\u200b"}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "defer", "reason": "x" * 60_000}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "assign", "ticket_id": "\U0001f41e", "team": "web"}}}, 200),
    ("POST", "/step", raw('{"action": {"action_type": "classify", "severity": ' + nested(150) + "}}"), 200),
    ("POST", "/step", {"json": {"action": {"action_type": {"nested": [{"garbage": [None, True, {}]}]}}}}, 200),
    ("POST", "/step", {"json": {"action": {"action_type": "next_ticket", "__proto__": {}, "": ""}}}, 200),
    ("POST", "/step", {"content": json.dumps({"action": NEXT}), "headers": {"content-type": "text/plain"}}, 200),
    ("POST", "/step", {"json": {"action": NEXT, "timeout_s": 5, "request_id": "r1"}}, 200),
    # reset parameters
    ("POST", "/reset", {"json": {"task_id": "nope"}}, 422),
    ("POST", "/reset", {"json": {"task_id": 3}}, 422),
    ("POST", "/reset", {"json": {"task_id": "x" * 10_000}}, 422),
    ("POST", "/reset", {"json": {"seed": -1}}, 422),
    ("POST", "/reset", {"json": {"seed": 2**63}}, 422),
    ("POST", "/reset", {"json": {"seed": 10**300}}, 422),
    ("POST", "/reset", {"json": {"seed": "1"}}, 422),
    ("POST", "/reset", {"json": {"seed": 1.5}}, 422),
    ("POST", "/reset", {"json": {"seed": True}}, 422),
    ("POST", "/reset", {"json": {"task_id": "generated_easy", "split": "validation", "seed": -5}}, 422),
    ("POST", "/reset", {"json": {"task_id": "generated_easy", "seed": 10**300}}, 422),
    ("POST", "/reset", {"json": {"episode_id": "has space"}}, 422),
    ("POST", "/reset", {"json": {"episode_id": ""}}, 422),
    ("POST", "/reset", {"json": {"episode_id": "x" * 129}}, 422),
    ("POST", "/reset", {"json": {"taskid": "bug_triage_easy"}}, 422),
    ("POST", "/reset", raw("[]"), 422),
    ("POST", "/reset", raw("null"), 422),
    ("POST", "/reset", raw("{"), 422),
    ("POST", "/reset", {"json": {"seed": 2**63 - 1}}, 200),
    ("POST", "/reset", {"content": b"", "headers": {}}, 200),
    # bodies over 64 KiB: 413, with or without a content-length
    ("POST", "/step", {"json": {"action": {"action_type": "defer", "reason": "x" * 70_000}}}, 413),
    ("POST", "/reset", raw(" " * (64 * 1024 + 1)), 413),
    ("POST", "/step", {"content": iter([b'{"action": {"reason": "', b"y" * 80_000, b'"}}'])}, 413),
    ("POST", "/mcp", raw("[" + "0," * 40_000 + "0]"), 413),
    # unknown episodes: 404
    ("POST", "/step", {"json": {"action": NEXT, "episode_id": "0" * 32}}, 404),
    ("POST", "/step", {"json": {"action": NEXT, "episode_id": "\u0000"}}, 422),
    ("GET", "/state?episode_id=%FF%FE", {}, 422),
    ("GET", "/state?episode_id=" + "a" * 5000, {}, 422),
    ("GET", "/grader?episode_id=nobody", {}, 404),
    ("GET", "/no-such-route", {}, 404),
    # wrong methods: 405
    ("GET", "/reset", {}, 405),
    ("GET", "/step", {}, 405),
    ("PUT", "/step", {"json": {"action": NEXT}}, 405),
    ("DELETE", "/reset", {}, 405),
    ("POST", "/state", {"json": {}}, 405),
    ("POST", "/grader", {}, 405),
    ("POST", "/tasks", {}, 405),
    ("PATCH", "/schema", {}, 405),
    ("POST", "/health", {}, 405),
    ("POST", "/handbook", {}, 405),
]


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"), CASES, ids=[f"{c[0]} {c[1][:30]} #{i}" for i, c in enumerate(CASES)]
)
def test_bad_requests_get_the_named_status_and_a_json_error(
    http: httpx.Client, method: str, path: str, kwargs: dict, status: int
) -> None:
    if status == 200 and path == "/step":  # an id-less step needs a server that holds one episode only
        with in_process(build_app(Settings())) as client:
            reset_holding_secret(client)
            reply = client.request(method, path, **kwargs)
    else:
        reply = http.request(method, path, **kwargs)
    assert reply.status_code == status, reply.text[:300]
    if status >= 400:
        error = reply.json()["error"]
        assert set(error) == {"type", "message"} and error["message"]
        assert reply.content.isascii()
        for unsafe in (b"ud800", b"udfff", b"NaN", b"Infinity", b"99999999"):
            assert unsafe not in reply.content
    if status == 200 and path == "/step":
        assert reply.json()["observation"]["task_id"] == "bug_triage_easy"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"task_id": "generated_easy", "split": "validation", "seed": -5},
            "seed for the validation split must be an integer from 0 to 199, got -5",
        ),
        (
            {"task_id": "generated_easy", "seed": 10**300},
            "seed for the train split must be an integer from 0 to 2147483647, got an integer of more than 10 digits",
        ),
        ({"seed": 2**63}, "seed must be an integer from 0 to 9223372036854775807, got 9223372036854775808"),
        ({"task_id": "nope"}, "unknown task_id 'nope'; choose one of ["),
    ],
)
def test_a_reset_error_names_the_range_of_the_split_the_seed_is_for(body: dict, message: str) -> None:
    with in_process(build_app(Settings())) as client:
        reply = client.post("/reset", json=body)
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert error["type"] == ("unknown_task" if "task_id" in message else "invalid_seed")
    assert error["message"].startswith(message)


def test_stepping_before_any_reset_is_409() -> None:
    with in_process(build_app(Settings())) as fresh:
        for method, path, kwargs in (
            ("POST", "/step", {"json": {"action": NEXT}}),
            ("GET", "/state", {}),
            ("GET", "/grader", {}),
        ):
            reply = fresh.request(method, path, **kwargs)
            assert reply.status_code == 409
            assert reply.json()["error"]["type"] == "reset_needed" and "POST /reset" in reply.json()["error"]["message"]


def test_stepping_a_finished_episode_is_409(http: httpx.Client) -> None:
    played = play_http(http, OraclePolicy(), "bug_triage_easy", 42)
    reply = http.post("/step", json={"action": NEXT, "episode_id": played.episode_id}, headers=played.secret_header)
    assert reply.status_code == 409 and "reset" in reply.json()["error"]["message"]


def test_validator_probes_still_answer(http: httpx.Client) -> None:
    assert http.post("/mcp", json={}).json()["jsonrpc"] == "2.0"
    assert http.get("/openapi.json").json()["info"]["version"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ACTIONS = st.fixed_dictionaries(
    {"action_type": st.sampled_from(["classify", "assign", "close", "defer", "next_ticket", "x"])},
    optional={"ticket_id": JSON, "severity": JSON, "team": JSON, "reason": JSON, "missing": JSON},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(["/step", "/reset"]),
    body=st.one_of(
        JSON,
        st.fixed_dictionaries({"action": ACTIONS | JSON}),
        st.dictionaries(st.sampled_from(["task_id", "seed", "episode_id", "action"]), JSON, max_size=3),
    ),
)
def test_fuzzed_json_bodies_never_get_a_5xx(http: httpx.Client, path: str, body: object) -> None:
    reply = http.post(path, json=body)
    assert reply.status_code < 500, reply.text[:300]
    if reply.status_code >= 400:
        assert set(reply.json()["error"]) == {"type", "message"}
    elif path == "/step" and reply.json()["done"]:
        http.post("/reset", json={})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/step", "/reset", "/mcp"]), body=st.binary(max_size=200))
def test_fuzzed_bytes_never_get_a_5xx(http: httpx.Client, path: str, body: bytes) -> None:
    reply = http.post(path, content=body, headers={"content-type": "application/json"})
    assert reply.status_code < 500, reply.text[:300]


@pytest.mark.parametrize("episode_id", ["a b", "", "x" * 500, "\x00", "-lead"])
def test_a_malformed_episode_id_is_422_everywhere(http: httpx.Client, episode_id: str) -> None:
    replies = [
        http.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": episode_id}),
        http.get("/state", params={"episode_id": episode_id}),
        http.get("/grader", params={"episode_id": episode_id}),
    ]
    for reply in replies:
        assert reply.status_code == 422, (reply.request.url, reply.text)
        assert reply.json()["error"]["type"] == "invalid_episode_id"
