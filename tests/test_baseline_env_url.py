"""`--env-url`: the same loop over the real server's HTTP contract scores exactly what in-process runs score.

The command line runs in this process (`run_main`); the server is the session's shared real one.
"""

from __future__ import annotations

import io
import json
from contextlib import closing
from pathlib import Path

import pytest
from mock_openai import MockOpenAI, llm_env, run_main
from server_helpers import TRAINER_TOKEN, LiveServer, free_port

from openenv_bug_triage.agents.cli import main
from openenv_bug_triage.agents.errors import EnvServerError
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.policies import ReplayPolicy, oracle_actions

TRAINER_ENV = {"BUG_TRIAGE_TRAINER_TOKEN": TRAINER_TOKEN}
"""The shared server runs with this trainer token; a baseline run given it records the full grade."""


@pytest.fixture(scope="module")
def server_url(server: LiveServer) -> str:
    """The URL of the session's shared real server (uvicorn on a free loopback port)."""
    return server.url


def in_process_artifact(tmp_path: Path, *args: str) -> tuple[dict, str]:
    out, output = io.StringIO(), tmp_path / "in_process.json"
    assert main([*args, "--output", str(output)], {}, out, io.StringIO()) == 0
    return json.loads(output.read_text()), out.getvalue()


@pytest.mark.parametrize("agent", ["heuristic", "random"])
def test_env_url_scores_exactly_what_in_process_scores(agent: str, server_url: str, tmp_path: Path) -> None:
    expected, expected_stdout = in_process_artifact(tmp_path, "--agent", agent)
    output = tmp_path / "over_http.json"
    run = run_main("--agent", agent, "--env-url", server_url, "--output", str(output), env=TRAINER_ENV)
    assert run.code == 0, run.stderr
    artifact = json.loads(output.read_text())
    assert artifact["env"] == server_url and expected["env"] == "in-process"
    assert artifact["tasks"] == expected["tasks"]  # the full grade: the run had the server's trainer token
    assert artifact["mean_score"] == expected["mean_score"]
    assert run.stdout == expected_stdout


def test_llm_agent_over_env_url(server_url: str, tmp_path: Path) -> None:
    plan = oracle_actions("bug_triage_easy")
    output = tmp_path / "llm.json"
    with MockOpenAI([json.dumps(a) for a in plan]) as mock:
        run = run_main("--tasks", "easy", "--env-url", server_url, "--output", str(output), env=llm_env(mock))
    assert run.code == 0, run.stderr
    env = BugTriageEnv()
    env.reset(task_id="bug_triage_easy", seed=42)
    for action in plan:
        env.step(action)
    task = json.loads(output.read_text())["tasks"]["bug_triage_easy"]
    assert task["score"] == env.grade().score and task["counts"]["steps"] == len(plan)


def test_http_client_follows_the_contract(server_url: str) -> None:
    client = HttpEnvClient(server_url)
    try:
        with pytest.raises(EnvServerError, match="call reset"):
            client.step({"action_type": "next_ticket"})
        obs = client.reset(task_id="bug_triage_easy", seed=42)
        assert obs == BugTriageEnv().reset(task_id="bug_triage_easy", seed=42)
        assert client.episode_id
        with pytest.raises(EnvServerError, match="HTTP 409"):
            client.grade()
        obs, reward, done, info = client.step({"action_type": "close", "reason": "nonsense"})
        assert not done and info["action_valid"] is False and info["error"] and reward.value < 0
        assert client.state()["step_count"] == 1
        for action in oracle_actions("bug_triage_easy"):
            obs, reward, done, info = client.step(action)
        assert done and client.grade().model_dump() == info["grader"]  # no token: the agent's copy
    finally:
        client.close()


def test_http_client_with_the_trainer_token_gets_the_full_grade(server_url: str) -> None:
    env = BugTriageEnv()
    start(env, ReplayPolicy(), "bug_triage_medium", 3).play()  # next_ticket until the budget is spent
    for name, token in (("trainer", TRAINER_TOKEN), ("agent", None), ("wrong", "not-the-token-at-all")):
        with closing(HttpEnvClient(server_url, trainer_token=token)) as client:
            start(client, ReplayPolicy(), "bug_triage_medium", 3).play()
            grade = client.grade()
        if name == "trainer":
            assert grade == env.grade() and any("expected" in m for m in grade.mistakes)
        else:
            assert grade == env.grade(reveal=False) and not any("expected" in m for m in grade.mistakes)


def test_unreachable_env_server_stops_the_run_with_exit_3(tmp_path: Path) -> None:
    output = tmp_path / "s.json"
    url = f"http://127.0.0.1:{free_port()}"
    run = run_main("--agent", "heuristic", "--env-url", url, "--output", str(output))
    assert run.code == 3
    assert f"cannot reach the environment server at {url}" in run.stderr
    assert not output.exists()  # only a complete run writes the stable path
    (run_file,) = (tmp_path / "runs").iterdir()
    artifact = json.loads(run_file.read_text())
    assert artifact["completed"] is False and artifact["mean_score"] is None
    assert run.events("END") == ["[END] success=false steps=0 score=0.000 rewards="]
