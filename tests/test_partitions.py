"""The three catalogue partitions share no material: no scenario id, title, sentence, log line or phrase.

Instances of a split are built from their own partition only, so a sentence that two
partitions share would let a lookup table learnt on one split predict the labels of another.
Sentences are compared after normalising case and whitespace, across every kind of material
(a phrase in one partition may not be a story sentence in another either).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from openenv_bug_triage import textstats as ts
from openenv_bug_triage.catalogue import (
    Catalogue,
    Defect,
    Partition,
    Phrases,
    Pool,
    Story,
    load_catalogue,
    load_phrases,
)
from openenv_bug_triage.generator.phrasing import variants

PARTITIONS: tuple[Partition, ...] = ("train", "validation", "test")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def normalise(text: str) -> str:
    """Lower case, runs of whitespace as one space, no leading or trailing space."""
    return " ".join(text.lower().split())


def sentences(text: str) -> list[str]:
    """The normalised sentences of `text` (split after . ! ? and at line breaks)."""
    return [normalise(s) for s in _SENTENCE_END.split(text) if s.strip()]


def _defect_material(d: Defect) -> Iterator[tuple[str, str]]:
    yield normalise(d.id), f"id of defect '{d.id}'"
    for title in d.titles:
        yield normalise(title), f"title of defect '{d.id}'"
    for symptom in d.symptoms:
        yield from ((s, f"symptom sentence of defect '{d.id}'") for s in sentences(symptom))
    for log in d.logs:
        yield from ((normalise(line), f"log line of defect '{d.id}'") for line in log.splitlines() if line.strip())
    if d.alert is not None:
        yield normalise(d.alert.title), f"alert title of defect '{d.id}'"
        yield normalise(d.alert.metric), f"alert metric of defect '{d.id}'"


def _story_material(group: str, s: Story) -> Iterator[tuple[str, str]]:
    yield normalise(s.id), f"id of {group} '{s.id}'"
    for title in s.titles:
        yield normalise(title), f"title of {group} '{s.id}'"
    for text in s.texts:
        yield from ((sentence, f"text sentence of {group} '{s.id}'") for sentence in sentences(text))


def material(catalogue: Catalogue, phrases: Phrases) -> dict[Partition, dict[str, str]]:
    """Every normalised piece of material of each partition, with where it comes from."""
    found: dict[Partition, dict[str, str]] = {p: {} for p in PARTITIONS}
    for d in catalogue.defects:
        for key, where in _defect_material(d):
            found[d.partition].setdefault(key, where)
    for group, stories in (("feature", catalogue.features), ("invalid", catalogue.invalid), ("vague", catalogue.vague)):
        for s in stories:
            for key, where in _story_material(group, s):
                found[s.partition].setdefault(key, where)
    for name, pool in phrases.pools.items():
        for partition in PARTITIONS:
            for phrase in pool.of(partition):
                for wording in variants(phrase):  # every wording a frame's choices can give
                    found[partition].setdefault(normalise(wording), f"phrase of pool '{name}'")
                    for words in ts.sentences(wording, 6):  # as the stats script reads it: words only, 6 or more
                        found[partition].setdefault(f"words: {words}", f"phrase of pool '{name}'")
    return found


def shared_material(catalogue: Catalogue, phrases: Phrases) -> list[str]:
    """One line per piece of material that two partitions share (all three pairs); empty when apart."""
    found = material(catalogue, phrases)
    return [
        f"{a} and {b} share {key!r}: {found[a][key]} / {found[b][key]}"
        for a, b in itertools.combinations(PARTITIONS, 2)
        for key in sorted(found[a].keys() & found[b].keys())
    ]


def test_partitions_share_no_scenario_sentence_or_phrase() -> None:
    shared = shared_material(load_catalogue(), load_phrases())
    assert not shared, "\n".join(shared)


def test_every_partition_has_material_of_every_kind() -> None:
    found = material(load_catalogue(), load_phrases())
    for partition in PARTITIONS:
        kinds = {where.split(" of ")[0] for where in found[partition].values()}
        assert {"title", "text sentence", "phrase"} <= kinds, partition


def _plant_in_story(catalogue: Catalogue, partition: Partition, sentence: str) -> Catalogue:
    """`catalogue` with `sentence` added to the first text of the first vague story of `partition`."""
    vague = list(catalogue.vague)
    i = next(i for i, s in enumerate(vague) if s.partition == partition)
    texts = [f"{vague[i].texts[0]} {sentence}", *vague[i].texts[1:]]
    vague[i] = vague[i].model_copy(update={"texts": texts})
    return catalogue.model_copy(update={"vague": vague})


def test_a_planted_shared_sentence_is_found_for_each_pair() -> None:
    catalogue, phrases = load_catalogue(), load_phrases()
    train_symptom = sentences(next(d for d in catalogue.defects if d.partition == "train").symptoms[0])[0]
    for partition in ("validation", "test"):
        planted = _plant_in_story(catalogue, partition, train_symptom.upper().replace(" ", "  "))
        assert [line for line in shared_material(planted, phrases) if line.startswith(f"train and {partition}")]
    pools = dict(phrases.pools)
    pool = pools["filler_user"]
    pools["filler_user"] = Pool(train=pool.train, validation=[*pool.validation, pool.test[0]], test=pool.test)
    shared = shared_material(catalogue, phrases.model_copy(update={"pools": pools}))
    assert [line for line in shared if line.startswith("validation and test")], shared


def test_rendered_tickets_of_one_split_share_no_long_sentence_with_another() -> None:
    """The pools can be apart while what the generator writes around them is not: an old support thread's quoted
    "From: Larkspur Support <support@larkspur.io>" was one six-word sentence in every split, and two threads'
    "Sent: Friday, 4 September 2026 13:25" met in two splits (`generator_stats` at 8cf4a88 and 4eec537). Rendered
    descriptions of each pair of splits share none."""
    from openenv_bug_triage.generator import generate

    bodies = {
        split: [
            t.description
            for level in ("generated_hard", "generated_expert")
            for seed in range(25)
            for t in generate(level, seed, split).task.tickets
        ]
        for split in ("train", "validation", "test")
    }
    for held_out, other in (("test", "validation"), ("validation", "train"), ("test", "train")):
        assert ts.partition_overlap(bodies[held_out], bodies[other]) == 0.0, (held_out, other)
