"""Planted tickets and facts for the checkers' can-fail tests (test_world, test_voice, test_fit): a valid
ticket and its facts with every field a check does not read set to something neutral."""

from __future__ import annotations

from openenv_bug_triage.generator import TicketFacts
from openenv_bug_triage.models import Ticket


def ticket(**fields: object) -> Ticket:
    """A user's production export report, with `fields` set over it."""
    base: dict[str, object] = {
        "ticket_id": "T-1",
        "title": "Export fails",
        "description": "The export fails.",
        "reporter_type": "user",
        "service": "reporting",
        "component_candidates": ["reporting"],
        "created_at": "2026-10-08T03:07:00Z",
        "customer_tier": "pro",
        "environment": "production",
        "repro_steps_present": False,
        "logs_present": False,
        "attachments_count": 0,
    }
    return Ticket.model_validate(base | fields)


def facts(**fields: object) -> TicketFacts:
    """The facts of `ticket()`'s report (a defect in reporting), with `fields` set over them."""
    base: dict[str, object] = {
        "ticket_id": "T-1",
        "kind": "defect",
        "scenario": "x",
        "component": "reporting",
        "environment": "production",
        "tier": "pro",
        "reporter": "user",
    }
    return TicketFacts(**(base | fields))  # type: ignore[arg-type]
