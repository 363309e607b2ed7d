"""`--trajectory PATH`: one JSON line per step and per episode end, for every agent kind, the same bytes every run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from mock_openai import MockOpenAI, llm_env, run_main
from server_helpers import LiveServer, truth_names_in

from openenv_bug_triage.agents.cli import main
from openenv_bug_triage.agents.trajectory import EndRecord, StepRecord, read_trajectory
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.tasks import TASK_IDS


def run_cli(tmp_path: Path, name: str, *args: str) -> tuple[Path, dict]:
    """Run the baseline in-process; returns the trajectory path and the scores artifact."""
    trajectory, output = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json"
    code = main(
        [*args, "--trajectory", str(trajectory), "--output", str(output)],
        environ={},
        out=io.StringIO(),
        err=io.StringIO(),
    )
    assert code == 0
    return trajectory, json.loads(output.read_text())


def episodes(records: list[StepRecord | EndRecord]) -> dict[str, tuple[list[StepRecord], EndRecord]]:
    found: dict[str, tuple[list[StepRecord], EndRecord]] = {}
    steps: list[StepRecord] = []
    for record in records:
        if isinstance(record, StepRecord):
            steps.append(record)
        else:
            found[record.task_id] = (steps, record)
            steps = []
    assert not steps, "steps after the last end record"
    return found


@pytest.mark.parametrize("agent", ["heuristic", "random"])
def test_policy_trajectory_matches_the_artifact_and_repeats_byte_for_byte(tmp_path: Path, agent: str) -> None:
    first, artifact = run_cli(tmp_path, "first", "--agent", agent)
    second, _ = run_cli(tmp_path, "second", "--agent", agent)
    assert first.read_bytes() == second.read_bytes()
    by_task = episodes(read_trajectory(first))
    assert list(by_task) == list(TASK_IDS)
    for task_id, (steps, end) in by_task.items():
        scores = artifact["tasks"][task_id]
        assert [s.step for s in steps] == list(range(1, scores["counts"]["steps"] + 1))
        assert end.steps == len(steps) and end.grade is not None and end.error is None
        assert end.grade.score == scores["score"] and end.grade.subscores == scores["subscores"]
        assert end.total_reward == scores["total_reward"]
        assert {s.agent for s in steps} == {agent} and {s.seed for s in steps} == {42}
        assert all(s.replies == [] for s in steps)
        assert steps[-1].done and not any(s.done for s in steps[:-1])
        assert steps[0].seen.steps_used == 0 and steps[0].seen.last_message is None
        running = 0.0
        for s in steps:  # the environment's clamped reward, and the components it is made of
            running += s.reward
            assert s.cumulative == pytest.approx(running, abs=1e-6)
            assert s.action_valid == (s.error is None)
    assert truth_names_in(first.read_text()) == []


def test_trajectory_keeps_the_agent_safe_grade(tmp_path: Path) -> None:
    path, artifact = run_cli(tmp_path, "h", "--agent", "heuristic", "--tasks", "easy")
    (steps, end) = episodes(read_trajectory(path))["bug_triage_easy"]
    env = BugTriageEnv()
    env.reset(task_id="bug_triage_easy", seed=42)
    for s in steps:
        info = env.step(s.action)[3]
    assert end.grade is not None and end.grade.model_dump() == info["grader"]
    assert artifact["tasks"]["bug_triage_easy"]["mistakes"] != end.grade.mistakes  # the artifact's name true labels


@pytest.mark.parametrize("agent", ["heuristic", "random"])
def test_trajectory_over_http_is_the_same_as_in_process(tmp_path: Path, agent: str, server: LiveServer) -> None:
    local, _ = run_cli(tmp_path, "local", "--agent", agent, "--tasks", "easy,medium")
    remote, _ = run_cli(tmp_path, "remote", "--agent", agent, "--tasks", "easy,medium", "--env-url", server.url)
    assert remote.read_bytes() == local.read_bytes()


def test_llm_trajectory_records_every_raw_reply(tmp_path: Path) -> None:
    plan = oracle_actions("bug_triage_easy")
    prose = f"Here you go: {json.dumps(plan[0])}"
    script = [prose, json.dumps(plan[0]), *(json.dumps(a) for a in plan[1:])]
    trajectory, output = tmp_path / "llm.jsonl", tmp_path / "llm.json"
    with MockOpenAI(script) as mock:
        run = run_main("--tasks", "easy", "--trajectory", str(trajectory), "--output", str(output), env=llm_env(mock))
    assert run.code == 0, run.stderr
    steps, end = episodes(read_trajectory(trajectory))["bug_triage_easy"]
    assert steps[0].replies == [prose, json.dumps(plan[0])]  # the rejected reply, then the accepted one
    assert [s.replies for s in steps[1:]] == [[json.dumps(a)] for a in plan[1:]]
    assert [s.action for s in steps] == plan
    assert {s.agent for s in steps} == {"llm"} and {s.model for s in steps} == {"mock-model"}
    assert end.grade is not None and end.grade.score == 1.0 == json.loads(output.read_text())["mean_score"]


def test_read_trajectory_names_the_bad_line(tmp_path: Path) -> None:
    path, _ = run_cli(tmp_path, "h", "--agent", "heuristic", "--tasks", "easy")
    text = path.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) // 2])
    lines = text[: len(text) // 2].count("\n") + 1
    with pytest.raises(ValueError, match=f"line {lines}: not a trajectory record"):
        read_trajectory(cut)


def test_an_unwritable_trajectory_path_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    err = io.StringIO()
    argv = ["--agent", "heuristic", "--trajectory", str(blocker / "t.jsonl"), "--output", str(tmp_path / "s.json")]
    assert main(argv, environ={}, out=io.StringIO(), err=err) == 2
    assert f"error: cannot write the trajectory {blocker / 't.jsonl'}" in err.getvalue()
    assert not (tmp_path / "s.json").exists()
