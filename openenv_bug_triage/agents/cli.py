"""Command line of `scripts/baseline_inference.py`: parse, build the agent and environment, run, report.

Every run writes its artifact to `runs/<time>-<agent>.json` beside `--output`; a run that
finished every task also replaces `--output`, so a failed run never overwrites the last good one.

With `--repeats K` (and `--instances N`), the run is a repeated evaluation instead
(`agents/repeated.py`): its report goes to `--output` (default `artifacts/evaluation.json`) and
`runs/`, its plot beside `--output` as a PNG, its tables to stderr.

Exit codes: 0 done; 1 mean score below `--min-score`; 2 usage error or missing API key;
3 stopped early because the model endpoint or the environment server failed (the partial
artifact is written to `runs/` only).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from .. import __version__
from ..env import DEFAULT_SEED, MAX_SEED, BugTriageEnv
from ..evaluation import build_report, format_report
from ..evaluation_plot import INSTALL_HINT, PlotUnavailableError, plot_reports
from ..grading import load_grading
from ..http_client import HttpEnvClient
from ..policies import DETERMINISTIC, HeuristicPolicy, RandomPolicy
from ..reward import COMPONENTS
from ..sources import is_generated, task_infos
from ..tasks import TASK_IDS
from .artifact import RunInfo, build_artifact, format_table, runs_dir, write_artifact, write_run_artifact
from .chat import ChatClient, ChatSettings
from .llm import LLMAgent
from .prompt import handbook_sha256, load_template
from .repeated import run_repeated, variation
from .runner import Agent, EventLog, PolicyAgent, Progress, TriageEnv, run_tasks
from .trajectory import TrajectoryWriter

EXIT_OK, EXIT_BELOW_MIN_SCORE, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 3
DEFAULT_OUTPUT = Path("artifacts/baseline_scores.json")
DEFAULT_EVALUATION_OUTPUT = Path("artifacts/evaluation.json")
AGENTS = ("llm", "heuristic", "random")
KEY_VARIABLES = ("OPENAI_API_KEY", "HF_TOKEN")
BASE_URL_VARIABLES = ("OPENAI_BASE_URL", "API_BASE_URL")
HF_ROUTER_URL = "https://router.huggingface.co/v1"


def _bounded(kind: Callable[[str], float], low: float, high: float) -> Callable[[str], float]:
    def check(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a valid {kind.__name__}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is outside {low:g}..{high:g}")
        return value

    check.__name__ = kind.__name__
    return check


def task_list(text: str) -> list[str]:
    """Task ids from `easy,bug_triage_medium,generated_hard` style text (short names for fixed tasks)."""
    known = [info.task_id for info in task_infos()]
    ids = []
    for name in filter(None, (part.strip() for part in text.split(","))):
        task_id = name if name in known else f"bug_triage_{name}"
        if task_id not in known:
            raise argparse.ArgumentTypeError(f"unknown task {name!r}; choose from {', '.join(known)}")
        ids.append(task_id)
    return ids


def build_parser() -> argparse.ArgumentParser:
    """The script's arguments."""
    p = argparse.ArgumentParser(
        prog="baseline_inference.py",
        description="Run a baseline agent over the bug-triage tasks and write artifacts/baseline_scores.json.",
        epilog="The LLM agent reads OPENAI_API_KEY (or HF_TOKEN), OPENAI_BASE_URL (or API_BASE_URL; default "
        f"OpenAI's API, or {HF_ROUTER_URL} when only HF_TOKEN is set) and MODEL_NAME. "
        "Exit codes: 0 done, 1 mean below --min-score, 2 usage error or missing key, 3 stopped early "
        "(endpoint or server down; partial artifact written under runs/ only). Every run also writes its own "
        "artifact to runs/ beside --output. Event lines go to stdout, the table to stderr.",
    )
    p.add_argument("--model", help="model name for --agent llm (default: $MODEL_NAME)")
    p.add_argument(
        "--seed", type=_bounded(int, 0, MAX_SEED), default=DEFAULT_SEED, help="episode and API seed (default: 42)"
    )
    p.add_argument("--agent", choices=AGENTS, default="llm", help="who acts (default: llm)")
    p.add_argument("--tasks", type=task_list, nargs="+", help="tasks to run, comma- or space-separated (default: all)")
    p.add_argument(
        "--split",
        choices=["train", "validation", "test"],
        default="test",
        help="generated tasks: the split whose instance --seed names (default: test)",
    )
    p.add_argument("--env-url", help="drive a running environment server at this URL instead of in-process")
    p.add_argument(
        "--output",
        type=Path,
        help=f"artifact of the last complete run (default: {DEFAULT_OUTPUT}, with --repeats "
        f"{DEFAULT_EVALUATION_OUTPUT}); each run's own goes to runs/ beside it",
    )
    p.add_argument(
        "--repeats",
        type=_bounded(int, 1, 100),
        help="evaluate: play every instance K times and write a report with 95%% intervals, pass@k and pass^k",
    )
    p.add_argument(
        "--instances",
        type=_bounded(int, 1, 10000),
        help="with --repeats: instances per task, seeds --seed .. --seed+N-1 (default 1)",
    )
    p.add_argument(
        "--temperature",
        type=_bounded(float, 0.0, 2.0),
        help="--agent llm: the sampling temperature (default 0); repeats of an LLM differ by its sampling",
    )
    p.add_argument(
        "--trajectory",
        type=Path,
        metavar="PATH",
        help="also write every step as JSON Lines to PATH, for the playground's replay (/web)",
    )
    p.add_argument("--min-score", type=_bounded(float, 0.0, 1.0), help="exit 1 when the mean score is below this")
    p.add_argument(
        "--max-attempts", type=_bounded(int, 1, 5), default=2, help="model calls per step before falling back"
    )
    p.add_argument(
        "--request-timeout", type=_bounded(float, 0.01, 3600), default=60.0, help="seconds per model request"
    )
    p.add_argument("--api-retries", type=_bounded(int, 0, 10), default=4, help="retries of a failed model request")
    p.add_argument("--retry-backoff", type=_bounded(float, 0.0, 60.0), default=1.0, help="first retry delay, doubling")
    return p


