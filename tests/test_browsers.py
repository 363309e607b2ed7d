"""Browser and Apple OS versions as of a ticket's date: moved by the releases since the wordings were
written, apart by as much as before, never newer than the day allows, unsupported ones untouched."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from openenv_bug_triage.generator import generate
from openenv_bug_triage.generator.browsers import current_major, move_versions
from openenv_bug_triage.generator.voice import browsers_named, client_tags

JAN = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
OCT = datetime(2026, 10, 4, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "filed", "moved"),
    [
        ("Chrome 131 and Edge 120 on Windows 11", JAN, "Chrome 142 and Edge 131 on Windows 11"),
        ("UA: Mozilla/5.0 Firefox/134.0", OCT, "UA: Mozilla/5.0 Firefox/156.0"),
        (
            "Fails in Safari 18.2 and Safari 17.6, passes in Chrome 131",
            JAN,
            "Fails in Safari 26.2 and Safari 18.6, passes in Chrome 142",
        ),
        ("OS Version:          iPhone OS 18.1 (22B83)", JAN, "OS Version:          iPhone OS 26.1 (22B83)"),
        ("an iPhone on iOS 18.2, an iPad on iOS 17.5", OCT, "an iPhone on iOS 27.0, an iPad on iOS 26.5"),
        ("iOS 18.1.1 on an iPhone 15", JAN, "iOS 26.1.1 on an iPhone 15"),
        ("iOS 15.8 on an iPhone 6s, Edge 40, IE 11", OCT, "iOS 15.8 on an iPhone 6s, Edge 40, IE 11"),
        ("Firefox ESR 140: ua=Firefox/140.0esr", OCT, "Firefox ESR 140: ua=Firefox/140.0esr"),
        ("Safari/537.36 and iOS app 5.14.0", OCT, "Safari/537.36 and iOS app 5.14.0"),
    ],
)
def test_versions_move_to_the_tickets_date(text: str, filed: datetime, moved: str) -> None:
    assert move_versions(text, filed) == moved


def test_a_matrix_keeps_its_browsers_apart_and_a_second_move_is_not_applied_twice_by_accident() -> None:
    once = move_versions("Edge 120 and Edge 130", OCT)
    assert once == "Edge 141 and Edge 151"  # ten releases apart, as written


_NAMED = re.compile(r"\b(?P<name>Chrome|Edge|Firefox)[ /](?P<major>\d{3})\b(?!\.\d+esr)")
"""A Chrome, Edge or Firefox major (an extended-support Firefox's line is written as it is)."""
_APPLE_NAMED = re.compile(r"\b(?:Safari|iOS|iPadOS|iPhone OS) (?P<major>\d+)\b")


def test_no_generated_ticket_names_a_browser_of_another_time() -> None:
    """Chrome, Edge and Firefox at most fifteen releases (a year or so) behind the newest on the day and never
    ahead of it; Safari and iOS of the current line or the one before (or an unsupported one, as written)."""
    named = 0
    for level in ("generated_hard", "generated_expert"):
        for split in ("train", "validation", "test"):
            for seed in range(8):
                made = generate(level, seed, split)
                for t in made.task.tickets:
                    text = "\n".join([t.title, t.description, t.log_excerpt or "", *(c.text for c in t.comments)])
                    for m in _NAMED.finditer(text):
                        named += 1
                        newest = current_major(m["name"], t.created_at.date())
                        assert newest - 15 <= int(m["major"]) <= newest, (t.ticket_id, m[0])
                    for m in _APPLE_NAMED.finditer(text):
                        named += 1
                        assert int(m["major"]) in (18, 26, 27) or int(m["major"]) < 17, (t.ticket_id, m[0])
    assert named > 40


def test_the_edge_of_a_network_and_a_motorola_edge_are_no_browser() -> None:
    """An API report that says its response came "from the edge" (an "Edge cache") is no web report: it draws no
    browser extensions list (blind reading of generated_hard/test/405 found one under a cross-tenant cache leak)."""
    for text in (
        "The response had 'x-cache: HIT' from the edge.",
        "Edge cache serves responses",
        "my Motorola Edge 40",
    ):
        assert not browsers_named(text) and "web" not in client_tags(None, text), text
    for text in ("Microsoft Edge 120", "It works in Edge and Chrome", "the Edge browser"):
        assert browsers_named(text) == {"chromium"} and "web" in client_tags(None, text), text
