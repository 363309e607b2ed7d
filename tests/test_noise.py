"""The noise pass: an unfilled placeholder is the in-app form's own field for the ticket's platform."""

from __future__ import annotations

import random

from openenv_bug_triage.generator.noise import draw_noise, load_noise

PLATFORMS = ("web", "mobile", "api")


def _placeholders(tags: set[str], draws: int = 3000) -> set[str]:
    rng = random.Random(7)
    found = (draw_noise(rng, False, frozenset(tags)).placeholder for _ in range(draws))
    return {p for p in found if p is not None}


def test_only_a_report_sent_through_the_form_leaves_a_form_field_unfilled() -> None:
    assert _placeholders({"customer", "email", "web"}) == set()
    assert _placeholders({"customer", "web"}) == set()
    assert _placeholders({"customer", "form", "web"})


def test_a_placeholder_fits_the_ticket_platform() -> None:
    data = load_noise()
    for platform in PLATFORMS:
        seen = _placeholders({"customer", "form", platform})
        allowed = {p.text for p in data.placeholders if p.requires <= {platform}}
        assert seen and seen <= allowed, platform
        others = {p.text for p in data.placeholders if p.requires and platform not in p.requires}
        assert not seen & others, platform
