"""The noise pass: an unfilled placeholder is the in-app form's own field for the ticket's platform."""

from __future__ import annotations

import random
import re

import sweeps

from openenv_bug_triage.generator.noise import Noise, draw_noise, load_noise

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
        allowed = {p.text for p in data.placeholders if p.requires <= {platform} and not p.forbids & {platform}}
        assert seen and seen <= allowed, platform
        others = {p.text for p in data.placeholders if p.requires and platform not in p.requires}
        assert not seen & others, platform
    # a phone app has no page address to paste, nor a Help > About menu (reader 56 met both on Android reports)
    assert not {x for x in _placeholders({"customer", "form", "mobile"}) if "page" in x or "Help >" in x}


def test_a_typo_slips_in_at_some_places_of_its_word_and_the_same_way_in_a_sentence_and_its_ticket() -> None:
    """A writer who types "teh" does not type it at all twelve places of "the" in one report: a typo hits about one
    place in three. Where it hits is a function of the place (the word after it), so a sentence recorded as evidence
    reads as it reads in the ticket."""
    sentence = "I opened the board and the {} column showed the wrong count."
    text = " ".join(sentence.format(word) for word in ("first", "second", "third", "fourth", "fifth", "sixth"))
    slipped = kept = 0
    for salt in range(60):
        noise = Noise(typos=(("the", "teh"),), salt=salt)
        typed = noise.apply(text)
        slipped += typed.count("teh ")
        kept += typed.count("the ")
        for one in re.split(r"(?<=\.) ", text):
            assert noise.apply(one) in typed
        # a sentence that ends its line, as a list of steps does: the next line's first word is not its neighbour
        again = Noise(typos=(("again", "agian"),), salt=salt)
        steps = "Path: open the board, then observe the prompt appears again"
        ticket = f"It asks again and again.\n\n{steps}\n\nIn case it helps, here is more."
        assert again.apply(steps) in again.apply(ticket)
    assert 0.2 < slipped / (slipped + kept) < 0.5, (slipped, kept)


def test_a_non_native_writer_shows_it_in_the_phrasing_of_a_noisy_ticket() -> None:
    drawn = [draw_noise(random.Random(seed), True, frozenset()) for seed in range(200)]
    assert all(bool(noise.nonnative) == noise.any for noise in drawn)
    assert Noise(nonnative=next(n for n in drawn if n.nonnative).nonnative).apply("I see an error when I open it.") == (
        "I am seeing a error when I open it."
    )
    assert not any(draw_noise(random.Random(seed), False, frozenset()).nonnative for seed in range(200))


def test_a_writer_who_types_i_in_lower_case_still_shouts_in_capitals() -> None:
    noise = Noise(lower_i=True)
    assert noise.apply("I'm sure I know. I'M OUT OF PATIENCE. WHY DID I PAY?") == (
        "i'm sure i know. I'M OUT OF PATIENCE. WHY DID I PAY?"
    )


def test_a_form_for_an_app_that_never_opens_leaves_no_field_read_from_the_app_unfilled() -> None:
    """An app stuck on its splash screen has no About screen to read: its form's unfilled field is another one
    (a generator check found "App version (Settings > About):" under such a report)."""
    from openenv_bug_triage.generator.noise import _placeholder, load_noise

    data = load_noise()
    stuck = {_placeholder(random.Random(seed), data, frozenset({"form", "mobile", "no_entry"})) for seed in range(60)}
    opens = {_placeholder(random.Random(seed), data, frozenset({"form", "mobile"})) for seed in range(60)}
    assert "App version (Settings > About):" in opens
    assert "App version (Settings > About):" not in stuck and stuck


_EMPTY_FENCE = re.compile(r"```\n\s*\n?```")


def test_a_markdown_writer_fences_no_empty_block() -> None:
    """An error box of one line was fenced as "```" over nothing (realism reader 44): only lines under a paste's
    heading are fenced, and a paste of one line is not."""
    fenced = 0
    for made in sweeps.instances("validation", 20) + sweeps.instances("test", 20):
        for t in made.task.tickets:
            assert not _EMPTY_FENCE.search(t.description), (t.ticket_id, t.description)
            fenced += "```" in t.description
    assert fenced >= 5, fenced


def test_writers_slip_on_many_words_in_many_ways() -> None:
    """ "teh" was the one typo a blind reader saw, ticket after ticket: writers slip on different everyday words, a
    word in more than one way ("teh", "hte"), and no one slip is in more than a quarter of the writers who slip."""
    drawn = [draw_noise(random.Random(seed), False, frozenset()) for seed in range(2000)]
    slips = [set(n.typos) for n in drawn if n.typos]
    seen = set().union(*slips)
    assert len({word for word, _ in seen}) >= 60
    assert len({slip for word, slip in seen if word == "the"}) >= 2
    assert max(sum(s in one for one in slips) for s in seen) <= 0.25 * len(slips)
