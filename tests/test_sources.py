"""One task seam: fixed files, the generator and a user's own source behind the same env; the Task API in-process."""

from __future__ import annotations

import json

import pytest

from openenv_bug_triage import BugTriageEnv, TaskInfo, register_source, sources, task_infos
from openenv_bug_triage.policies import OraclePolicy, run_episode
from openenv_bug_triage.sources import LoadedTask, load_task
from openenv_bug_triage.task_api import TaskApiError
from openenv_bug_triage.tasks import build_task, parse_fixture
from openenv_bug_triage.world import DATA_DIR


class TrackerExport:
    """A user's own source: one task made from a copy of a fixture, as a tracker export would be."""

    def __init__(self) -> None:
        raw = json.loads((DATA_DIR / "tasks" / "bug_triage_easy.json").read_text())
        raw["task_id"] = "my_tracker_week_48"
        self.task = build_task(parse_fixture(raw))

    def infos(self) -> list[TaskInfo]:
        t = self.task
        return [
            TaskInfo(
                task_id=t.task_id,
                difficulty=t.difficulty,
                source="tracker",
                ticket_count=len(t.tickets),
                step_budget=t.step_budget,
                description="exported from our tracker",
            )
        ]

    def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask:
        return LoadedTask(self.task, None, None)


@pytest.fixture
def own_source(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sources, "_SOURCES", list(sources._SOURCES))
    sources._index.cache_clear()
    register_source(TrackerExport())
    yield
    sources._index.cache_clear()


def test_a_users_source_plays_without_editing_core_modules(own_source) -> None:
    assert "my_tracker_week_48" in [info.task_id for info in task_infos()]
    obs = BugTriageEnv().reset(task_id="my_tracker_week_48")
    assert obs.task_id == "my_tracker_week_48" and len(obs.queue) == 8
    assert run_episode(OraclePolicy(), "my_tracker_week_48").grade.score == 1.0


def test_a_source_cannot_shadow_an_existing_task(own_source) -> None:
    with pytest.raises(ValueError, match="already served"):
        register_source(TrackerExport())


def test_task_infos_list_fixed_then_generated_without_truth() -> None:
    infos = task_infos()
    assert [i.source for i in infos] == ["fixed"] * 3 + ["generated"] * 6
    for info in infos:
        assert set(info.model_dump()) - {"dynamics"} == {
            "task_id",
            "difficulty",
            "source",
            "ticket_count",
            "step_budget",
            "description",
            "splits",
        }


def test_task_api_in_process() -> None:
    env = BugTriageEnv()
    assert [s["name"] for s in env.list_splits()] == ["train", "validation", "test"]
    assert env.num_tasks("validation") == 1200 and env.num_tasks("test") == 6000
    spec = env.get_task("test", 19)
    assert (spec.task_id, spec.seed, spec.split, spec.difficulty) == ("generated_medium", 3, "test", "medium")
    assert set(spec.model_dump()) == {"id", "task_id", "split", "index", "seed", "difficulty"}  # static: no dynamics
    live = env.get_task("test", 22)
    assert (live.task_id, live.seed, live.dynamics) == ("generated_live_hard", 3, ["replies", "history", "arrivals"])
    assert [s.index for s in env.get_task_range("test", -2)] == [5998, 5999]
    assert len(env.list_tasks("train")) == 1000
    by_index = env.reset(split="test", index=19).model_dump_json()
    assert by_index == BugTriageEnv().reset(task_id="generated_medium", seed=3, split="test").model_dump_json()
    assert env.state().split == "test"
    for split, index in (("test", 6000), ("test", -1), ("nope", 0)):
        with pytest.raises(TaskApiError):
            env.get_task(split, index)


def test_load_task_loads_fixed_and_generated_tasks() -> None:
    assert load_task("bug_triage_hard").task_id == "bug_triage_hard"
    assert load_task("generated_expert", seed=5, split="validation").task_id == "generated_expert"
    assert load_task("generated_easy", seed=5) is load_task("generated_easy", seed=5, split="train")


def test_the_manifest_lists_every_task_the_sources_serve() -> None:
    import re
    from pathlib import Path

    manifest = (Path(__file__).parent.parent / "openenv.yaml").read_text()
    listed = re.findall(r"^  - id: (\S+)$", manifest, flags=re.MULTILINE)
    assert listed == [info.task_id for info in task_infos()]
