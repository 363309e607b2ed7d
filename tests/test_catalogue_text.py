"""A defect's wordings never tell a way round it: only its `workaround` sentences do.

The generator shows a `workaround` sentence exactly when the drawn facts have one, and the
handbook rates a broken core workflow for a group `sev2` with a workaround and `sev1` without.
A title, symptom, step or log line that says the same job gets done another way (another
client, leaving out what triggers it, doing it by hand) would put a workaround into every
ticket of the defect, also into those whose truth has none. The same holds for the wordings of
a composed defect's parts: a surface's steps and detail, a failure, a condition, the templates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from openenv_bug_triage.catalogue import Defect, Partition, load_catalogue
from openenv_bug_triage.generator.compose import Parts, load_parts

_CLIENT = (
    r"(?:the\s+|my\s+|our\s+|a\s+|an\s+)?(?:web(?:\s+app)?|website|browser|laptop|computer|desktop|"
    r"iphones?|ipads?|ios|android|phone\s+apps?|mobile\s+apps?|chrome|firefox|safari|edge|postman|curl)\b"
)
_GETS_DONE = (
    r"(?:works(?!\s+through)|worked|saves\s+(?:fine|normally|at\s+once)|saved\s+(?:fine|normally)|goes\s+through|went\s+through|attach(?:es)?\s+fine|succeeds|"
    r"opens?\s+(?:fine|normally)|starts?\s+normally|(?:is|are)\s+accepted|(?:is|are)\s+fine|"
    r"without\s+(?:any\s+)?(?:trouble|problems?))\b"
)
WAY_ROUND: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        # "The same title works on the web", "attaches fine from the web app"
        rf"\b{_GETS_DONE}\b[^.;!?\n]{{0,40}}\b(?:on|in|from|through|with)\s+{_CLIENT}",
        # "on my computer it works", "My iPad and the website are fine"
        rf"\b(?:on|in|from)\s+{_CLIENT}[^.;!?\n]{{0,20}}\b(?:it\s+)?(?:works|saves|goes\s+through)\b",
        r"\b(?:website|web\s+app|browser|laptop|computer|ipad|iphone|ios\s+app|android\s+app)s?\s+(?:is|are)\s+fine\b",
        # "the same title without the rocket saves at once", "The same ids work through the web app"
        rf"\bthe\s+same\b[^.;!?\n]{{0,50}}\b{_GETS_DONE}",
        # "Without the symbol it goes through", "without the dash it is accepted"
        rf"\bwithout\s+(?:the|it|them|that)\b[^.;!?\n]{{0,30}}\b{_GETS_DONE}",
        # "Deleting the emoji enables it again", "Removing the mention lets it save again"
        r"\benables?\s+it\s+again\b",
        r"\b(?:delet|remov|tak|leav)\w*\b[^.;!?\n]{0,50}\b(?:lets?\s+it|enables?\s+it|"
        r"(?:save|saves|open|opens|works?)\s+again|happy\s+again)\b",
        # "I have to tab each one back in by hand", "has to be fixed by hand"
        r"\b(?:have|has|had)\s+to\b[^.;!?\n]{0,40}\bby\s+hand\b",
        r"\bfix(?:ed|ing)?\b[^.;!?\n]{0,40}\bby\s+hand\b",
        # "Typing 'Muller' finds it", "typing it the English way works"
        r"\btyping\b[^.;!?\n]{0,60}\b(?:finds|brings|works)\b",
        # "so they scroll through the board to find the task instead"
        r"\b(?:we|they|I|people|users)\s+(?:\w+\s+){0,10}(?:instead|fall\s+back\s+(?:on|to)|manage\s+by)\b(?!\s+of)",
        # "OAuth app tokens still work", "the emergency codes do let me in"
        r"\b(?:tokens?|codes?|cards?|links?)\s+(?:still|do)\s+(?:work|let|get)\b",
    )
)


def way_round(text: str) -> str | None:
    """The first stretch of `text` that tells a way round the failure, or None."""
    for pattern in WAY_ROUND:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return None


def _defect_texts(d: Defect) -> Iterator[tuple[str, str]]:
    for field in ("titles", "symptoms", "steps", "logs"):
        for text in getattr(d, field):
            yield field, text


def _part_texts(parts: Parts) -> Iterator[tuple[str, str]]:
    for s in parts.surfaces:
        for text in (s.feature, s.action, *s.steps, s.detail):
            yield f"surface '{s.id}'", text
    for f in parts.failures:
        yield f"failure '{f.id}'", f.says
        yield f"failure '{f.id}'", f.short
        for text in (f.observe, f.retold_observe or ""):
            yield f"failure '{f.id}'", text
    for c in parts.conditions:
        for text in (c.when, c.who, c.step):
            yield f"condition '{c.id}'", text
    for loss in parts.losses:
        yield f"loss '{loss.id}'", loss.says
    t = parts.templates
    for text in (*t.titles, *t.symptoms):  # display templates say the job still gets done
        yield "templates", text


def stray_ways_round(defects: list[Defect]) -> list[str]:
    """Every title, symptom, step or log line of `defects` that tells a way round."""
    found = []
    for d in defects:
        for field, text in _defect_texts(d):
            hit = way_round(text)
            if hit:
                found.append(f"{d.id} {field}: {hit!r} in {text[:120]!r}")
    return found


def test_no_defect_wording_tells_a_way_round() -> None:
    assert stray_ways_round(load_catalogue().defects) == []


@pytest.mark.parametrize("partition", ["train", "validation", "test"])
def test_no_part_wording_tells_a_way_round(partition: Partition) -> None:
    found = []
    for where, text in _part_texts(load_parts(partition)):
        hit = way_round(text)
        if hit:
            found.append(f"{where}: {hit!r} in {text!r}")
    assert found == []


@pytest.mark.parametrize(
    ("field", "text"),
    [
        (
            "symptoms",
            "As soon as the title contains an emoji the Save button turns grey. Deleting the emoji enables it again.",
        ),
        ("symptoms", "The form refuses to create the task, and the same title without the rocket saves at once."),
        (
            "symptoms",
            "Creating a task fails whenever the name has an emoji in it. The same title works on the web and on iPhone.",
        ),
        (
            "symptoms",
            "On my phone I can't add those tasks because the button goes pale. Without the symbol it goes through.",
        ),
        ("symptoms", "Every sentence has to be fixed by hand before I can move on."),
        ("symptoms", "i cant save any change to a task on my samsung. on my computer it works"),
        ("symptoms", "Personal tokens are refused with 401 on every endpoint, while OAuth app tokens still work."),
        ("symptoms", "The key finds nothing, so they scroll through the board to find the task instead."),
        ("titles", "Android won't save emoji titles, my iPad and the website are fine"),
        ("steps", "Remove the mention and see that it lets it save again"),
        ("logs", "11-21 10:02:19 D NewTaskFragment: save enabled=false\nQA note: the same title works on the web"),
    ],
)
def test_a_planted_way_round_is_found(field: str, text: str) -> None:
    d = load_catalogue().defects[0]
    planted = d.model_copy(update={field: [*getattr(d, field), text]})
    found = stray_ways_round([planted])
    assert len(found) == 1 and found[0].startswith(f"{d.id} {field}:"), found


@pytest.mark.parametrize(
    "symptom",
    [
        "It works for other workspaces; only ours is hit.",
        "It fails on the web and in the iPhone app alike.",
        "The editor shows 'Save failed' instead of saving the document.",
        "Typing in the editor lags by seconds in long documents.",
    ],
)
def test_scope_and_plain_failures_are_not_taken_for_a_way_round(symptom: str) -> None:
    assert way_round(symptom) is None


OWN_VERSION = re.compile(
    r"\b(?:app\s+)?version\s+\d+\.\d+|\b\d{1,2}\.\d{1,2}(?:\.\d{1,2})?\s+(?:release|update|build)\b", re.IGNORECASE
)
"""An app version a report's prose names ("since app version 5.14.0", "the 5.15 release")."""


