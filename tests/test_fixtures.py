"""Fixtures: the shipped tasks hold every invariant, and a fixture breaking any one is refused."""

from __future__ import annotations

import copy
import json
import re
import statistics
from collections import Counter
from datetime import datetime

import pytest

from openenv_bug_triage.errors import FixtureError
from openenv_bug_triage.generator import generate
from openenv_bug_triage.models import Comment, Ticket
from openenv_bug_triage.sources import load_task
from openenv_bug_triage.tasks import TASK_IDS, build_task, load_all_tasks, parse_fixture
from openenv_bug_triage.world import DATA_DIR, load_handbook, load_world

EASY = json.loads((DATA_DIR / "tasks" / "bug_triage_easy.json").read_text())


def raw(task_id: str) -> dict:
    return json.loads((DATA_DIR / "tasks" / f"{task_id}.json").read_text())


def test_all_tasks_load_with_unique_ids_across_tasks():
    tasks = load_all_tasks()
    assert [len(t.tickets) for t in tasks.values()] == [8, 15, 25]


@pytest.mark.parametrize(
    "task",
    [*TASK_IDS, "generated_easy/3", "generated_expert/11"],
)
def test_tasks_loaded_tickets_validate(task):
    """Each visible ticket the loader builds from its record re-validates to itself, its values of their own types."""
    task_id, _, seed = task.partition("/")
    loaded = generate(task_id, int(seed)).task if seed else load_task(task_id)
    for ticket in loaded.tickets:
        again = Ticket.model_validate(ticket.model_dump())
        assert again == ticket and again.model_dump_json() == ticket.model_dump_json()
        assert type(ticket.created_at) is datetime and all(type(c) is Comment for c in ticket.comments)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_fixture_round_trips_to_the_same_json(task_id):
    data = raw(task_id)
    assert parse_fixture(data).model_dump(mode="json") == data


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_task_has_each_kind_of_case(task_id):
    task = load_task(task_id)
    kinds = Counter(t.disposition for t in task.truth.values())
    assert kinds["fix"] and kinds["duplicate"] and kinds["needs_info"] and kinds["defer"]
    assert any(k.startswith("close_") for k in kinds)
    assert any(t.should_escalate for t in task.truth.values())
    assert any(t.customer_tier == "enterprise" and t.sla_deadline_step for t in task.tickets)
    assert statistics.median(len(t.description) for t in task.tickets) >= 250


@pytest.mark.parametrize("task_id", ["bug_triage_medium", "bug_triage_hard"])
def test_about_a_fifth_are_duplicates(task_id):
    task = load_task(task_id)
    share = sum(t.disposition == "duplicate" for t in task.truth.values()) / len(task.tickets)
    assert 0.15 <= share <= 0.3


def test_hard_task_has_its_traps():
    task = load_task("bug_triage_hard")
    assert sum(t.should_escalate for t in task.truth.values()) >= 3
    assert any(task.truth[t.ticket_id].true_component not in t.component_candidates for t in task.tickets)
    injection = re.compile(r"ignore (?:all |your |previous )*(?:rules|instructions)", re.IGNORECASE)
    assert any(injection.search(t.description) for t in task.tickets)


def test_duplicate_hints_come_from_text_and_are_imperfect():
    task = load_task("bug_triage_hard")
    hinted = {(t.ticket_id, h) for t in task.tickets for h in t.suspected_duplicate_ids}
    real = {(tid, t.duplicate_of) for tid, t in task.truth.items() if t.duplicate_of}
    assert real - hinted, "some real duplicates must go unhinted"
    assert hinted - real, "some hints must be false"


def test_handbook_names_every_component_team_and_priority_cell():
    handbook, world = load_handbook(), load_world()
    for name in (*world.components, *world.teams):
        assert f"`{name}`" in handbook
    for sev, row in world.priority_rule.items():
        assert f"| {sev} | {row['free']} | {row['pro']} | {row['enterprise']} |" in handbook


def _ticket(data: dict, tid: str) -> dict:
    return next(t for t in data["tickets"] if t["ticket_id"] == tid)


def _by(data: dict, disposition: str) -> dict:
    return next(t for t in data["tickets"] if t["truth"]["disposition"] == disposition)


def _mutations():
    def dup_id(d):
        d["tickets"][1]["ticket_id"] = d["tickets"][0]["ticket_id"]

    def bad_component(d):
        _by(d, "fix")["truth"]["true_component"] = "moon-base"

    def wrong_owner(d):
        _by(d, "fix")["truth"]["true_assignee_team"] = (
            "billing" if _by(d, "fix")["truth"]["true_assignee_team"] != "billing" else "data"
        )

    def wrong_priority(d):
        t = _by(d, "fix")["truth"]
        t["true_priority"] = "p3" if t["true_priority"] != "p3" else "p0"

    def dup_without_target(d):
        _by(d, "duplicate")["truth"]["duplicate_of"] = None

    def target_without_dup(d):
        _by(d, "fix")["truth"]["duplicate_of"] = d["tickets"][0]["ticket_id"]

    def dup_to_unknown(d):
        _by(d, "duplicate")["truth"]["duplicate_of"] = "BT-000"

    def dup_to_later(d):
        _by(d, "duplicate")["created_at"] = "2026-10-01T00:00:00Z"

    def escalate_non_fix(d):
        _by(d, "defer")["truth"]["should_escalate"] = True

    def missing_escalation(d):
        next(t for t in d["tickets"] if t["truth"]["should_escalate"])["truth"]["should_escalate"] = False

    def info_flag(d):
        _by(d, "fix")["truth"]["needs_more_info"] = True

    def needs_info_with_logs(d):
        _by(d, "needs_info")["logs_present"] = True

    def component_not_candidate(d):
        t = _by(d, "fix")
        t["component_candidates"] = [c for c in ("web-ui", "sso") if c != t["truth"]["true_component"]]

    def budget_too_small(d):
        d["step_budget"] = 5

    def sla_too_tight(d):
        d["sla_policy"]["enterprise"] = 1

    def unknown_field(d):
        d["tickets"][0]["severity_hint"] = "sev0"

    def bad_enum(d):
        d["tickets"][0]["customer_tier"] = "platinum"

    def unknown_service(d):
        d["tickets"][0]["service"] = "teleport"

    def ungraded_difficulty(d):
        d["difficulty"] = "legendary"

    return {
        "ticket_id": dup_id,
        "true_component": bad_component,
        "true_assignee_team": wrong_owner,
        "true_priority": wrong_priority,
        "duplicate_of": dup_without_target,
        "duplicate_of ": target_without_dup,
        "duplicate_of  ": dup_to_unknown,
        "duplicate_of   ": dup_to_later,
        "should_escalate": escalate_non_fix,
        "should_escalate ": missing_escalation,
        "needs_more_info": info_flag,
        "disposition": needs_info_with_logs,
        "component_candidates": component_not_candidate,
        "step_budget": budget_too_small,
        "sla_policy": sla_too_tight,
        "severity_hint": unknown_field,
        "customer_tier": bad_enum,
        "service": unknown_service,
        "difficulty": ungraded_difficulty,
    }


@pytest.mark.parametrize(("field", "mutate"), list(_mutations().items()), ids=lambda v: getattr(v, "__name__", None))
def test_broken_fixture_is_refused_naming_the_field(field, mutate):
    data = copy.deepcopy(EASY)
    mutate(data)
    with pytest.raises(FixtureError) as err:
        build_task(parse_fixture(data))
    message = str(err.value)
    assert field.strip() in message
    assert ("task" if field in ("step_budget", "difficulty") else "ticket BT-1") in message
