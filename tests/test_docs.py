"""The README and docs/ cannot drift: cheap figure blocks are recomputed, and every Python example runs.

A figure block (`<!-- figures:NAME -->` ... `<!-- /figures -->`) is written by the script that
measures it (`scripts/figures.py`). The cheap ones are rendered here in memory and compared with
what the documents hold; a mismatch names the command that rewrites the block. The expensive ones
(benchmarks, install sizes, long sweeps) are only checked to exist, be closed, and carry the
command and date of their run.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import check_fixtures
import figures
import measure_tool_text
import pytest
import reference_scores
import reward_table
from server_helpers import LiveServer

from openenv_bug_triage.tasks import TASK_IDS

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
FIXED_TASKS = list(TASK_IDS)

CHEAP: dict[str, tuple[Callable[[], str], str]] = {
    "reference_scores/seed-42": (
        lambda: reference_scores.block(FIXED_TASKS, [42], "test", 50, [])[1],
        "python scripts/reference_scores.py --write",
    ),
    "reference_scores/seed-1-2-3-4-5-6-7-8-9-10": (
        lambda: reference_scores.block(
            FIXED_TASKS, list(range(1, 11)), "test", 50, ["--seeds", *map(str, range(1, 11))]
        )[1],
        "python scripts/reference_scores.py --seeds 1 2 3 4 5 6 7 8 9 10 --write",
    ),
    "tasks": (check_fixtures.task_table, "python scripts/check_fixtures.py --write"),
    "tool_text": (lambda: measure_tool_text.table(FIXED_TASKS, 42), "python scripts/measure_tool_text.py --write"),
    "reward_table": (reward_table.block, "python scripts/reward_table.py --write"),
}
"""Blocks the fast tests recompute: name -> (render, the command that rewrites them)."""

MEASURED = {
    "reference_scores/validation-200",
    "reference_scores/test-1000",
    "reference_scores/test-50x5",
    "generator_stats",
    "surface_audit",
    "shallow_baseline",
    "gaming_audit",
    "gaming_audit/summary",
    "install_sizes",
    "bench_server",
    "prompt_size",
    "bench_replicas",
    "live_policies",
}
"""Blocks written only by hand-run measurements; each carries its command and date."""

FILLED_BY_HAND = {"test_times"}
"""The test tiers' times, which no script measures yet."""


def all_block_names() -> dict[str, list[Path]]:
    names: dict[str, list[Path]] = {}
    for path in figures.documents():
        for name in re.findall(r"^<!-- figures:(\S+) -->$", path.read_text(encoding="utf-8"), re.MULTILINE):
            names.setdefault(name, []).append(path)
    return names


@pytest.mark.parametrize("name", sorted(CHEAP))
def test_cheap_figure_blocks_match_a_fresh_rendering(name: str) -> None:
    render, command = CHEAP[name]
    found = figures.read_blocks(name)
    assert found, f"no document holds the `{name}` figure block"
    fresh = render()
    for path, bodies in found.items():
        for body in bodies:
            assert body == fresh, f"{path.relative_to(REPO)}: figures `{name}` are stale; run `{command}`"


def test_every_figure_block_has_a_known_writer_and_is_closed() -> None:
    names = all_block_names()
    assert set(names) <= set(CHEAP) | MEASURED | FILLED_BY_HAND, sorted(set(names) - set(CHEAP) - MEASURED)
    assert set(CHEAP) | MEASURED <= set(names), "a figure block went missing from the documents"
    for name, paths in names.items():
        blocks = figures.read_blocks(name)
        for path in paths:
            assert path in blocks, f"{path.relative_to(REPO)}: `<!-- figures:{name} -->` is not closed"


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_measured_blocks_name_their_command_and_date(name: str) -> None:
    for path, bodies in figures.read_blocks(name).items():
        for body in bodies:
            assert re.search(r"`python scripts/\w+\.py[^`]*`", body), f"{path}: `{name}` does not name its command"
            if not name.startswith("reference_scores/"):  # scores are exact; timings and sizes are dated
                assert re.search(r"measured \d{4}-\d\d-\d\d", body), f"{path}: `{name}` has no date"


def test_the_readme_shows_the_seed_42_scores_and_is_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert README in figures.read_blocks("reference_scores/seed-42")
    front = text.split("---\n")[1]
    for line in ("sdk: docker", "app_port: 7860", "base_path: /web", "  - openenv"):
        assert line in front.splitlines()


