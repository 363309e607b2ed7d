"""End to end: the baseline script as a subprocess, its LLM agent talking to a scripted server on loopback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mock_openai import Fault, MockOpenAI, ScriptRun, llm_env, run_baseline

from openenv_bug_triage.actions import ACTION_ADAPTER
from openenv_bug_triage.agents.prompt import (
    MAX_PROMPT_CHARS,
    QUEUE_CLOSE,
    QUEUE_OPEN,
    TICKET_CLOSE,
    TICKET_OPEN,
    load_template,
    prompt_chars,
)
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.policies import oracle_actions

START = re.compile(r"^\[START\] task=(\S+) env=bug-triage-openenv model=(\S+)$")
STEP = re.compile(r"^\[STEP\] step=(\d+) action=(\{.*\}) reward=(-?\d+\.\d\d) done=(true|false) error=(.+)$")
END = re.compile(
    r"^\[END\] success=(true|false) steps=(\d+) score=(\d\.\d{3}) rewards=((?:-?\d+\.\d\d)(?:,-?\d+\.\d\d)*)?$"
)
NEXT = {"action_type": "next_ticket"}


def dumps(action: dict[str, Any]) -> str:
    return json.dumps(action)


def step_actions(run: ScriptRun) -> list[dict[str, Any]]:
    actions = []
    for line in run.events("STEP"):
        match = STEP.match(line)
        assert match, line
        actions.append(json.loads(match.group(2)))
    return actions


def replay(task_id: str, actions: list[dict[str, Any]]) -> tuple[float, list[float]]:
    """Score and rewards of playing `actions` in-process: what the script should have reported."""
    env = BugTriageEnv()
    env.reset(task_id=task_id, seed=42)
    rewards = [env.step(a)[1].value for a in actions]
    return env.grade().score, rewards


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScriptRun, MockOpenAI, dict[str, Any], list[dict]]:
    """One easy episode whose replies cover every kind of reply, good and bad."""
    plan = oracle_actions("bug_triage_easy")
    o = [dumps(a) for a in plan]
    script = [
        f"```json\n{o[0]}\n```",  # step 1: code-fenced JSON, accepted
        f"Sure! Here is the action: {o[1]}",  # step 2: prose around JSON, refused ...
        f"  {o[1]}  \n",  # ... re-asked, accepted
        dumps(
            {"action_type": "classify", "ticket_id": "BT-101", "priority": "p1", "component": "web-ui"}
        ),  # step 3: missing
        dumps(plan[2] | {"confidence": 0.9}),  # ... extra field: refused again -> fallback
        dumps({"action_type": "assign", "ticket_id": "BT-101", "team": 7}),  # step 4: number for a string ...
        o[2],  # ... re-asked, accepted
        f"[{o[3]}]",  # step 5: a JSON array ...
        "I would escalate this ticket, it looks like an outage.",  # ... plain text -> fallback
        dumps(
            {"action_type": "close", "ticket_id": "BT-104", "reason": "invalid", "close_all_tickets": True}
        ),  # step 6
        dumps({"action_type": "close", "ticket_id": "BT-104", "reason": "invalid"})
        + "\n"
        + o[3],  # two objects -> fallback
        *o[3:],
    ]
    output = tmp_path_factory.mktemp("llm") / "scores.json"
    with MockOpenAI(script) as mock:
        run = run_baseline("--tasks", "easy", "--output", str(output), env=llm_env(mock))
    artifact = json.loads(output.read_text())
    expected = [plan[0], plan[1], NEXT, plan[2], NEXT, NEXT, *plan[3:]]
    return run, mock, artifact, expected


def test_scripted_run_exits_0_and_takes_only_validated_actions(scripted: tuple) -> None:
    run, mock, _, expected = scripted
    assert run.code == 0, run.stderr
    actions = step_actions(run)
    assert actions == expected
    for action in actions:  # every action the environment got is exactly a schema object
        assert ACTION_ADAPTER.validate_python(action).model_dump(exclude_none=True) == action
    assert len(mock.requests) == 1 + 2 + 2 + 2 + 2 + 2 + len(expected) - 6


def test_scripted_run_counts(scripted: tuple) -> None:
    _, _, artifact, expected = scripted
    counts = artifact["tasks"]["bug_triage_easy"]["counts"]
    assert counts == {
        "steps": len(expected),
        "invalid_actions": 0,
        "rejected_replies": 8,
        "retries": 5,
        "fallbacks": 3,
        "api_calls": 1 + 2 * 5 + len(expected) - 6,
        "api_retries": 0,
    }


def test_scripted_run_artifact_matches_an_in_process_replay(scripted: tuple) -> None:
    run, _, artifact, expected = scripted
    score, rewards = replay("bug_triage_easy", expected)
    task = artifact["tasks"]["bug_triage_easy"]
    assert task["score"] == score and artifact["mean_score"] == score
    assert task["completed"] is True and task["error"] is None
    assert set(task["subscores"]) >= {"tickets", "duplicates", "request_info", "escalation", "sla", "penalty"}
    assert isinstance(task["mistakes"], list)
    assert artifact["model"] == "mock-model" and artifact["agent"] == "llm" and artifact["seed"] == 42
    assert artifact["prompt_sha256"] == load_template().sha256
    assert artifact["version"] and artifact["completed"] is True
    end = END.match(run.events("END")[0])
    assert end and end.group(3) == f"{score:.3f}"
    assert end.group(4) == ",".join(f"{r:.2f}".replace("-0.00", "0.00") for r in rewards)


def test_scripted_run_event_lines(scripted: tuple) -> None:
    run, _, artifact, expected = scripted
    lines = run.stdout.splitlines()
    assert lines == [line for line in lines if line.startswith(("[START] ", "[STEP] ", "[END] "))]
    assert START.match(lines[0]) and START.match(lines[0]).groups() == ("bug_triage_easy", "mock-model")
    steps = [STEP.match(line) for line in lines[1:-1]]
    assert all(steps) and [int(m.group(1)) for m in steps] == list(range(1, len(expected) + 1))
    assert [m.group(4) for m in steps] == ["false"] * (len(expected) - 1) + ["true"]
    assert all(m.group(5) == "null" for m in steps)
    end = END.match(lines[-1])
    assert end and end.group(1) == str(artifact["tasks"]["bug_triage_easy"]["passed"]).lower()
    assert int(end.group(2)) == len(expected)


def test_scripted_run_requests_are_deterministic_and_bounded(scripted: tuple) -> None:
    _, mock, _, _ = scripted
    assert {(r["model"], r["temperature"], r["seed"]) for r in mock.requests} == {("mock-model", 0, 42)}
    assert max(prompt_chars(r["messages"]) for r in mock.requests) < MAX_PROMPT_CHARS
    for request in mock.requests:  # each block opens and closes exactly once in what the model saw
        user = request["messages"][1]["content"]
        assert [user.count(d) for d in (QUEUE_OPEN, QUEUE_CLOSE, TICKET_OPEN, TICKET_CLOSE)] == [1, 1, 1, 1]
    reasks = [r["messages"][-1]["content"] for r in mock.requests if len(r["messages"]) == 4]
    assert len(reasks) == 5
    assert "text before the JSON object" in reasks[0]
    assert "field `severity` is required" in reasks[1]
    assert "field `team`: Input should be a valid string" in reasks[2]
    assert "JSON array, not an object" in reasks[3]
    assert "`close_all_tickets` is not allowed" in reasks[4]


def test_transient_endpoint_failures_are_retried_and_counted(tmp_path: Path) -> None:
    plan = [dumps(a) for a in oracle_actions("bug_triage_easy")]
    script = [Fault(500), Fault(429, retry_after="0"), Fault(502, delay=1.0), *plan]
    output = tmp_path / "scores.json"
    with MockOpenAI(script) as mock:
        run = run_baseline(
            "--tasks", "easy", "--output", str(output), "--retry-backoff", "0", "--request-timeout", "0.3",
            env=llm_env(mock),
        )  # fmt: skip
    assert run.code == 0, run.stderr
    counts = json.loads(output.read_text())["tasks"]["bug_triage_easy"]["counts"]
    assert (counts["api_retries"], counts["api_calls"], counts["steps"]) == (3, len(plan) + 3, len(plan))


def test_endpoint_down_stops_the_run_and_writes_what_it_has(tmp_path: Path) -> None:
    plan = [dumps(a) for a in oracle_actions("bug_triage_easy")]
    output = tmp_path / "scores.json"
    with MockOpenAI(plan[:2], default=Fault(503)) as mock:
        run = run_baseline("--output", str(output), "--retry-backoff", "0", "--api-retries", "2", env=llm_env(mock))
    assert run.code == 3
    assert "stopped early" in run.stderr and "not answering: 3 attempts failed" in run.stderr
    assert "partial results written to" in run.stderr
    assert not output.exists()  # only a complete run writes the stable path
    (run_file,) = (tmp_path / "runs").iterdir()
    artifact = json.loads(run_file.read_text())
    assert artifact["completed"] is False and artifact["mean_score"] is None
    assert "not answering" in artifact["error"]
    assert list(artifact["tasks"]) == ["bug_triage_easy"]  # the run stopped at the first task
    task = artifact["tasks"]["bug_triage_easy"]
    assert task["completed"] is False and task["score"] is None and task["counts"]["steps"] == 2
    assert len(run.events("STEP")) == 2
    assert run.events("END") == [run.events("END")[0]] and run.events("END")[0].startswith(
        "[END] success=false steps=2 "
    )


def test_missing_key_exits_2_naming_the_variables(tmp_path: Path) -> None:
    run = run_baseline("--model", "m", "--output", str(tmp_path / "x.json"))
    assert run.code == 2
    for word in ("OPENAI_API_KEY", "HF_TOKEN", "--agent heuristic"):
        assert word in run.stderr
    assert run.stdout == "" and not (tmp_path / "x.json").exists()


def test_missing_model_exits_2(tmp_path: Path) -> None:
    run = run_baseline("--output", str(tmp_path / "x.json"), env={"OPENAI_API_KEY": "sk-test"})
    assert run.code == 2 and "--model" in run.stderr and "MODEL_NAME" in run.stderr