def test_no_defect_prose_names_an_app_version() -> None:
    """A title or symptom that names an app version would name it in every queue, whatever its release
    calendar (in January, "the 5.15 release" is months away): the ticket's `version` field and the rendered
    text name the build, from the queue's calendar."""
    found = [
        f"{d.id}: {text[:100]!r}"
        for d in load_catalogue().defects
        for text in (*d.titles, *d.symptoms)
        if OWN_VERSION.search(text)
    ]
    assert not found, found


@pytest.mark.parametrize("text", ["It started with the 5.15 release.", "Since app version 5.14.0 it fails."])
def test_a_planted_app_version_is_found(text: str) -> None:
    assert OWN_VERSION.search(text)


def test_a_story_names_no_plan_its_reporter_may_already_be_on() -> None:
    """A report that is no defect may come from a customer on any plan: none says it is evaluating, or would move
    onto, "the enterprise plan" (found by a blind reader on an enterprise customer's ticket)."""
    plan = re.compile(r"\bthe (?:free|pro|enterprise) plan\b", re.I)
    c = load_catalogue()
    told = [(s.id, t) for s in (*c.features, *c.invalid, *c.vague) for t in s.texts if plan.search(t)]
    assert not told, told


def test_every_story_offers_a_subject_as_long_as_a_bugs() -> None:
    """A request, an invalid or a vague report may be titled at length as a bug is ("Paying in rupees would spare us
    a foreign exchange fee every month"): with subjects of four to six words only, a subject's word count told a
    surface tree which tickets are not bugs (the decision-tree audit's disposition gain)."""
    cat = load_catalogue()
    short = [s.id for s in (*cat.features, *cat.invalid, *cat.vague) if max(len(t.split()) for t in s.titles) < 8]
    assert not short, short
