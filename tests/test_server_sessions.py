"""Sessions: isolated, concurrent, capped, evicted when idle, never mixed up."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from server_helpers import TRAINER_TOKEN, LiveServer, in_process, play_http, secret_header
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from openenv_bug_triage.episode import start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy, run_episode
from openenv_bug_triage.tasks import TASK_IDS
from server.app import build_app
from server.config import Settings
from server.sessions import (
    EpisodeIdRequiredError,
    EpisodeSecretMissingError,
    EpisodeSecretWrongError,
    InvalidEpisodeIdError,
    NoSessionError,
    SessionNotFoundError,
    SessionsFullError,
    SessionStore,
)
from server.wire import WS_IDLE_CLOSE_CODE

# --------------------------------------------------------------------------- the store, on a fake clock


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_store_evicts_sessions_idle_longer_than_the_ttl() -> None:
    clock = FakeClock()
    store = SessionStore(max_sessions=4, ttl_s=10, clock=clock)
    a = store.open(None)
    clock.now = 6
    b = store.open(None)
    clock.now = 12
    assert store.get(b.episode_id, b.secret) is b
    with pytest.raises(SessionNotFoundError, match="idle"):
        store.get(a.episode_id, a.secret)
    assert len(store) == 1


def test_store_use_keeps_a_session_alive() -> None:
    clock = FakeClock()
    store = SessionStore(max_sessions=4, ttl_s=10, clock=clock)
    a = store.open("a")
    for t in (8, 16, 24):
        clock.now = t
        assert store.get("a", a.secret) is a


def test_store_without_an_id_serves_only_a_lone_episode() -> None:
    clock = FakeClock()
    store = SessionStore(max_sessions=4, ttl_s=10, clock=clock)
    with pytest.raises(NoSessionError):
        store.get(None, None)
    older = store.open("older")
    assert store.get(None, older.secret) is older
    clock.now = 5
    latest = store.open("latest")
    with pytest.raises(EpisodeIdRequiredError, match="pass the episode_id that POST /reset returned"):
        store.get(None, latest.secret)
    older.done = True  # one unfinished episode left: it is the one meant, and only with its secret
    assert store.get(None, latest.secret) is latest
    with pytest.raises(EpisodeSecretMissingError, match="the episode this server holds") as missing:
        store.get(None, None)
    assert "latest" not in str(missing.value), "an id-less request learns no id"
    latest.done = True  # two finished episodes: ambiguous again
    with pytest.raises(EpisodeIdRequiredError):
        store.get(None, latest.secret)
    clock.now = 5 + 11  # both expired
    with pytest.raises(NoSessionError, match="POST /reset"):
        store.get(None, None)


def test_store_full_of_live_episodes_refuses_then_reuses_a_finished_slot() -> None:
    store = SessionStore(max_sessions=2, ttl_s=100, clock=FakeClock())
    first, second = store.open("first"), store.open("second")
    with pytest.raises(SessionsFullError, match="all 2 session slots"):
        store.open("third")
    second.done = True
    assert store.open("third").episode_id == "third"
    with pytest.raises(SessionNotFoundError):
        store.get("second", second.secret)
    assert store.get("first", first.secret) is first


def test_store_full_says_so_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(max_sessions=1, ttl_s=100, clock=FakeClock())
    store.open("only")
    with caplog.at_level("WARNING", logger="bug_triage.sessions"), pytest.raises(SessionsFullError):
        store.open(None)
    assert "all 1 session slots hold unfinished episodes" in caplog.text


def test_store_reopening_an_id_returns_the_same_session() -> None:
    store = SessionStore(max_sessions=1, ttl_s=100, clock=FakeClock())
    session = store.open("mine")
    assert store.open("mine", session.secret) is session


def test_store_reaches_an_episode_only_with_its_secret() -> None:
    clock = FakeClock()
    store = SessionStore(max_sessions=2, ttl_s=10, clock=clock)
    mine, other = store.open("mine"), store.open(None)
    assert len(mine.secret) >= 40 and mine.secret != other.secret
    for call in (lambda s: store.get("mine", s), lambda s: store.open("mine", s)):
        with pytest.raises(EpisodeSecretMissingError, match="X-Episode-Secret header"):
            call(None)
        with pytest.raises(EpisodeSecretWrongError, match="not the secret of episode 'mine'"):
            call(other.secret)
    clock.now = 11  # a stranger's tries did not keep the episode alive
    with pytest.raises(SessionNotFoundError):
        store.get("mine", mine.secret)


@pytest.mark.parametrize("bad", ["", " x", "a/b", "é", "x" * 129, "-lead", "\ud800"])
def test_store_refuses_malformed_episode_ids(bad: str) -> None:
    with pytest.raises(InvalidEpisodeIdError):
        SessionStore(max_sessions=1, ttl_s=1).open(bad)


# --------------------------------------------------------------------------- live servers


def test_two_sessions_stepping_interleaved_stay_isolated(server: LiveServer) -> None:
    policies = {"iso-a": OraclePolicy, "iso-b": RandomPolicy}
    task_id, seed = "bug_triage_medium", 4
    with httpx.Client(base_url=server.url) as http:
        clients = {episode_id: HttpEnvClient(http=http, trainer_token=TRAINER_TOKEN) for episode_id in policies}
        episodes = {
            episode_id: start(clients[episode_id], policy_cls(), task_id, seed, episode_id=episode_id)
            for episode_id, policy_cls in policies.items()
        }
        playing = {episode_id: iter(episode) for episode_id, episode in episodes.items()}
        while playing:
            for episode_id, steps in list(playing.items()):
                step = next(steps)
                reply = clients[episode_id].last_response
                assert reply is not None and reply.json()["episode_id"] == episode_id
                if step.done:
                    del playing[episode_id]
        for episode_id, policy_cls in policies.items():
            expected = run_episode(policy_cls(), task_id, seed)
            assert episodes[episode_id].rewards == expected.rewards
            assert clients[episode_id].grade() == expected.grade


def test_32_concurrent_sessions_each_play_a_whole_heuristic_episode(server: LiveServer) -> None:
    jobs = [(TASK_IDS[i % len(TASK_IDS)], i) for i in range(32)]

    def play(job: tuple[str, int]) -> tuple[str, int, object]:
        task_id, seed = job
        with httpx.Client(base_url=server.url, timeout=30) as http:
            return task_id, seed, play_http(http, HeuristicPolicy(), task_id, seed, trainer_token=TRAINER_TOKEN).grade

    with ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(play, jobs))
    assert len(results) == 32
    for task_id, seed, grade in results:
        assert grade == run_episode(HeuristicPolicy(), task_id, seed).grade, (task_id, seed)


def test_unknown_episode_ids_get_404_and_malformed_ones_422_without_echo(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        http.post("/reset", json={})
        for path in ("/state", "/grader"):
            reply = http.get(path, params={"episode_id": "never-made"})
            assert reply.status_code == 404
            assert reply.json()["error"]["type"] == "episode_not_found"
            assert "'never-made'" in reply.json()["error"]["message"]
        reply = http.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": "<script>"})
        assert reply.status_code == 422 and "<script>" not in reply.text


def test_full_server_answers_503_and_a_finished_episode_frees_its_slot() -> None:
    with in_process(build_app(Settings(max_sessions=2))) as http:
        finished = play_http(http, OraclePolicy(), "bug_triage_easy", 42).episode_id
        live_one = http.post("/reset", json={})
        taken = http.post("/reset", json={})  # takes the finished episode's slot
        assert http.get("/grader", params={"episode_id": finished}).status_code == 404
        full = http.post("/reset", json={})
        assert full.status_code == 503
        assert full.json()["error"]["type"] == "sessions_full"
        for reply in (live_one, taken):
            state = http.get("/state", params={"episode_id": reply.json()["episode_id"]}, headers=secret_header(reply))
            assert state.status_code == 200
        again = http.post(  # reusing one's own id always works
            "/reset", json={"episode_id": taken.json()["episode_id"]}, headers=secret_header(taken)
        )
        assert again.status_code == 200


def test_idle_sessions_expire_and_404_never_another_sessions_episode() -> None:
    with in_process(build_app(Settings(session_ttl_s=0.4))) as http:
        stale = http.post("/reset", json={"seed": 1}).json()["episode_id"]
        time.sleep(0.6)
        reply = http.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": stale})
        assert reply.status_code == 404 and "idle" in reply.json()["error"]["message"]
        assert http.post("/step", json={"action": {"action_type": "next_ticket"}}).status_code == 409
        fresh = http.post("/reset", json={"seed": 2})
        assert http.get("/state", headers=secret_header(fresh)).json()["episode_id"] == fresh.json()["episode_id"]
        assert http.get("/state", params={"episode_id": stale}).status_code == 404


def test_one_client_opening_many_episodes_gets_503_and_idle_ones_are_evicted() -> None:
    app = build_app(Settings(max_sessions=4, session_ttl_s=0.5))
    with in_process(app) as greedy, in_process(app) as other:
        opened = [greedy.post("/reset", json={"seed": i}).json()["episode_id"] for i in range(4)]
        assert len(set(opened)) == 4
        for client in (greedy, other):
            full = client.post("/reset", json={})
            assert full.status_code == 503
            error = full.json()["error"]
            assert error["type"] == "sessions_full"
            assert "MAX_SESSIONS" in error["message"] and "SESSION_TTL_S" in error["message"]
        time.sleep(0.8)  # every greedy episode is now idle past the TTL
        mine = other.post("/reset", json={})
        assert mine.status_code == 200
        for episode_id in opened:
            assert other.get("/state", params={"episode_id": episode_id}).status_code == 404


# --------------------------------------------------------------------------- clients that vanish without closing


def open_half_open_websocket(port: int) -> socket.socket:
    """A raw socket that completes a WebSocket handshake on /ws, then neither reads nor answers."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 101"), "the handshake must succeed"
    return sock