def _first(environ: Mapping[str, str], names: Sequence[str]) -> str | None:
    return next((environ[n] for n in names if environ.get(n)), None)


class SetupError(Exception):
    """The command line and environment variables do not describe a runnable LLM agent."""


def chat_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> ChatSettings:
    """Model, key and endpoint for `--agent llm` from the arguments and environment variables."""
    model = args.model or environ.get("MODEL_NAME")
    if not model:
        raise SetupError("--agent llm needs a model: pass --model NAME or set MODEL_NAME")
    api_key = _first(environ, KEY_VARIABLES)
    if not api_key:
        raise SetupError(
            "--agent llm needs an API key: set OPENAI_API_KEY (or HF_TOKEN), and OPENAI_BASE_URL "
            "(or API_BASE_URL) for a server other than OpenAI; or run without a model: --agent heuristic"
        )
    base_url = _first(environ, BASE_URL_VARIABLES)
    if base_url is None and not environ.get("OPENAI_API_KEY"):  # an HF token alone means the HF router
        base_url = HF_ROUTER_URL
    return ChatSettings(
        model=model,
        api_key=api_key,
        base_url=base_url,
        seed=args.seed,
        timeout=args.request_timeout,
        api_retries=args.api_retries,
        backoff=args.retry_backoff,
    )


def make_agent(args: argparse.Namespace, environ: Mapping[str, str], repeat: int = 0) -> Agent:
    """The agent `--agent` names, for the `repeat`-th play of an instance (the random policy draws anew,
    the LLM asks with API seed `--seed + repeat`); for `llm`, `args.model` is set to the model actually used."""
    if args.agent == "heuristic":
        return PolicyAgent(HeuristicPolicy())
    if args.agent == "random":
        return PolicyAgent(RandomPolicy(repeat=repeat))
    settings = chat_settings(args, environ)
    args.model = settings.model
    settings = dataclasses.replace(settings, seed=settings.seed + repeat, temperature=args.temperature or 0.0)
    return LLMAgent(ChatClient(settings), max_attempts=args.max_attempts)


def _environment(args: argparse.Namespace, environ: Mapping[str, str]) -> TriageEnv:
    """The server at `--env-url` (with the trainer token, for the full grade in the artifact), else in-process."""
    token = environ.get("BUG_TRIAGE_TRAINER_TOKEN") or None
    return HttpEnvClient(args.env_url, trainer_token=token) if args.env_url else BugTriageEnv()