def test_replace_blocks_rewrites_only_the_named_block(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("intro\n<!-- figures:a -->\nold\n<!-- /figures -->\nmiddle\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text("<!-- figures:b -->\nkept\n<!-- /figures -->\n<!-- figures:a -->\n<!-- /figures -->\nend\n")
    written = figures.replace_blocks("a", "new\n", tmp_path)
    assert written == [tmp_path / "README.md", page]
    assert (tmp_path / "README.md").read_text() == "intro\n<!-- figures:a -->\nnew\n<!-- /figures -->\nmiddle\n"
    assert (
        page.read_text()
        == "<!-- figures:b -->\nkept\n<!-- /figures -->\n<!-- figures:a -->\nnew\n<!-- /figures -->\nend\n"
    )
    assert figures.replace_blocks("a", "new\n", tmp_path) == []  # already up to date
    with pytest.raises(figures.FigureBlockError, match="no document holds"):
        figures.replace_blocks("c", "x", tmp_path)
    page.write_text("<!-- figures:d -->\nnever closed\n")
    with pytest.raises(figures.FigureBlockError, match="has no"):
        figures.replace_blocks("d", "x", tmp_path)


def test_a_write_flag_stores_exactly_what_the_script_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("<!-- figures:demo -->\n<!-- /figures -->\n")
    monkeypatch.setattr(figures, "REPO", tmp_path)
    monkeypatch.setattr(figures, "documents", lambda root=tmp_path: [tmp_path / "README.md"])
    monkeypatch.setattr(sys, "argv", ["demo.py", "--runs", "2", "--write"])
    figures.run_writing(lambda: print("a figure 1.25"), "demo", "demo.py")
    body = figures.read_blocks("demo", tmp_path)[tmp_path / "README.md"][0]
    assert body.startswith("`python scripts/demo.py --runs 2`, measured ")
    assert body.endswith("```text\na figure 1.25\n```\n")


# --------------------------------------------------------------------------- the examples run


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)


EXAMPLES = [(path, i, code) for path in figures.documents() for i, code in enumerate(python_blocks(path))]
SERVER_URL = "http://127.0.0.1:7860"


def fake_trl() -> dict[str, types.ModuleType]:
    """`datasets` and `trl` stand-ins: the trainer plays each row the way TRL's environment_factory does.

    It builds the tool schemas with transformers' `get_json_schema`, as TRL does, resets an
    environment per row, calls tools until the episode ends and reads `get_reward()`.
    """
    from transformers.utils import get_json_schema

    datasets = types.ModuleType("datasets")
    trl = types.ModuleType("trl")

    class Dataset(list[dict[str, Any]]):
        @classmethod
        def from_list(cls, rows: list[dict[str, Any]]) -> Dataset:
            return cls(rows)

    class GRPOConfig:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

    class GRPOTrainer:
        rewards: ClassVar[list[float]] = []

        def __init__(
            self,
            model: str,
            args: GRPOConfig,
            train_dataset: Dataset,
            eval_dataset: Dataset,
            environment_factory: Callable[[], Any],
        ) -> None:
            self.rows = [*train_dataset[:2], *eval_dataset[:2]]
            self.factory = environment_factory

        def train(self) -> None:
            for row in self.rows:
                assert "prompt" in row
                env = self.factory()
                tools = [
                    getattr(env, n) for n in dir(env) if not n.startswith("_") and n not in ("reset", "get_reward")
                ]
                schemas = [get_json_schema(t) for t in tools if callable(t) and t.__doc__ and "Args:" in t.__doc__]
                assert {"classify", "assign", "next_ticket"} <= {s["function"]["name"] for s in schemas}
                assert isinstance(env.reset(**row), str)
                with contextlib.suppress(Exception):
                    while True:
                        env.next_ticket()
                GRPOTrainer.rewards.append(env.get_reward())

    datasets.Dataset = Dataset  # type: ignore[attr-defined]
    trl.GRPOConfig, trl.GRPOTrainer = GRPOConfig, GRPOTrainer  # type: ignore[attr-defined]
    return {"datasets": datasets, "trl": trl}


def run_example(path: Path, index: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run one example as a user would paste it (a server example with the live server's URL put in)."""
    uses_trl = "from trl import" in code
    if uses_trl:
        for name, module in fake_trl().items():
            monkeypatch.setitem(sys.modules, name, module)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, f"{path.name}:{index}", "exec"), {"__name__": "__docs__"})
    if uses_trl:
        assert sys.modules["trl"].GRPOTrainer.rewards  # type: ignore[attr-defined]
    else:
        assert out.getvalue(), "an example that prints nothing shows nothing"


IN_PROCESS = [e for e in EXAMPLES if SERVER_URL not in e[2]]
ON_A_SERVER = [e for e in EXAMPLES if SERVER_URL in e[2]]


def _ids(examples: list[tuple[Path, int, str]]) -> list[str]:
    return [f"{p.relative_to(REPO)}:{i}" for p, i, _ in examples]


@pytest.mark.parametrize(("path", "index", "code"), IN_PROCESS, ids=_ids(IN_PROCESS))
def test_in_process_examples_run(path: Path, index: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    run_example(path, index, code, monkeypatch)


@pytest.mark.parametrize(("path", "index", "code"), ON_A_SERVER, ids=_ids(ON_A_SERVER))
def test_server_examples_run_against_a_live_server(
    path: Path, index: int, code: str, monkeypatch: pytest.MonkeyPatch, server: LiveServer
) -> None:
    """Against the session's shared real server on loopback, in place of the documents' port 7860."""
    run_example(path, index, code.replace(SERVER_URL, server.url), monkeypatch)


def test_the_readme_examples_are_all_run_in_the_fast_tier() -> None:
    assert [e for e in ON_A_SERVER if e[0] == README] == []
    assert len([e for e in IN_PROCESS if e[0] == README]) == 2  # the in-process and the TRL example
