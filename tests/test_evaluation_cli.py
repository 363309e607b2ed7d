"""Repeated evaluation the way a user runs it: the scripts in fresh processes, their reports, plots and comparison."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mock_openai import REPO, Fault, MockOpenAI, ScriptRun, llm_env, run_baseline, run_main
from server_helpers import TRAINER_TOKEN, LiveServer

from openenv_bug_triage.evaluation import EvaluationReport
from openenv_bug_triage.policies import HeuristicPolicy, oracle_actions, run_episode
from openenv_bug_triage.reward import COMPONENTS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_script(name: str, *args: str, env: dict[str, str] | None = None) -> ScriptRun:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / name), *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return ScriptRun(proc.returncode, proc.stdout, proc.stderr)


def load(path: Path) -> EvaluationReport:
    return EvaluationReport.model_validate_json(path.read_text())


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ScriptRun, Path]:
    """The reference policies evaluated twice, the same way, into two folders."""
    args = (
        "--tasks",
        "bug_triage_easy",
        "generated_easy",
        "--seeds",
        "1",
        "2",
        "3",
        "--episodes",
        "4",
        "--repeats",
        "3",
    )
    first, second = tmp_path_factory.mktemp("ref1"), tmp_path_factory.mktemp("ref2")
    run = run_script("reference_scores.py", *args, "--report-dir", str(first))
    assert run.code == 0, run.stderr
    assert run_script("reference_scores.py", *args, "--report-dir", str(second)).code == 0
    return first, run, second


@pytest.fixture(scope="module")
def heuristic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ScriptRun]:
    output = tmp_path_factory.mktemp("heuristic") / "evaluation.json"
    run = run_baseline(
        "--agent", "heuristic", "--tasks", "easy,generated_easy", "--split", "validation",
        "--seed", "1", "--instances", "3", "--repeats", "4", "--output", str(output),
    )  # fmt: skip
    assert run.code == 0, run.stderr
    return output, run


def test_reference_reports_carry_intervals_pass_rates_spread_and_components(reference: tuple) -> None:
    folder, run, _ = reference
    random_report, heuristic_report = load(folder / "random.json"), load(folder / "heuristic.json")
    easy = random_report.tasks["bug_triage_easy"]
    assert (easy.instances, easy.repeats, random_report.variation) == (3, 3, "repeat_seed")
    assert [i.instance for i in easy.per_instance] == ["seed-1", "seed-2", "seed-3"]
    assert [i.instance for i in random_report.tasks["generated_easy"].per_instance] == [f"test/{s}" for s in range(4)]
    assert easy.interval.low <= easy.mean <= easy.interval.high and set(easy.pass_at_k) == {1, 2, 3}
    assert easy.repeat_means_std is not None and easy.within_instance_std is not None
    assert list(easy.reward_components)[: len(COMPONENTS)] == [c.name for c in COMPONENTS]
    assert {"tickets", "sla", "penalty"} <= set(easy.subscores)
    assert any(len(set(i.scores)) > 1 for i in easy.per_instance)  # the repeats really differ
    # the heuristic is deterministic: played once per instance, and the report says so
    hard = heuristic_report.tasks["bug_triage_easy"]
    assert (hard.repeats, heuristic_report.variation, hard.repeat_means_std) == (1, "none", None)
    assert hard.pass_at_k == dict.fromkeys((1, 2, 3), hard.pass_at_k[1]) == hard.pass_hat_k
    assert "heuristic is deterministic" in run.stdout and "pass@3" in run.stdout and "95% interval" in run.stdout
    scores = [run_episode(HeuristicPolicy(), "bug_triage_easy", s).grade.score for s in (1, 2, 3)]
    assert hard.mean == round(statistics.fmean(scores), 6)  # the same figure the plain table averages


def test_reference_reports_are_byte_identical_run_to_run(reference: tuple) -> None:
    first, _, second = reference
    for name in ("random.json", "heuristic.json", "oracle.json", "scores.png"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert (first / "scores.png").read_bytes().startswith(PNG_MAGIC)


def test_the_baseline_writes_a_report_a_table_and_a_plot(heuristic: tuple) -> None:
    output, run = heuristic
    report = load(output)
    assert report.completed and report.agent == "heuristic" and report.repeats_requested == 4
    assert report.split == "validation" and report.settings["seed"] == 1 and report.settings["instances"] == 3
    assert [i.instance for i in report.tasks["generated_easy"].per_instance] == [
        "validation/1",
        "validation/2",
        "validation/3",
    ]
    assert [i.instance for i in report.tasks["bug_triage_easy"].per_instance] == ["seed-1", "seed-2", "seed-3"]
    assert report.tasks["bug_triage_easy"].repeats == 1 and report.variation == "none"
    assert "heuristic is deterministic" in run.stderr and "95% interval" in run.stderr
    assert output.with_suffix(".png").read_bytes().startswith(PNG_MAGIC)
    (copy,) = (output.parent / "runs").iterdir()
    assert copy.read_text() == output.read_text()
    assert len(run.events("END")) == 6  # two tasks x three instances, each played once


def test_llm_repeats_sample_with_a_seed_per_repeat_and_score_pass_at_k(tmp_path: Path) -> None:
    plan = [json.dumps(a) for a in oracle_actions("bug_triage_easy")]
    output = tmp_path / "evaluation.json"
    with MockOpenAI(plan) as mock:  # repeat 0 plays the right triage, repeat 1 only moves on
        run = run_baseline(
            "--tasks", "easy", "--repeats", "2", "--temperature", "0.7", "--output", str(output), env=llm_env(mock)
        )  # fmt: skip
    assert run.code == 0, run.stderr
    seeds = [r["seed"] for r in mock.requests]
    assert seeds == sorted(seeds) and set(seeds) == {42, 43} and {r["temperature"] for r in mock.requests} == {0.7}
    report = load(output)
    stats = report.tasks["bug_triage_easy"]
    assert report.variation == "sampling" and "temperature 0.7" in report.variation_note
    assert stats.per_instance[0].passed == [True, False] and stats.per_instance[0].scores[0] == 1.0
    assert (stats.pass_at_k, stats.pass_hat_k) == ({1: 0.5, 2: 1.0}, {1: 0.5, 2: 0.0})
    assert stats.within_instance_std is not None and stats.within_instance_std > 0.4
    assert report.settings["temperature"] == 0.7 and report.settings["prompt_sha256"]


def test_a_stopped_repeated_run_keeps_the_stable_report(tmp_path: Path) -> None:
    output = tmp_path / "evaluation.json"
    with MockOpenAI([], default=Fault(503)) as mock:
        run = run_baseline(
            "--tasks", "easy", "--repeats", "2", "--output", str(output), "--retry-backoff", "0", "--api-retries", "0",
            env=llm_env(mock),
        )  # fmt: skip
    assert run.code == 3 and "stopped early" in run.stderr and not output.exists()
    (partial,) = (tmp_path / "runs").iterdir()
    report = load(partial)
    assert not report.completed and report.mean_score is None and report.tasks == {}


def test_compare_finds_the_heuristic_above_random_on_the_same_instances(tmp_path: Path, heuristic: tuple) -> None:
    random_out = tmp_path / "random.json"
    args = ("--tasks", "easy,generated_easy", "--split", "validation", "--seed", "1", "--instances", "3")
    assert run_baseline("--agent", "random", *args, "--repeats", "2", "--output", str(random_out)).code == 0
    comparison = tmp_path / "cmp.json"
    run = run_script("compare_runs.py", str(heuristic[0]), str(random_out), "--output", str(comparison))
    assert run.code == 0, run.stderr
    result: dict[str, Any] = json.loads(comparison.read_text())
    easy = result["tasks"]["bug_triage_easy"]
    assert easy["verdict"] == "A higher" and easy["interval"]["low"] > 0 and easy["instances"] == 3
    assert "A higher" in run.stdout and "95% interval" in run.stdout
    same = run_script("compare_runs.py", str(heuristic[0]), str(heuristic[0]))
    assert same.code == 0 and "no clear difference" in same.stdout and "A higher" not in same.stdout


def test_compare_refuses_different_instances_and_other_files(tmp_path: Path, heuristic: tuple) -> None:
    other = tmp_path / "other.json"
    args = ("--tasks", "easy,generated_easy", "--split", "validation", "--seed", "2", "--instances", "3")
    assert run_baseline("--agent", "heuristic", *args, "--repeats", "1", "--output", str(other)).code == 0
    run = run_script("compare_runs.py", str(heuristic[0]), str(other))
    assert run.code == 2 and run.stdout == ""
    assert (
        "only in A: ['seed-1']; only in B: ['seed-4']" in run.stderr and "same --tasks, --split and seeds" in run.stderr
    )
    plain = tmp_path / "plain.json"
    assert run_baseline("--agent", "heuristic", "--tasks", "easy", "--output", str(plain)).code == 0
    run = run_script("compare_runs.py", str(heuristic[0]), str(plain))
    assert run.code == 2 and "is not an evaluation report" in run.stderr and "--repeats K" in run.stderr


def test_without_matplotlib_the_report_is_written_and_the_plot_explained(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "matplotlib").mkdir(parents=True)
    (hidden / "matplotlib" / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(hidden), os.environ.get("PYTHONPATH", "")])}
    output = tmp_path / "out" / "evaluation.json"
    run = run_baseline("--agent", "heuristic", "--tasks", "easy", "--repeats", "2", "--output", str(output), env=env)
    assert run.code == 0, run.stderr
    assert "no plot: matplotlib is not installed (pip install matplotlib" in run.stderr
    assert load(output).completed and not output.with_suffix(".png").exists()
    ref = run_script(
        "reference_scores.py",
        "--tasks",
        "bug_triage_easy",
        "--repeats",
        "1",
        "--report-dir",
        str(tmp_path / "ref"),
        env=env,
    )
    assert ref.code == 0 and "pip install matplotlib" in ref.stderr and (tmp_path / "ref" / "oracle.json").exists()


def test_min_score_applies_to_the_evaluated_mean(tmp_path: Path) -> None:
    args = ("--agent", "heuristic", "--tasks", "easy", "--repeats", "1", "--instances", "2")
    low = run_main(*args, "--min-score", "0.9", "--output", str(tmp_path / "a.json"))
    assert low.code == 1 and "below --min-score 0.900" in low.stderr
    assert run_main(*args, "--min-score", "0.5", "--output", str(tmp_path / "b.json")).code == 0


def test_instances_need_repeats_and_only_a_model_takes_a_temperature() -> None:
    run = run_main("--agent", "heuristic", "--instances", "3")
    assert run.code == 2 and "--instances needs --repeats" in run.stderr
    run = run_main("--agent", "random", "--repeats", "2", "--temperature", "0.5")
    assert run.code == 2 and "--agent random does not sample from a model" in run.stderr


def test_a_repeated_run_over_env_url_reports_what_in_process_reports(server: LiveServer, tmp_path: Path) -> None:
    args = ("--agent", "random", "--tasks", "easy,generated_medium", "--repeats", "2", "--instances", "2")
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    assert run_main(*args, "--output", str(local)).code == 0
    run = run_main(
        *args, "--env-url", server.url, "--output", str(remote), env={"BUG_TRIAGE_TRAINER_TOKEN": TRAINER_TOKEN}
    )
    assert run.code == 0, run.stderr
    a, b = load(local), load(remote)
    assert b.settings["env"] == server.url and a.settings["env"] == "in-process"
    assert a.tasks == b.tasks and a.mean_score == b.mean_score
