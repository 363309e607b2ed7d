"""The release notes of a generated queue and the reports told against them (`generator.notes`)."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import pytest

from openenv_bug_triage.catalogue import load_catalogue, load_phrases
from openenv_bug_triage.chronology import calendar_text, current_releases, display
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.generator import GeneratedTask, compose, generate, partition_of
from openenv_bug_triage.generator.phrasing import variants
from openenv_bug_triage.models import Release, Ticket
from openenv_bug_triage.policies import OraclePolicy, run_episode
from openenv_bug_triage.tasks import TASK_IDS, load_fixed_task

SEEDS = range(16)


@cache
def told() -> dict[str, list[tuple[GeneratedTask, Ticket, str]]]:
    """Reports told against the notes at hard and expert, by how they are told."""
    out: dict[str, list[tuple[GeneratedTask, Ticket, str]]] = defaultdict(list)
    for split in ("train", "validation", "test"):
        for task_id in ("generated_hard", "generated_expert"):
            for seed in SEEDS:
                g = generate(task_id, seed, split)
                for t in g.task.tickets:
                    for trap in g.facts[t.ticket_id].traps:
                        if trap.startswith("release_note:"):
                            out[trap.split(":")[1]].append((g, t, split))
    return out


def feature_of(scenario: str) -> str:
    """The feature a scenario breaks: a composed defect's (`compose.named`) or a catalogue defect's."""
    made = compose.named(scenario)
    return made.feature if made is not None else next(d.feature for d in load_catalogue().defects if d.id == scenario)


def build_of(g: GeneratedTask, t: Ticket) -> Release:
    assert t.version is not None
    return next(r for r in g.task.releases if display(r.platform, r.version) == t.version)


def noting(g: GeneratedTask, feature: str) -> list[Release]:
    """The releases whose notes fix the defect that broke exactly `feature`."""
    pool = load_phrases().pool("release_note", partition_of(g.split))
    lines = {line.format(feature=feature) for template in pool for line in variants(template)}
    return [r for r in g.task.releases if lines & set(r.notes)]


def test_every_way_of_telling_occurs_at_hard_and_expert_in_every_split() -> None:
    for kind in ("fixed", "similar", "not_held"):
        assert {split for _, _, split in told()[kind]} == {"train", "validation", "test"}, kind


def test_a_report_on_a_build_older_than_its_fix_is_closed_as_resolved() -> None:
    for g, t, _ in told()["fixed"]:
        truth = g.task.truth[t.ticket_id]
        assert truth.disposition == "close_resolved" and not truth.should_escalate
        build = build_of(g, t)
        assert t.version in t.description  # the build is named in the text, not only in a field
        current = max(
            (r for r in g.task.releases if r.platform == build.platform and r.released_at <= t.created_at),
            key=lambda r: r.released_at,
        )
        fixes = noting(g, feature_of(g.facts[t.ticket_id].scenario))
        assert len(fixes) == 1, t.ticket_id
        assert build.platform == fixes[0].platform and build.released_at < fixes[0].released_at <= current.released_at
        assert not any(line in t.description for line in fixes[0].notes)  # the note says it in other words
        assert not g.facts[t.ticket_id].fixed_in_current  # nobody upgraded: the notes alone settle it


def test_a_note_fixing_a_look_alike_settles_nothing() -> None:
    for g, t, _ in told()["similar"]:
        assert g.task.truth[t.ticket_id].disposition == "fix"
        assert not noting(g, feature_of(g.facts[t.ticket_id].scenario))
        assert t.version is not None and t.version in t.description


def test_a_report_on_the_fixing_release_or_later_is_a_regression_to_fix() -> None:
    for g, t, _ in told()["not_held"]:
        assert g.task.truth[t.ticket_id].disposition == "fix"
        fixes = noting(g, feature_of(g.facts[t.ticket_id].scenario))
        assert len(fixes) == 1 and fixes[0].released_at <= build_of(g, t).released_at


def test_the_other_notes_fix_no_defect_a_ticket_of_the_queue_reports() -> None:
    for split in ("train", "validation", "test"):
        for seed in SEEDS:
            g = generate("generated_expert", seed, split)
            told_against = {f.scenario for f in g.facts.values() if any(x.startswith("release_note:") for x in f.traps)}
            for f in g.facts.values():
                if f.kind == "defect" and f.scenario not in told_against:
                    assert not noting(g, feature_of(f.scenario)), (split, seed, f.ticket_id)
            assert all(r.notes for r in g.task.releases if r.platform == "api"), (split, seed)


def test_no_note_fixes_a_platform_wide_outage_no_ticket_reports() -> None:
    """Realism reader 51: "Fixed an issue affecting loading and saving anything in Larkspur" read as a catch-all in
    every calendar; a note that fixes no reported defect names a feature, not the whole product."""
    sweeping = {d.feature for d in load_catalogue().defects if d.global_ and "Larkspur" in d.feature}
    assert sweeping
    for split in ("train", "validation", "test"):
        for seed in SEEDS:
            g = generate("generated_expert", seed, split)
            reported = {feature_of(f.scenario) for f in g.facts.values() if f.kind == "defect"}
            for feature in sweeping - reported:
                assert not noting(g, feature), (split, seed, feature)


@pytest.mark.parametrize("task_id", ["generated_hard", "generated_expert"])
def test_the_oracle_settles_every_report_told_against_the_notes(task_id: str) -> None:
    played = {(g.task.task_id, g.split, g.seed) for kind in told().values() for g, _, _ in kind}
    for tid, split, seed in sorted(played):
        if tid == task_id:
            assert run_episode(OraclePolicy(), tid, seed, split).grade.score == 1.0, (split, seed)


def test_the_agent_reads_the_notes_and_fixed_tasks_have_none() -> None:
    obs = BugTriageEnv().reset(task_id="generated_expert", seed=3, split="train")
    text = calendar_text(obs.releases)
    assert "Release notes, oldest first:" in text
    assert all(line in text for r in obs.releases for line in r.notes)
    for task_id in TASK_IDS:
        releases = load_fixed_task(task_id).releases
        assert not any(r.notes for r in releases)
        assert calendar_text(releases) == current_releases(releases)


def test_easy_and_medium_queues_tell_no_report_against_the_notes() -> None:
    for task_id in ("generated_easy", "generated_medium"):
        for seed in range(8):
            g = generate(task_id, seed, "train")
            assert not any(x.startswith("release_note:") for f in g.facts.values() for x in f.traps)


def test_only_an_installed_app_is_behind_a_release() -> None:
    """The web app and the API are hosted: a production report of either names the build deployed when
    it was filed; reports on an older build (told against the notes, resolved by upgrading) are of apps."""
    for kind in ("fixed", "similar"):
        for g, t, _ in told()[kind]:
            assert build_of(g, t).platform in ("ios", "android"), (kind, t.ticket_id)
    hosted = 0
    for split in ("train", "validation", "test"):
        for seed in SEEDS:
            g = generate("generated_expert", seed, split)
            for t in g.task.tickets:
                f = g.facts[t.ticket_id]
                if f.fixed_in_current:
                    assert f.component in ("ios-app", "android-app"), t.ticket_id
                if t.version is None or f.environment != "production" or not t.version.startswith(("web ", "API ")):
                    continue
                build = build_of(g, t)
                deployed = max(
                    (r for r in g.task.releases if r.platform == build.platform and r.released_at <= t.created_at),
                    key=lambda r: r.released_at,
                )
                assert build == deployed, (split, seed, t.ticket_id, t.version)
                hosted += 1
    assert hosted > 100
