"""The baseline script with the reference agents: reproducible artifacts, the table, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from mock_openai import ScriptRun, run_baseline
from server_helpers import free_port

from openenv_bug_triage.agents.artifact import write_run_artifact
from openenv_bug_triage.agents.cli import HF_ROUTER_URL, SetupError, build_parser, chat_settings, main
from openenv_bug_triage.agents.runner import Progress
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy, run_episode
from openenv_bug_triage.tasks import TASK_IDS

TIMESTAMP_FIELD = "created_at"


def twice(tmp_path_factory: pytest.TempPathFactory, agent: str, *extra: str) -> list[tuple[ScriptRun, str]]:
    runs = []
    for i in range(2):
        output = tmp_path_factory.mktemp(f"{agent}{i}") / "baseline_scores.json"
        runs.append(
            (run_baseline("--agent", agent, "--output", str(output), *(extra if i else ())), output.read_text())
        )
    return runs


@pytest.fixture(scope="module")
def heuristic_runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[ScriptRun, str]]:
    return twice(tmp_path_factory, "heuristic", "--min-score", "0.1")


@pytest.fixture(scope="module")
def random_runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[ScriptRun, str]]:
    return twice(tmp_path_factory, "random")


def without_timestamp(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.strip().startswith(f'"{TIMESTAMP_FIELD}"')]
    return "\n".join(lines)


@pytest.mark.parametrize("runs", ["heuristic_runs", "random_runs"])
def test_reference_agents_write_the_same_artifact_every_run(runs: str, request: pytest.FixtureRequest) -> None:
    (first, first_text), (second, second_text) = request.getfixturevalue(runs)
    assert first.code == 0 and second.code == 0, first.stderr + second.stderr
    assert first_text != without_timestamp(first_text)  # the timestamp line exists and is the only one dropped
    assert without_timestamp(first_text) == without_timestamp(second_text)
    assert first.stdout == second.stdout
    artifact = json.loads(first_text)
    assert set(artifact) == {
        "agent", "model", "seed", "version", "env", "prompt_sha256", "handbook_sha256", "max_attempts",
        "temperature", "completed", "error", "mean_score", "tasks", TIMESTAMP_FIELD,
    }  # fmt: skip


@pytest.mark.parametrize(("runs", "policy"), [("heuristic_runs", HeuristicPolicy), ("random_runs", RandomPolicy)])
def test_artifact_scores_are_the_in_process_scores(runs: str, policy: type, request: pytest.FixtureRequest) -> None:
    (_, text), _ = request.getfixturevalue(runs)
    artifact = json.loads(text)
    assert list(artifact["tasks"]) == list(TASK_IDS)
    scores = []
    for task_id in TASK_IDS:
        expected = run_episode(policy(), task_id, 42)
        task: dict[str, Any] = artifact["tasks"][task_id]
        assert task["score"] == expected.grade.score
        assert task["subscores"] == expected.grade.subscores and task["mistakes"] == expected.grade.mistakes
        assert task["counts"]["steps"] == expected.steps
        assert task["counts"]["invalid_actions"] == expected.invalid_actions
        assert task["counts"]["fallbacks"] == task["counts"]["retries"] == 0
        scores.append(expected.grade.score)
    assert artifact["mean_score"] == round(sum(scores) / len(scores), 6)
    assert artifact["seed"] == 42 and artifact["prompt_sha256"] is None


def test_stdout_holds_only_event_lines_and_stderr_the_table(heuristic_runs: list) -> None:
    (run, text), _ = heuristic_runs
    kinds = [line.split(" ", 1)[0] for line in run.stdout.splitlines()]
    assert set(kinds) == {"[START]", "[STEP]", "[END]"}
    assert kinds.count("[START]") == kinds.count("[END]") == len(TASK_IDS)
    assert "\r" not in run.stderr  # no progress bar when stderr is not a terminal
    table = run.stderr.splitlines()
    assert table[0].split() == ["task", "score", "passed", "steps", "invalid", "fallbacks", "seconds"]
    mean = json.loads(text)["mean_score"]
    assert any(line.split() == ["mean", f"{mean:.3f}"] for line in table)
    for task_id in TASK_IDS:
        assert any(line.startswith(task_id) for line in table)


def test_min_score_above_the_mean_exits_1(tmp_path: Path) -> None:
    run = run_baseline(
        "--agent", "heuristic", "--tasks", "easy", "--min-score", "0.99", "--output", str(tmp_path / "s.json")
    )
    assert run.code == 1
    assert "below --min-score 0.990" in run.stderr
    assert json.loads((tmp_path / "s.json").read_text())["completed"] is True


def test_usage_error_exits_2_from_the_script(tmp_path: Path) -> None:
    run = run_baseline("--agent", "heuristic", "--tasks", "impossible", "--output", str(tmp_path / "s.json"))
    assert run.code == 2 and "unknown task 'impossible'" in run.stderr
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "oracle"], "invalid choice"),
        (["--tasks", "easy,nope"], "unknown task 'nope'"),
        (["--seed", "-1"], "outside"),
        (["--seed", "x"], "not a valid int"),
        (["--max-attempts", "0"], "outside"),
        (["--min-score", "1.5"], "outside"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--agent", "heuristic", *args], environ={})
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_tasks_accept_short_names_commas_and_spaces_once_each(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    output = tmp_path / "s.json"
    code = main(["--agent", "heuristic", "--tasks", "medium,easy", "easy", "--output", str(output)], {}, out, err)
    assert code == 0
    assert list(json.loads(output.read_text())["tasks"]) == ["bug_triage_medium", "bug_triage_easy"]
    assert out.getvalue().count("[START] task=bug_triage_easy") == 1  # each task runs once


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal() -> None:
    obs = BugTriageEnv().reset(task_id="bug_triage_easy", seed=42)
    terminal, pipe = FakeTerminal(), io.StringIO()
    for stream in (terminal, pipe):
        bar = Progress(stream)
        bar.update("bug_triage_easy", obs)
        bar.clear()
    assert terminal.getvalue().startswith("\rbug_triage_easy") and "0/21 steps" in terminal.getvalue()
    assert pipe.getvalue() == ""


@pytest.mark.parametrize(
    ("environ", "key", "base_url"),
    [
        ({"OPENAI_API_KEY": "sk-1"}, "sk-1", None),
        ({"HF_TOKEN": "hf-1"}, "hf-1", HF_ROUTER_URL),
        ({"HF_TOKEN": "hf-1", "API_BASE_URL": "http://vllm:8000/v1"}, "hf-1", "http://vllm:8000/v1"),
        ({"OPENAI_API_KEY": "sk-1", "HF_TOKEN": "hf-1", "OPENAI_BASE_URL": "http://a/v1"}, "sk-1", "http://a/v1"),
    ],
)
def test_chat_settings_from_the_environment(environ: dict, key: str, base_url: str | None) -> None:
    args = build_parser().parse_args(["--model", "m", "--seed", "7"])
    settings = chat_settings(args, environ)
    assert (settings.api_key, settings.base_url, settings.model) == (key, base_url, "m")
    assert (settings.seed, settings.temperature) == (7, 0.0)


def test_model_name_comes_from_model_name_and_an_empty_key_is_missing() -> None:
    args = build_parser().parse_args([])
    assert chat_settings(args, {"MODEL_NAME": "env-model", "OPENAI_API_KEY": "k"}).model == "env-model"
    with pytest.raises(SetupError, match="OPENAI_API_KEY"):
        chat_settings(args, {"MODEL_NAME": "m", "OPENAI_API_KEY": ""})


def test_generated_tasks_run_on_the_split_the_seed_names(tmp_path: Path) -> None:
    output = tmp_path / "s.json"
    args = ["--agent", "heuristic", "--tasks", "generated_hard", "--split", "test", "--seed", "5"]
    code = main([*args, "--output", str(output)], {}, io.StringIO(), io.StringIO())
    assert code == 0
    score = json.loads(output.read_text())["tasks"]["generated_hard"]["score"]
    assert score == run_episode(HeuristicPolicy(), "generated_hard", 5, "test").grade.score
    assert score != run_episode(HeuristicPolicy(), "generated_hard", 5, "train").grade.score


def test_each_run_keeps_its_own_artifact_and_a_failed_run_leaves_the_last_good_one(tmp_path: Path) -> None:
    output = tmp_path / "baseline_scores.json"
    ok = ["--agent", "heuristic", "--tasks", "easy", "--output", str(output)]
    assert main(ok, {}, io.StringIO(), io.StringIO()) == 0
    good = output.read_text()
    (first,) = (tmp_path / "runs").iterdir()
    assert first.read_text() == good and first.name.endswith("-heuristic.json")

    err = io.StringIO()
    down = f"http://127.0.0.1:{free_port()}"
    assert main([*ok, "--env-url", down], {}, io.StringIO(), err) == 3
    assert output.read_text() == good  # the failed run did not touch the last good artifact
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 2 and first in runs
    (failed,) = (r for r in runs if r != first)
    partial = json.loads(failed.read_text())
    assert partial["completed"] is False and partial["env"] == down
    assert f"partial results written to {failed}" in err.getvalue()
    assert f"{output} is left as it was" in err.getvalue()

    assert main(ok, {}, io.StringIO(), io.StringIO()) == 0  # a later run replaces no earlier run's file
    assert len(list((tmp_path / "runs").iterdir())) == 3
    assert first.read_text() == good and json.loads(failed.read_text()) == partial


def test_runs_in_the_same_second_get_files_of_their_own(tmp_path: Path) -> None:
    artifact = {"agent": "heuristic", "created_at": "2026-12-01T05:22:16Z", "mean_score": 0.5}
    paths = [write_run_artifact(tmp_path, {**artifact, "seed": seed}) for seed in range(3)]
    assert [p.name for p in paths] == [
        "20261201T052216Z-heuristic.json",
        "20261201T052216Z-heuristic-2.json",
        "20261201T052216Z-heuristic-3.json",
    ]
    assert [json.loads(p.read_text())["seed"] for p in paths] == [0, 1, 2]
    assert sorted(tmp_path.iterdir()) == sorted(paths)  # no temporary file is left behind
