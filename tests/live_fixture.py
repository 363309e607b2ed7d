"""A small hand-made live queue for the environment's tests: the fixed medium task made live.

BT-204 (vague) has a reporter who answers after 2 queue steps, and whose steps settle it as a sev2 editor
bug; BT-215 (vague) has one who never answers; BT-210 and BT-212 arrive at queue steps 3 and 5; BT-213
duplicates BT-090, an open ticket of the tracker's history, which also holds look-alikes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from openenv_bug_triage import sources
from openenv_bug_triage.models import TaskFixture
from openenv_bug_triage.sources import LoadedTask, TaskInfo
from openenv_bug_triage.tasks import Task, build_task
from openenv_bug_triage.world import DATA_DIR, load_world

TASK_ID = "live_test_medium"
START = datetime.fromisoformat("2026-11-18T12:00:00+00:00")
STEP_MINUTES = 10
ARRIVALS = {"BT-210": 3, "BT-212": 5}


def _entry(tid: str, title: str, summary: str, component: str, days: int, **extra: Any) -> dict[str, Any]:
    at = (START - timedelta(days=days)).isoformat()
    return {
        "ticket_id": tid,
        "title": title,
        "summary": summary,
        "component": component,
        "created_at": at,
        "updated_at": at,
        "status": "open",
        **extra,
    }


def live_fixture() -> dict[str, Any]:
    """The fixture as JSON data."""
    raw: dict[str, Any] = json.loads((DATA_DIR / "tasks" / "bug_triage_medium.json").read_text(encoding="utf-8"))
    raw["task_id"] = TASK_ID
    raw["step_budget"] += 15  # room for every policy of the tests to reach the reply
    world = load_world()
    by_id = {t["ticket_id"]: t for t in raw["tickets"]}
    for tid, step in ARRIVALS.items():
        by_id[tid]["created_at"] = (START + timedelta(minutes=step * STEP_MINUTES)).isoformat()
    raw["tickets"].sort(key=lambda t: t["created_at"])
    by_id["BT-213"]["truth"] |= {"disposition": "duplicate", "duplicate_of": "BT-090"}
    editor_bug = {
        "true_severity": "sev2",
        "true_priority": world.priority_for("sev2", by_id["BT-204"]["customer_tier"]),
        "true_component": "editor",
        "true_assignee_team": world.owner["editor"],
        "needs_more_info": False,
        "should_escalate": False,
        "disposition": "fix",
    }
    raw["live"] = {
        "start": START.isoformat(),
        "step_minutes": STEP_MINUTES,
        "arrivals": ARRIVALS,
        "replies": {
            "BT-204": {
                "author": "Dana Whitfield",
                "delay": 2,
                "opener": "Sorry, that was a rushed ticket.",
                "has": {
                    "repro": "Open any document with a table, type in a cell on one laptop: the other laptop never "
                    "shows the change until we reload. Only tables; plain text syncs fine. About 10 of us hit it, "
                    "we copy the table out and back as a workaround.",
                    "version": "We are on the web app, 2026.11.2.",
                },
                "nothing": "I don't have anything like that, sorry.",
                "settles": ["repro"],
                "truth": editor_bug,
                "version": "2026.11.2",
            },
            "BT-215": {
                "author": "Sam Ortega",
                "delay": None,
                "opener": "Hi.",
                "has": {"repro": "It shows when I save a board."},
                "nothing": "No idea.",
                "settles": ["repro"],
                "truth": editor_bug
                | {
                    "true_component": "web-ui",
                    "true_assignee_team": world.owner["web-ui"],
                    "true_priority": world.priority_for("sev2", "free"),
                },
            },
        },
        "backlog": [
            _entry(
                "BT-090",
                "Scheduled PDF snapshot of the reporting dashboard",
                "Customers ask for a weekly PDF snapshot of the reporting dashboard sent by email.",
                "reporting",
                40,
            ),
            _entry(
                "BT-091",
                "Velocity report counts carried-over points twice",
                "The velocity report adds story points of carried-over tasks to both sprints.",
                "reporting",
                70,
                status="closed",
                resolution="fixed",
                fixed_in="2026.10.3",
            ),
            _entry(
                "BT-092",
                "PDF export of a board is blank",
                "Exporting a board to PDF gives an empty file.",
                "data-export",
                20,
            ),
            _entry(
                "BT-093",
                "Dashboard widgets load slowly",
                "Reporting dashboard widgets take 10 s to load.",
                "reporting",
                90,
                status="closed",
                resolution="won't_fix",
            ),
        ],
    }
    return raw


def live_task() -> Task:
    """The live test task, built by the loader."""
    return build_task(TaskFixture.model_validate(live_fixture()))


class LiveTestSource:
    """A task source serving the live test task (one instance, like a fixed task)."""

    def infos(self) -> list[TaskInfo]:
        task = live_task()
        return [
            TaskInfo(
                task_id=TASK_ID,
                difficulty=task.difficulty,
                source="test",
                ticket_count=len(task.tickets),
                step_budget=task.step_budget,
                description=task.description,
                dynamics=["replies", "history", "arrivals"],
            )
        ]

    def load(self, task_id: str, seed: int | None, split: str | None) -> LoadedTask:
        return LoadedTask(live_task(), None, None)


@contextmanager
def served() -> Iterator[None]:
    """Serve the live test task while the block runs (other tests' task lists never see it)."""
    source = LiveTestSource()
    sources.register_source(source)
    try:
        yield
    finally:
        sources.unregister_source(source)
