"""Generated queues the checker modules sweep, made once per process and shared between them."""

from __future__ import annotations

from functools import cache

from openenv_bug_triage.generator import GeneratedTask, TicketFacts, generate, load_levels
from openenv_bug_triage.models import Ticket

STATIC_LEVELS = tuple(level.task_id for level in load_levels().levels if level.dynamics is None)
"""The levels without live dynamics: a live level's queue is drawn by the same code as hard's and expert's."""


@cache
def instances(split: str, per_level: int) -> tuple[GeneratedTask, ...]:
    """Seeds 0 to `per_level` - 1 of every static level, in `split`."""
    return tuple(generate(level, seed, split) for level in STATIC_LEVELS for seed in range(per_level))


def items(made: tuple[GeneratedTask, ...]) -> list[tuple[Ticket, TicketFacts]]:
    """Every ticket of `made` with its facts."""
    return [(t, m.facts[t.ticket_id]) for m in made for t in m.task.tickets]
