"""The plain-word tests (`ts.may_match`) before the generator's case-blind patterns never spare a text a match."""

from __future__ import annotations

import re
from functools import cache

import pytest

from openenv_bug_triage import textstats as ts
from openenv_bug_triage.catalogue import load_catalogue, load_phrases
from openenv_bug_triage.generator import generate, render, voice

PREFILTERED: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "workplace": (render._WORKPLACE, render._WORKPLACE_WORDS),
    "hedged": (render._HEDGED, render._HEDGED_WORDS),
    "not_technical": (render._NOT_TECHNICAL, render._NOT_TECHNICAL_WORDS),
    "own_english": (voice._OWN_ENGLISH, voice._OWN_ENGLISH_WORDS),
}
"""Each pattern with the words every match of it holds."""

MATCHING = [
    # one text for each alternative of each pattern, in another letter case than the pattern's where it has one
    *("Our Clients see it", "my customers' work", "OUR STAFF", "my employees", "our new starters", "my Payroll"),
    *("our company", "my office", "our manager", "my boss", "for client work", "invite our clients", "a new starter"),
    *("his line manager", "her manager", "payroll", "sprints", "retros", "retrospective", "billable", "by client"),
    *("the Director", "office Wi-Fi", "the office manager", "managing partner", "senior management"),
    *("board meeting", "sales team", "PMO", "finance and ops group"),
    *("not the end of the world", "No rush", "no urgency", "it can wait", "NOT URGENT", "don't want to bother"),
    *("do not want to bother", "sorry to bother", "take it or leave it", "no big deal", "nothing serious"),
    *("nothing dramatic", "small wish", "tiny thing", "Minor wish", "low priority", "no hurry"),
    *("not very technical", "not the most technical", "not a technical", "nobody technical", "anyone technical"),
    *("no idea what it does", "not an expert", "sorry for my English", "excuse my english", "my English is bad"),
]


@cache
def _texts() -> tuple[str, ...]:
    """Every wording of the catalogue and the phrase pools, a few generated tickets, and `MATCHING`."""
    cat = load_catalogue()
    out: list[str] = list(MATCHING)
    for d in cat.defects:
        out += [*d.symptoms, *d.steps, *d.titles, *d.segment, *d.retold_steps]
    for story in (*cat.features, *cat.invalid, *cat.vague):
        out += [*story.texts, *story.titles]
    for pool in load_phrases().pools.values():
        for partition in ("train", "validation", "test"):
            out += pool.of(partition)
    for task_id in ("generated_hard", "generated_expert"):
        made = generate(task_id, 7, "train")
        out += [f"{t.title}\n{t.description}" for t in made.task.tickets]
    return tuple(out)


@pytest.mark.parametrize("name", sorted(PREFILTERED))
def test_plain_words_never_spare_a_match(name: str) -> None:
    pattern, words = PREFILTERED[name]
    assert any(pattern.search(text) for text in MATCHING)
    for text in _texts():
        assert ts.may_match(text, words) or not pattern.search(text), text
