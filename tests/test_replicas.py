"""Three server processes behind HAProxy (`deploy/haproxy.cfg`): episodes play as in one process, and a
replica that stops loses only its own episodes, each with an `EpisodeLostError` at once.

Slow: it starts four processes. Skipped when HAProxy is not installed, except under `CI=true`, where a
missing HAProxy fails (`.ci/run` installs it). The tests share one `ReplicaSet`; the last one stops a replica.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic_core import to_jsonable_python
from replicas import HAPROXY_CONFIG, HAPROXY_HINT, ReplicaSet, haproxy_binary
from test_episode import record

from openenv_bug_triage import TASK_IDS, BugTriageEnv
from openenv_bug_triage.client import WebSocketEnv
from openenv_bug_triage.contract import EPISODE_SECRET_HEADER
from openenv_bug_triage.episode import Episode, EpisodeEnv, start
from openenv_bug_triage.errors import EpisodeLostError
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import HeuristicPolicy

pytestmark = pytest.mark.slow

EPISODES = 64
"""Half over HTTP (half of those with client-made ids), half over the WebSocket."""
FIRST_STEPS = 5
"""Steps every episode takes before a replica is stopped (the shortest episode has 14)."""
AT_ONCE_S = 5.0
"""A client of the stopped replica hears of it within this: HAProxy's server timeout (60 s) would be a hang."""


@pytest.fixture(scope="module")
def replicas() -> Iterator[ReplicaSet]:
    if haproxy_binary() is None:
        if os.environ.get("CI") == "true":
            pytest.fail(HAPROXY_HINT)
        pytest.skip(HAPROXY_HINT)
    with ReplicaSet() as started:
        yield started


def transcript(episode: Episode) -> bytes:
    """Every step's observation, action, reward, done and info, as canonical JSON bytes (transport extras left out)."""
    return json.dumps(to_jsonable_python(record(episode)), sort_keys=True, ensure_ascii=False).encode()


@dataclass
class Game:
    """One of the 64 episodes: what it plays, how, and where it landed."""

    number: int
    transport: str
    task_id: str
    seed: int
    episode_id: str | None
    env: EpisodeEnv | None = None
    episode: Episode | None = None
    replica: str = ""

    def open(self, url: str) -> None:
        self.env = HttpEnvClient(url) if self.transport == "http" else WebSocketEnv(url)
        self.episode = start(self.env, HeuristicPolicy(), self.task_id, self.seed, episode_id=self.episode_id)
        self.episode.play(limit=FIRST_STEPS)
        self.replica = served_by(self.env)

    def held_id(self) -> str:
        assert isinstance(self.env, HttpEnvClient | WebSocketEnv) and self.env.episode_id is not None
        return self.env.episode_id


def served_by(env: EpisodeEnv) -> str:
    """The replica HAProxy sent this client to: its `X-Served-By` header (on the WebSocket's upgrade reply)."""
    if isinstance(env, HttpEnvClient):
        assert env.last_response is not None
        return env.last_response.headers["x-served-by"]
    assert isinstance(env, WebSocketEnv)
    return str(env.client._async._ws.response.headers["x-served-by"])