def _run_info(args: argparse.Namespace) -> RunInfo:
    llm = args.agent == "llm"
    return RunInfo(
        agent=args.agent,
        model=args.model if llm else args.agent,
        seed=args.seed,
        version=__version__,
        env=args.env_url or "in-process",
        prompt_sha256=load_template().sha256 if llm else None,
        handbook_sha256=handbook_sha256() if llm else None,
        max_attempts=args.max_attempts if llm else None,
        temperature=(args.temperature or 0.0) if llm else None,
    )


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the baseline; returns the exit code."""
    environ = os.environ if environ is None else environ
    out, err = out or sys.stdout, err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.instances is not None and args.repeats is None:
        parser.error("--instances needs --repeats (--repeats 1 plays each instance once)")
    if args.repeats is not None and args.seed + (args.instances or 1) - 1 > MAX_SEED:
        parser.error(f"--seed + --instances - 1 must stay at most {MAX_SEED}")
    if args.temperature is not None and args.agent != "llm":
        parser.error(f"--temperature is the model's: --agent {args.agent} does not sample from a model")
    task_ids = list(dict.fromkeys(t for group in args.tasks for t in group)) if args.tasks else list(TASK_IDS)
    try:
        agent = make_agent(args, environ)
    except SetupError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    if args.repeats is not None:
        return evaluate(args, environ, agent, task_ids, out, err)
    args.output = args.output or DEFAULT_OUTPUT
    env = _environment(args, environ)
    info = _run_info(args)
    try:
        trajectory = TrajectoryWriter(args.trajectory, args.agent, info.model) if args.trajectory else None
    except OSError as exc:
        err.write(f"error: cannot write the trajectory {args.trajectory}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    with trajectory or contextlib.nullcontext():
        run = run_tasks(
            env, agent, task_ids, args.seed, info.model, EventLog(out), Progress(err), trajectory, args.split
        )
    if isinstance(agent, LLMAgent):  # record the temperature the endpoint actually accepted
        info = dataclasses.replace(info, temperature=agent.chat.temperature)
    artifact = build_artifact(run, info)
    run_path = write_run_artifact(runs_dir(args.output), artifact)
    err.write(format_table(run) + "\n")
    if not run.completed:
        err.write(
            f"stopped early: {run.error}\npartial results written to {run_path}; "
            f"{args.output} is left as it was (it holds the last complete run, if any)\n"
        )
        return EXIT_STOPPED
    write_artifact(args.output, artifact)
    err.write(f"wrote {args.output} (and {run_path})\n")
    if args.trajectory is not None:
        err.write(f"wrote {args.trajectory} (replay it at /web)\n")
    mean = artifact["mean_score"]
    if args.min_score is not None and mean < args.min_score:
        err.write(f"mean score {mean:.3f} is below --min-score {args.min_score:.3f}\n")
        return EXIT_BELOW_MIN_SCORE
    return EXIT_OK


def evaluate(
    args: argparse.Namespace, environ: Mapping[str, str], first: Agent, task_ids: list[str], out: TextIO, err: TextIO
) -> int:
    """`--repeats`: play every instance K times, write the report and its plot; returns the exit code."""
    output: Path = args.output or DEFAULT_EVALUATION_OUTPUT
    env = _environment(args, environ)
    info = _run_info(args)
    repeats = 1 if args.agent in DETERMINISTIC else args.repeats
    agents = [first, *(make_agent(args, environ, r) for r in range(1, repeats))]
    try:
        trajectory = TrajectoryWriter(args.trajectory, args.agent, info.model) if args.trajectory else None
    except OSError as exc:
        err.write(f"error: cannot write the trajectory {args.trajectory}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    seeds = range(args.seed, args.seed + (args.instances or 1))
    with trajectory or contextlib.nullcontext():
        run = run_repeated(
            env, agents.__getitem__, task_ids, seeds, repeats, info.model, EventLog(out), Progress(err), trajectory,
            args.split,
        )  # fmt: skip
    temperature = first.chat.temperature if isinstance(first, LLMAgent) else info.temperature
    info = dataclasses.replace(info, temperature=temperature)
    settings = {k: v for k, v in dataclasses.asdict(info).items() if k not in ("agent", "model")}
    report = build_report(
        agent=args.agent,
        model=info.model,
        split=args.split if any(is_generated(t) for t in task_ids) else None,
        repeats_requested=args.repeats,
        variation=variation(args.agent, temperature, args.seed),
        records=run.records,
        pass_threshold=load_grading().pass_threshold,
        components=[c.name for c in COMPONENTS],
        error=run.error,
        settings={**settings, "instances": len(seeds)},
        created_at=datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
    )
    document = report.model_dump(mode="json")
    run_path = write_run_artifact(runs_dir(output), document)
    err.write(format_report(report) + "\n")
    if run.error is not None:
        err.write(f"stopped early: {run.error}\npartial report written to {run_path}; {output} is left as it was\n")
        return EXIT_STOPPED
    write_artifact(output, document)
    try:
        plot = plot_reports([(info.model, report)], output.with_suffix(".png"))
        err.write(f"wrote {output} and {plot} (and {run_path})\n")
    except PlotUnavailableError:
        err.write(f"wrote {output} (and {run_path}); no plot: matplotlib is not installed ({INSTALL_HINT})\n")
    if args.min_score is not None and report.mean_score is not None and report.mean_score < args.min_score:
        err.write(f"mean score {report.mean_score:.3f} is below --min-score {args.min_score:.3f}\n")
        return EXIT_BELOW_MIN_SCORE
    return EXIT_OK
