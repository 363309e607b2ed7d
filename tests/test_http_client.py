"""`HttpEnvClient` on a given `httpx.Client`, its raw access, and the contract checks it makes of each reply."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import closing
from typing import Any

import httpx
import pytest
from server_helpers import LiveServer

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.contract import EPISODE_SECRET_HEADER
from openenv_bug_triage.episode import start
from openenv_bug_triage.errors import EnvServerError, EpisodeLostError
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import HeuristicPolicy

NEXT = {"action_type": "next_ticket"}


def test_it_plays_on_a_given_client_keeps_the_raw_reply_and_leaves_the_client_open(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        with closing(HttpEnvClient(http=http)) as env:
            assert env.base_url == server.url
            episode = start(env, HeuristicPolicy(), "bug_triage_easy", 7).play()
            last = env.last_response
        assert http.get("/health").status_code == 200, "closing the env client left `http` open"
    assert last is not None and last.json()["done"] is True
    assert last.json()["info"]["grader"] == episode.agent_grade.model_dump()
    assert episode.agent_grade == start(BugTriageEnv(), HeuristicPolicy(), "bug_triage_easy", 7).play().agent_grade


def test_raw_get_and_post_answer_json_and_raise_on_4xx(server: LiveServer) -> None:
    with closing(HttpEnvClient(server.url)) as env:
        assert env.get("/health") == {"status": "healthy"}
        assert env.post("/reset", {"task_id": "bug_triage_easy", "seed": 1})["episode_id"]
        with pytest.raises(EnvServerError, match="HTTP 404"):
            env.get("/state", episode_id="never-made")
        assert env.last_response is not None and env.last_response.status_code == 404


def test_it_sends_its_episodes_secret_and_another_client_cannot_reach_the_episode(server: LiveServer) -> None:
    with closing(HttpEnvClient(server.url)) as mine, closing(HttpEnvClient(server.url)) as other:
        mine.reset(task_id="bug_triage_easy", seed=3)
        other.reset(task_id="bug_triage_easy", seed=3)
        assert mine.episode_secret is not None and mine.episode_secret != other.episode_secret
        other.episode_id = mine.episode_id  # knowing the id is not enough
        for call in (lambda: other.step(NEXT), other.state, other.grade):
            with pytest.raises(EnvServerError, match=r"HTTP 403.*episode_secret_wrong"):
                call()
        with pytest.raises(EnvServerError, match="HTTP 403"):
            other.reset(episode_id=mine.episode_id)
        mine.step(NEXT)
        assert mine.state()["step_count"] == 1
        mine.reset(episode_id=mine.episode_id, seed=4)  # its own id, with its own secret: restarts it
        assert mine.state()["step_count"] == 0 and mine.state()["seed"] == 4


def test_a_reset_names_its_episode_in_a_header_and_an_episode_the_server_lost_is_an_episode_lost_error(
    server: LiveServer,
) -> None:
    """A load balancer learns where an episode lives from `X-Episode-Id`; a call on an episode the server
    no longer holds (its replica stopped) raises `EpisodeLostError` naming it; other 404s stay plain."""
    with closing(HttpEnvClient(server.url)) as env:
        env.reset("bug_triage_easy", 1, episode_id="lost-episode-test")
        assert env.last_response is not None and env.last_response.headers["x-episode-id"] == "lost-episode-test"
        env.episode_id = "held-by-a-stopped-replica"
        for call in (lambda: env.step(NEXT), env.state, env.grade):
            with pytest.raises(EpisodeLostError, match="start a new episode with reset") as lost:
                call()
            assert lost.value.episode_id == "held-by-a-stopped-replica" and "held-by-a-stopped-replica" in str(
                lost.value
            )
        with pytest.raises(EnvServerError, match="HTTP 404") as other:
            env.get("/state", episode_id="someone-elses")
        assert not isinstance(other.value, EpisodeLostError)


def test_it_needs_either_a_url_or_a_client() -> None:
    with pytest.raises(TypeError, match="base_url or http"):
        HttpEnvClient()
    with httpx.Client() as http, pytest.raises(TypeError, match="not both"):
        HttpEnvClient("http://127.0.0.1:1", http=http)


def fake_server(step_reply: Callable[[dict[str, Any]], dict[str, Any]]) -> HttpEnvClient:
    """A client whose server answers `/reset` like ours and `/step` with `step_reply(the real reply)`."""
    env = BugTriageEnv()

    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if request.url.path == "/reset":
            obs = env.reset(task_id=body["task_id"], seed=body["seed"])
            reply = {"observation": obs.model_dump(mode="json"), "episode_id": "e", "episode_secret": "s"}
            return httpx.Response(200, json=reply)
        assert request.headers[EPISODE_SECRET_HEADER] == "s", "the client must send the reset's secret"
        obs, reward, done, info = env.step(body["action"])
        real = {"observation": obs.model_dump(mode="json"), "reward": reward.value, "done": done, "info": info}
        return httpx.Response(200, json=step_reply(real))

    return HttpEnvClient("http://fake", transport=httpx.MockTransport(handle))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: {**r, "reward": r["reward"] + 1}, "is not its info.reward"),
        (lambda r: {**r, "done": True}, "without `info.grader`"),
        (lambda r: {k: v for k, v in r.items() if k != "info"}, "does not follow the contract"),
        (lambda r: {**r, "done": True, "info": None}, "does not follow the contract"),
        (lambda r: {**r, "info": ["not", "an", "object"]}, "does not follow the contract"),
    ],
)
def test_a_step_reply_that_breaks_the_contract_is_an_env_server_error(
    change: Callable[[dict[str, Any]], dict[str, Any]], message: str
) -> None:
    with closing(fake_server(change)) as env:
        env.reset(task_id="bug_triage_easy", seed=1)
        with pytest.raises(EnvServerError, match=message):
            env.step(NEXT)


def test_a_faithful_fake_server_passes_the_same_checks() -> None:
    with closing(fake_server(lambda r: r)) as env:
        episode = start(env, HeuristicPolicy(), "bug_triage_easy", 1).play()
    assert episode.agent_grade == start(BugTriageEnv(), HeuristicPolicy(), "bug_triage_easy", 1).play().agent_grade