def ws_reset(port: int) -> dict:
    """The first answer to a reset on a new WebSocket (a refused one is answered, then closed, at once)."""
    answer: dict = {}
    with contextlib.suppress(ConnectionClosed), ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
        with contextlib.suppress(ConnectionClosed):
            ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
        answer = json.loads(ws.recv(timeout=10))
    return answer


def test_a_half_open_websocket_frees_its_slot_after_the_idle_timeout() -> None:
    ttl = 1.0
    with LiveServer(build_app(Settings(max_sessions=1, session_ttl_s=ttl))) as live:
        vanished = open_half_open_websocket(live.port)
        started = time.monotonic()
        try:
            refused = ws_reset(live.port)
            assert refused["type"] == "error" and refused["data"]["code"] == "CAPACITY_REACHED"
            time.sleep(max(0.0, started + ttl + 0.5 - time.monotonic()))
            admitted = ws_reset(live.port)
            assert admitted["type"] == "observation", admitted
            vanished.settimeout(10)
            close = vanished.recv(4096)  # the server closed the silent connection, saying why
            assert close[0] == 0x88 and int.from_bytes(close[2:4], "big") == WS_IDLE_CLOSE_CODE
            assert b"SESSION_TTL_S" in close
        finally:
            vanished.close()


def test_an_abandoned_http_episode_frees_its_slot_after_the_idle_timeout() -> None:
    ttl = 1.0
    with (
        LiveServer(build_app(Settings(max_sessions=1, session_ttl_s=ttl))) as live,
        httpx.Client(base_url=live.url, timeout=10) as http,
    ):
        assert http.post("/reset", json={}).status_code == 200  # and never heard of again
        started = time.monotonic()
        refused = http.post("/reset", json={})
        assert refused.status_code == 503 and refused.json()["error"]["type"] == "sessions_full"
        time.sleep(max(0.0, started + ttl + 0.2 - time.monotonic()))
        assert http.post("/reset", json={}).status_code == 200
