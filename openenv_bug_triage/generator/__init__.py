"""Seeded generator of triage queues: facts first, truth by the handbook's rules, text last.

For each ticket the generator draws latent facts (scenario, environment, tier, reporter,
scope of impact, evidence present, traps), derives the truth from the facts with
`derive_truth` (the handbook, rule by rule), and only then renders the text from the
scenario's wordings and the phrase pools in `data/generator/`. Fields the handbook does not
make causal (attachments, version, title case, wording style, hour, ticket id) are drawn
independently of the truth. The result goes through the same loader checks as a fixture.

One job per module: `levels` (profiles, splits, seeds), `facts` (latent facts and the truth
they imply), `plan` (which scenario plays which role, environments, scopes, tiers, times,
ids), `timeline` (the queue's release calendar), `render` (text) and `titles` (a ticket's subject
line). This module is the public API.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..models import LiveQueue, TaskFixture
from ..rules import severity_for
from ..tasks import Task, build_task
from .browsers import may_name_versions, move_versions
from .compose import fact_group
from .facts import TicketFacts, derive_truth, disposition_for, scope_options
from .levels import SPLITS, TRAIN_MAX_SEED, Level, Split, check_seed, level_of, load_levels, partition_of, split_size
from .live import Static, draw_live, reserve_replies
from .notes import annotate
from .plan import Planner, number_by_date
from .render import Renderer
from .timeline import calendar_for


@dataclass(frozen=True)
class GeneratedTask:
    """A generated instance: the task the env plays, and the facts behind it (trainer side)."""

    task: Task
    facts: dict[str, TicketFacts]
    split: Split
    seed: int
    replied: dict[str, TicketFacts] = field(default_factory=dict)
    """On a live queue, the facts each vague report's reply tells (its truth follows from them)."""


def generate(task_id: str, seed: int, split: str = "train") -> GeneratedTask:
    """The instance of generated task `task_id` named by (`split`, `seed`); same arguments, same bytes."""
    level = level_of(task_id)
    seed = check_seed(split, seed)
    rng = random.Random(f"bug-triage/{task_id}/{split}/{seed}")
    planner = Planner(level, partition_of(split), rng)
    slots = planner.plan()
    base = datetime(2026, 1, 5, 6, 0, tzinfo=UTC) + timedelta(days=rng.randrange(320), minutes=rng.randrange(600))
    end = base + timedelta(minutes=max(s.minute for s in slots))
    number_by_date(slots, base)
    timeline = calendar_for(base, end)
    renderer = Renderer(planner, timeline, base, slots)
    records, facts, personas = [], {}, {}  # rendered first: the release notes hold lines placed while rendering
    world = planner.world
    for s in sorted(slots, key=lambda s: s.minute):
        record, f = dated(*renderer.render(s))
        record["truth"] = derive_truth(f, world)  # a validated Truth: the fixture takes it as it is
        records.append(record)
        facts[f.ticket_id] = f
        personas[f.ticket_id] = renderer.voice.persona  # who wrote it: a live queue's reply is in their voice
    reserved = reserve_replies(planner, slots, world) if level.dynamics is not None else {}
    unused = [d for d in planner.unused if all(d is not r for r, _ in reserved.values())]
    releases = annotate(timeline.until(end), renderer.notes, unused, planner.phrases, planner.partition, rng)
    live: LiveQueue | None = None
    replied: dict[str, TicketFacts] = {}
    if level.dynamics is not None:  # drawn last, so a static level's draws are as they were
        static = Static(planner, renderer, slots, records, facts, personas, releases, base, level.step_budget, reserved)
        live, releases, replied = draw_live(static, level.dynamics)
    fixture = TaskFixture.model_validate(
        {
            "task_id": level.task_id,
            "difficulty": level.difficulty,
            "description": level.description,
            "step_budget": level.step_budget,
            "sla_policy": level.sla_policy,
            "tickets": records,
            "releases": releases,
            "live": live,
        }
    )
    # check_seed has refused any split outside SPLITS, but cannot narrow the str to the Split literal
    return GeneratedTask(build_task(fixture, world), facts, split, seed, replied)  # type: ignore[arg-type]


def dated(record: dict[str, Any], facts: TicketFacts) -> tuple[dict[str, Any], TicketFacts]:
    """A rendered ticket with every browser and Apple OS version it names as of the day it was filed."""
    said = [record["title"], record["description"], record["log_excerpt"] or ""]
    said += [c["text"] for c in record["comments"]] + [text for _, text in facts.evidence]
    if not may_name_versions("\n".join(said)):  # most tickets: one test of all their texts
        return record, facts
    filed = datetime.fromisoformat(record["created_at"].replace("Z", "+00:00"))
    for key in ("title", "description", "log_excerpt"):
        if record[key]:
            record[key] = move_versions(record[key], filed)
    for comment in record["comments"]:
        comment["text"] = move_versions(comment["text"], filed)
    evidence = tuple((rule, move_versions(text, filed)) for rule, text in facts.evidence)
    return record, facts if evidence == facts.evidence else replace(facts, evidence=evidence)  # mostly none moved


def label_samples(made: list[GeneratedTask], field: str) -> list[tuple[str, str, str]]:
    """(what an agent reads, one label of its truth, the scenario's fact group) per ticket of `made`:
    the input of `textstats.label_frames`. What an agent reads is the title, body and comments."""
    return [
        (
            "\n".join([t.title, t.description, *(c.text for c in t.comments)]),
            str(getattr(m.task.truth[t.ticket_id], field)),
            fact_group(m.facts[t.ticket_id].scenario),
        )
        for m in made
        for t in m.task.tickets
    ]


__all__ = [
    "SPLITS",
    "TRAIN_MAX_SEED",
    "GeneratedTask",
    "Level",
    "Split",
    "TicketFacts",
    "check_seed",
    "derive_truth",
    "disposition_for",
    "generate",
    "label_samples",
    "level_of",
    "load_levels",
    "partition_of",
    "scope_options",
    "severity_for",
    "split_size",
]
