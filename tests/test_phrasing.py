"""Sentence frames: choices drawn by a seeded RNG, every wording listed, any rendering found again."""

from __future__ import annotations

import random
import re
import string
from collections import Counter

from openenv_bug_triage.catalogue import load_phrases
from openenv_bug_triage.generator.phrasing import CHOICE, compose, literal_parts, pattern, variants, whole_quotes

FRAME = "I {checked|went over} this {twice|a couple of times} before {title}{| today}."


def test_compose_draws_each_choice_from_the_rng_and_leaves_fields_for_format() -> None:
    a = [compose(FRAME, random.Random(7)) for _ in range(3)]
    assert len(set(a)) == 1  # same seed, same wording
    drawn = Counter(compose(FRAME, rng) for rng in [random.Random(1)] for _ in range(400))
    assert set(drawn) == set(variants(FRAME)) and len(drawn) == 8  # every wording turns up
    assert all("{title}" in w and "|" not in w for w in drawn)
    assert compose("No choices here, {title}.", random.Random(0)) == "No choices here, {title}."


def test_variants_literal_parts_and_pattern_agree() -> None:
    wordings = variants(FRAME)
    assert wordings[0] == "I checked this twice before {title}."
    assert wordings[-1] == "I went over this a couple of times before {title} today."
    assert literal_parts(FRAME) == ["I ", " this ", " before ", "."]
    found = pattern(FRAME)
    for w in wordings:
        assert found.search("Hello. " + w.format(title="writing in") + " Bye.")
    assert not found.search("I looked at this twice before writing in.")


def test_every_pool_phrase_is_a_well_formed_frame() -> None:
    """No nested or unclosed choice, and after the choices only plain named fields remain."""
    for name, pool in load_phrases().pools.items():
        for partition in ("train", "validation", "test"):
            for frame in pool.of(partition):
                for wording in variants(frame):
                    assert not CHOICE.search(wording), (name, wording)
                    fields = [f for _, f, _, _ in string.Formatter().parse(wording) if f is not None]
                    assert all(f.isidentifier() for f in fields), (name, wording, fields)


def test_texts_fitting_answers_as_fitting_does() -> None:
    """The generator's one-step lookup gives each pool's fitting phrases in file order, whatever the tags."""
    phrases = load_phrases()
    tag_sets = [
        frozenset(),
        frozenset({"customer", "casual", "email", "bug", "production", "web"}),
        frozenset({"qa", "technical", "prerelease", "mobile", "long", "formal"}),
    ]
    for name, pool in phrases.pools.items():
        for partition in ("train", "validation", "test"):
            for tags in tag_sets:
                found = phrases.texts_fitting(name, partition, tags)
                assert list(found) == phrases.fitting(name, partition, tags) == pool.fitting(partition, tags)
                assert phrases.texts_fitting(name, partition, frozenset(tags)) is found


def test_a_sentence_split_keeps_a_quote_whole() -> None:
    parts = ["The page says 'This link has expired.", "Request a new one.' I tried five times.", "It fails."]
    assert whole_quotes(parts) == [f"{parts[0]} {parts[1]}", parts[2]]
    assert whole_quotes(["It doesn't work.", "I'm stuck."]) == ["It doesn't work.", "I'm stuck."]


_BEGUN_IN_A_QUOTE = re.compile(r"^[^'\"‘“’”\n]*?[.!?]['’\"”](?!\w)")
"""A paragraph whose first quote mark closes a quote: it begins inside what it quotes ("Request a new one.' I tried")."""


def test_no_sentence_of_a_wording_begins_inside_a_quote() -> None:
    """A tester's wording dropped the sentence that opened a quote and kept the rest: "Request a new one.' I tried five
    times with fresh links" (realism reader 44). Split into sentences, no wording of the catalogue leaves one that
    begins inside what it quotes."""
    from openenv_bug_triage.catalogue import load_catalogue
    from openenv_bug_triage.generator.render import _sentences

    quoted = 0
    for d in load_catalogue().defects:
        for symptom in d.symptoms:
            for sentence in _sentences(symptom):
                assert not _BEGUN_IN_A_QUOTE.match(sentence), (d.id, sentence)
            quoted += "'" in symptom
    assert quoted >= 20


_NAME_AFTER_A_SENTENCE = re.compile(r"[.!?] \{(?:first|name)\}")


def test_a_sign_off_puts_the_name_under_its_last_sentence() -> None:
    """ "I want this resolved, not just acknowledged. Hiroshi Sato" on one line (realism reader 44, ten tickets): a
    writer who ends on a sentence signs on the line below it."""
    phrases = load_phrases()
    signed = 0
    for name, pool in phrases.pools.items():
        for partition in ("train", "validation", "test"):
            for text in pool.of(partition):
                assert not _NAME_AFTER_A_SENTENCE.search(text), (name, text)
                signed += "\n{first}" in text or "\n{name}" in text
    assert signed >= 10