def games() -> list[Game]:
    made = []
    for n in range(EPISODES):
        transport = "http" if n % 2 == 0 else "websocket"
        client_made = transport == "http" and n % 4 == 0
        made.append(Game(n, transport, TASK_IDS[n % 3], n // 3, f"lb-{n}" if client_made else None))
    return made


def expected(game: Game) -> Episode:
    return start(BugTriageEnv(), HeuristicPolicy(), game.task_id, game.seed).play()


def test_the_shipped_config_is_valid() -> None:
    binary = haproxy_binary()
    if binary is None:
        pytest.skip(HAPROXY_HINT)
    env = {**os.environ, "LB_BIND": "127.0.0.1:1", "STATS_BIND": "127.0.0.1:2"}
    checked = subprocess.run([binary, "-c", "-f", str(HAPROXY_CONFIG)], env=env, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_episode_call_without_its_id_is_refused_by_the_balancer(replicas: ReplicaSet) -> None:
    """A lone server may serve an id-less call; behind the balancer it could reach someone else's episode."""
    with httpx.Client(base_url=replicas.url) as http:
        assert http.post("/reset", json={"task_id": "bug_triage_easy", "seed": 1}).status_code == 200
        for reply in (
            http.post("/step", json={"action": {"action_type": "next_ticket"}}),
            http.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": None}),
            http.get("/state"),
            http.get("/grader"),
        ):
            assert reply.status_code == 409
            assert reply.json()["error"]["type"] == "episode_id_required"
            assert "episode_id" in reply.json()["error"]["message"]
        assert http.get("/tasks").status_code == 200, "calls outside an episode are served by any replica"


def test_every_call_of_an_http_episode_reaches_its_replica(replicas: ReplicaSet) -> None:
    """Server-made and client-made ids alike: the reset's replica answers every later call, whatever the route."""
    with httpx.Client(base_url=replicas.url) as http:
        for body in (
            {"task_id": "bug_triage_easy", "seed": 2},
            {"task_id": "bug_triage_easy", "episode_id": "route-me"},
        ):
            reset = http.post("/reset", json=body)
            episode_id, home = reset.json()["episode_id"], reset.headers["x-served-by"]
            assert reset.headers["x-episode-id"] == episode_id
            secret = {EPISODE_SECRET_HEADER: reset.json()["episode_secret"]}
            for _ in range(6):
                step = http.post(
                    "/step", json={"action": {"action_type": "next_ticket"}, "episode_id": episode_id}, headers=secret
                )
                state = http.get("/state", params={"episode_id": episode_id}, headers=secret)
                assert (step.status_code, state.status_code) == (200, 200)
                assert step.headers["x-served-by"] == state.headers["x-served-by"] == home


def test_64_episodes_play_as_in_process_and_a_stopped_replica_loses_only_its_own(replicas: ReplicaSet) -> None:
    played = games()
    with ThreadPoolExecutor(max_workers=EPISODES) as pool:
        list(pool.map(lambda g: g.open(replicas.url), played))
    try:
        homes = {(g.transport, g.replica) for g in played}
        assert homes == {(t, r) for t in ("http", "websocket") for r in replicas.slot_names()}, (
            "every replica holds episodes of both transports"
        )
        victim = replicas.slot_names()[1]
        replicas.kill(1)
        with ThreadPoolExecutor(max_workers=EPISODES) as pool:
            outcomes = list(pool.map(finish, played))
    finally:
        for g in played:
            if isinstance(g.env, HttpEnvClient | WebSocketEnv):
                g.env.close()
    lost = [g for g in played if g.replica == victim]
    assert 0 < len(lost) < EPISODES
    for game, (outcome, seconds) in zip(played, outcomes, strict=True):
        if game.replica == victim:
            assert isinstance(outcome, EpisodeLostError), (game, outcome)
            assert outcome.episode_id == game.held_id() and game.held_id() in str(outcome) and "reset()" in str(outcome)
            assert seconds < AT_ONCE_S, f"{game.transport} client of the stopped replica waited {seconds:.1f} s"
        else:
            assert isinstance(outcome, Episode), (game, outcome)
            assert outcome.done
            reference = expected(game)
            assert transcript(outcome) == transcript(reference), game
            assert outcome.agent_grade == reference.agent_grade
    survivors = [g for g in played if g.replica != victim]
    assert {g.transport for g in survivors} == {"http", "websocket"}
    with closing(HttpEnvClient(replicas.url)) as fresh:
        after = start(fresh, HeuristicPolicy(), "bug_triage_easy", 3).play()
        assert served_by(fresh) != victim
    assert transcript(after) == transcript(start(BugTriageEnv(), HeuristicPolicy(), "bug_triage_easy", 3).play())


def finish(game: Game) -> tuple[Episode | Exception, float]:
    """Play the rest of `game`'s episode: the episode, or the error it ended with; and the seconds it took."""
    assert game.episode is not None
    started = time.monotonic()
    outcome: Any
    try:
        outcome = game.episode.play()
    except Exception as exc:  # the test inspects what each client raised
        outcome = exc
    return outcome, time.monotonic() - started
