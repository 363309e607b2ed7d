"""Defects composed from parts: coherent, partitioned, their truth by the rules, their deciding facts visible."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from openenv_bug_triage import rules
from openenv_bug_triage.catalogue import Defect, load_catalogue
from openenv_bug_triage.generator import compose, derive_truth, generate, scope_options
from openenv_bug_triage.generator.facts import PLATFORM_OF
from openenv_bug_triage.rules import DRAWS_ITS_OWN
from openenv_bug_triage.world import DATA_DIR, load_world

SPLITS = ("train", "validation", "test")


def _all(partition: str) -> list[Defect]:
    return [compose.composed(partition, k) for k in compose.compositions(partition)]  # type: ignore[arg-type]


def _texts(raw: object) -> set[str]:
    """Every string in a parsed parts file."""
    if isinstance(raw, str):
        return {raw}
    if isinstance(raw, dict):
        return {t for v in raw.values() for t in _texts(v)}
    if isinstance(raw, list):
        return {t for v in raw for t in _texts(v)}
    return set()


def test_parts_are_never_shared_between_partitions() -> None:
    raw = {p: json.loads((DATA_DIR / "generator" / "parts" / f"{p}.json").read_text()) for p in SPLITS}
    for a, b in (("train", "validation"), ("train", "test"), ("validation", "test")):
        ids = {(g, part["id"]) for g in ("surfaces", "failures", "conditions", "losses") for part in raw[a][g]}
        assert not ids & {
            (g, part["id"]) for g in ("surfaces", "failures", "conditions", "losses") for part in raw[b][g]
        }
        shared = {t for t in _texts(raw[a]) & _texts(raw[b]) if len(t.split()) >= 4}
        assert not shared, (a, b, sorted(shared)[:3])
    for partition in SPLITS:  # nor with another partition's hand-written defects
        others = {
            t.lower()
            for d in load_catalogue().defects
            if d.partition != partition
            for t in (*d.titles, *d.symptoms, *d.steps, *d.workaround, *d.segment, d.feature)
        }
        assert not {t for t in _texts(raw[partition]) if t.lower() in others}, partition


@pytest.mark.parametrize("partition", SPLITS)
def test_each_partition_composes_many_distinct_defects_beyond_its_catalogue(partition: str) -> None:
    made = _all(partition)
    hand_written = sum(d.partition == partition for d in load_catalogue().defects)
    assert len({d.id for d in made}) == len(made) >= 3 * hand_written
    assert len({d.symptoms[0] for d in made}) == len(made)  # distinct in what a reader sees
    assert {d.impact for d in made} == {"critical", "core", "minor", "cosmetic"}
    assert all(d.partition == partition and compose.named(d.id) == d for d in made)


@pytest.mark.parametrize("partition", SPLITS)
def test_a_composed_defect_is_coherent(partition: str) -> None:
    """Component from the surface (a display glitch: where it is drawn; a failure whose evidence names a
    component's check: that component); a platform only on its own client; one who-is-hit; a failure
    rate only where the defect can hit everyone; data lost only where something was entered."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    owner = load_world().owner
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        si, fi, ci, li = key
        s, f = parts.surfaces[si], parts.failures[fi]
        c = None if ci is None else parts.conditions[ci]
        d = compose.composed(partition, key)  # type: ignore[arg-type]
        drawn = f.effect == "display" and s.component not in DRAWS_ITS_OWN
        assert d.component == (f.routes or ("web-ui" if drawn else s.component)) and s.component in owner, d.id
        if c is not None and c.platform is not None:
            assert PLATFORM_OF[s.component] == c.platform and (f.routes is None or d.component == f.routes), d.id
        assert d.global_ == (c is None and s.reaches is None), d.id
        assert d.segment == ([c.who] if c else [s.reaches] if s.reaches else []), d.id
        assert not d.global_ or s.server, d.id
        assert li is None or (s.object is not None and f.effect == "blocks"), d.id
        assert scope_options(d) or d.impact == "cosmetic", d.id
        assert len(set(d.titles)) == len(d.titles) and len(set(d.symptoms)) == len(d.symptoms), d.id


@pytest.mark.parametrize("partition", SPLITS)
def test_the_deciding_parts_show_in_every_wording(partition: str) -> None:
    """Whatever symptom a ticket uses (and its first sentence alone, for a terse writer), the failure,
    the condition and any data lost are in it, and a display glitch says the data is intact."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        si, fi, ci, li = key
        s, f = parts.surfaces[si], parts.failures[fi]
        d = compose.composed(partition, key)  # type: ignore[arg-type]
        for symptom in d.symptoms:
            first = symptom.split(". ")[0]
            action = compose.action_of(s, None if ci is None else parts.conditions[ci])
            says = compose.worded(f.says, key, d.symptoms.index(symptom)).replace("{code}", compose.code_of(key))
            assert says in first and (action in first or s.feature.lower() in first.lower()), (d.id, symptom)
            if ci is not None:
                assert compose.worded(parts.conditions[ci].when, key) in first, (d.id, symptom)
            if li is not None:
                loss = parts.losses[li].says.format(object=s.object)
                assert loss in symptom, (d.id, symptom)
            else:
                assert not any(x.says.split("{")[0] in symptom for x in parts.losses), (d.id, symptom)


def test_impact_follows_the_handbook_reading_of_the_parts() -> None:
    parts = compose.load_parts("train")
    blocks = next(f for f in parts.failures if f.effect == "blocks")
    display = next(f for f in parts.failures if f.effect == "display")
    core = next(s for s in parts.surfaces if s.core and s.object)
    other = next(s for s in parts.surfaces if not s.core)
    loss = parts.losses[0]
    assert compose.impact_of(core, blocks, None) == "core"
    assert compose.impact_of(core, blocks, loss) == "critical"
    assert compose.impact_of(other, blocks, None) == "minor"
    assert compose.impact_of(core, display, None) == "cosmetic"
    assert not compose.fits(core, display, None, loss)


def test_composed_defects_in_queues_get_their_truth_by_the_rules_and_show_their_facts() -> None:
    world = load_world()
    per_level: Counter[str] = Counter()
    fixes: Counter[str] = Counter()
    for level in ("generated_medium", "generated_hard", "generated_expert"):
        for split in SPLITS:
            for seed in range(6):
                made = generate(level, seed, split)
                surfaces: Counter[str] = Counter()
                for t in made.task.tickets:
                    facts, truth = made.facts[t.ticket_id], made.task.truth[t.ticket_id]
                    d = compose.named(facts.scenario)
                    if d is None:
                        continue
                    assert d.partition == split
                    assert truth == derive_truth(facts, world)
                    assert truth.true_component == d.component and truth.true_assignee_team == world.owner[d.component]
                    if facts.case is None and facts.kind == "defect" and facts.duplicate_of is None:
                        severity = rules.severity_for(d.impact, facts.scope, facts.environment)
                        assert truth.true_severity == severity
                        surfaces[d.id.split("--")[0]] += 1
                        per_level[level] += 1
                    text = f"{t.title}\n{t.description}\n{t.log_excerpt or ''}"
                    text += "".join(f"\n{c.text}" for c in t.comments)  # support's note on who else is hit
                    assert all(sentence in text for _, sentence in facts.evidence)
                fixes[level] += sum(f.kind == "defect" and f.duplicate_of is None for f in made.facts.values())
                assert max(surfaces.values(), default=0) <= 1  # one composed defect per surface per queue
    for level in per_level:
        assert 0.1 <= per_level[level] / fixes[level] <= 0.6, (level, per_level[level], fixes[level])
    assert not any(compose.named(f.scenario) for s in range(6) for f in generate("generated_easy", s).facts.values())


def test_a_display_glitch_support_answers_is_told_without_a_word_on_the_data_and_support_says_it_checked() -> None:
    """A customer whom support answers tells only the glitch; support's check of the data is the deciding fact,
    in a comment; a customer whom support does not answer says the data is intact themselves."""
    from openenv_bug_triage.catalogue import load_phrases
    from openenv_bug_triage.generator.phrasing import variants

    pool = load_phrases().pools["support_checked"]
    checks = {v for p in SPLITS for frame in pool.of(p) for v in variants(frame)}
    checked = told = 0
    for level in ("generated_hard", "generated_expert"):
        for split in SPLITS:
            for seed in range(12):
                made = generate(level, seed, split)
                for t in made.task.tickets:
                    facts = made.facts[t.ticket_id]
                    d = compose.named(facts.scenario)
                    if d is None or not d.unchecked or t.reporter_type != "user":
                        continue
                    notes = [c.text for c in t.comments if c.role == "support" and c.text in checks]
                    intact = [text for rule, text in facts.evidence if rule == "intact"]
                    assert notes == intact, t.ticket_id
                    assert made.task.truth[t.ticket_id].true_severity in ("sev3", "sev2")
                    if notes:  # (an unchecked wording may be the start of a checked one: "... {says}. It still works.")
                        checked += 1
                        assert not any(s in t.description for s in d.symptoms), t.ticket_id
                    else:
                        told += 1
    assert checked >= 5 and told >= 5, (checked, told)


@pytest.mark.parametrize("partition", SPLITS)
def test_the_last_step_says_what_to_look_at_not_the_title_again(partition: str) -> None:
    """Realism reader 51: "Notice that it misaligns the avatar" restated the title; a last step ends with what the
    reporter looks at or the output they saw, in their own words."""
    shorts = {f.short.split("{")[0].strip() for f in compose.load_parts(partition).failures}  # type: ignore[arg-type]
    for d in _all(partition):
        for steps in (d.steps, d.retold_steps):
            if steps:
                assert not any(short and short in steps[-1] for short in shorts), (d.id, steps[-1])
                assert not any(title.lower() in steps[-1].lower() for title in d.titles), (d.id, steps[-1])


def test_drawing_is_seeded_and_avoids_used_surfaces() -> None:
    a = [compose.draw("test", random.Random(5), set()).id for _ in range(3)]
    assert a == [compose.draw("test", random.Random(5), set()).id for _ in range(3)]
    avoid: set[str] = set()
    drawn = [compose.draw("test", random.Random(9), avoid) for _ in range(len(compose.load_parts("test").surfaces))]
    assert len({d.id.split("--")[0] for d in drawn}) == len(drawn)
    with pytest.raises(ValueError, match="add surfaces"):
        compose.draw("test", random.Random(9), avoid)
    assert compose.named("train-no-such--x--all--kept") is None and compose.named("web-ui-new-task") is None


@pytest.mark.parametrize("partition", SPLITS)
def test_every_title_and_symptom_template_names_the_surface(partition: str) -> None:
    """A terse writer may send only the title: it must still say what broke (`{feature}`, `{in_feature}` or
    `{action}`)."""
    templates = compose.load_parts(partition).templates  # type: ignore[arg-type]
    wordings = (*templates.titles, *templates.display_titles, *templates.symptoms, *templates.message_symptoms)
    for wording in (*wordings, *templates.display_symptoms):
        assert any(f"{{{field}}}" in wording for field in ("feature", "in_feature", "action")), (partition, wording)


@pytest.mark.parametrize("partition", SPLITS)
def test_what_comes_to_the_writer_is_never_told_as_their_try(partition: str) -> None:
    """An email or a webhook comes to the writer: no "Whenever we get a push reminder, no reminder shows up", nor
    "each time I try to get an email"."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    told = 0
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        if parts.surfaces[key[0]].kind != "message":
            continue
        d = compose.composed(partition, key)  # type: ignore[arg-type]
        action = parts.surfaces[key[0]].action
        for symptom in d.symptoms:
            told += 1
            assert not re.search(
                rf"\b(?:[Ww]henever we|try to|[Aa]ttempt to|[Tt]rying to) {re.escape(action)}", symptom
            )
    assert told


@pytest.mark.parametrize("partition", SPLITS)
def test_evidence_the_handbook_routes_to_the_gateway_is_composed_only_there(partition: str) -> None:
    """Rate limiting and a 502 at the edge are `api-gateway` by the handbook, whatever the surface."""
    edge = re.compile(r"\b(?:429|502)\b|rate.limit|Bad Gateway", re.IGNORECASE)
    for d in _all(partition):
        if d.component != "api-gateway":
            texts = [*d.titles, *d.symptoms, *d.logs]
            assert not any(edge.search(t) for t in texts), (d.id, [t for t in texts if edge.search(t)])


@pytest.mark.parametrize("partition", ["validation", "test"])
def test_a_display_glitch_is_never_composed_on_a_machine_interface(partition: str) -> None:
    """An API or a webhook has no screen: "the text switches to a serif font" cannot happen there."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    headless = [i for i, s in enumerate(parts.surfaces) if not s.screen]
    display = [i for i, f in enumerate(parts.failures) if f.effect == "display"]
    assert headless and display  # the partition has both, so the check below can fail
    for si, fi, _, _ in compose.compositions(partition):  # type: ignore[arg-type]
        assert not (si in headless and fi in display), (parts.surfaces[si].id, parts.failures[fi].id)
    s, f = parts.surfaces[headless[0]], parts.failures[display[0]]
    assert not compose.fits(s, f, None, None)
    on_a_page = s.model_copy(update={"kind": f.surfaces[0]})  # only the screen, not the kind, keeps them apart
    assert not compose.fits(on_a_page, f, None, None)
    assert compose.fits(on_a_page.model_copy(update={"screen": True}), f, None, None)


@pytest.mark.parametrize("partition", SPLITS)
def test_a_failure_is_composed_only_on_the_kinds_of_surface_it_can_show_on(partition: str) -> None:
    """ "The page says the request could not be completed" needs a web page; "nothing arrives" an email."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    for si, fi, _, _ in compose.compositions(partition):  # type: ignore[arg-type]
        assert parts.surfaces[si].kind in parts.failures[fi].surfaces, (parts.surfaces[si].id, parts.failures[fi].id)
    message = next(s for s in parts.surfaces if s.kind == "message")
    page = next(f for f in parts.failures if f.effect == "blocks" and "message" not in f.surfaces)
    assert not compose.fits(message, page, None, None)
    assert compose.fits(message.model_copy(update={"kind": page.surfaces[0]}), page, None, None)


def test_a_403_from_a_permission_policy_is_a_permissions_defect_on_any_surface() -> None:
    """The handbook routes by the evidence: a 403 that a permission policy returns, even for the
    workspace owner, is `permissions` whether it shows on a table, a preview or a checkout."""
    parts = compose.load_parts("test")
    keys = [k for k in compose.compositions("test") if parts.failures[k[1]].id == "http-403"]
    surfaces = {parts.surfaces[k[0]].component for k in keys}
    assert len(surfaces) >= 3 and "permissions" not in surfaces
    assert {compose.composed("test", k).component for k in keys} == {"permissions"}
    assert all(parts.surfaces[k[0]].kind != "signin" for k in keys)  # a 403 at sign-in would read as sso


@pytest.mark.parametrize("partition", SPLITS)
def test_an_error_number_belongs_to_one_surface(partition: str) -> None:
    """A failure that shows an error number shows another one on each surface it is composed with, so two
    unrelated defects do not share "code 5012"."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    codes: dict[str, set[int]] = {}
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        d = compose.composed(partition, key)  # type: ignore[arg-type]
        if "{code}" in parts.failures[key[1]].says:
            assert compose.code_of(key) in d.symptoms[0] and "{code}" not in " ".join(d.symptoms + d.logs), d.id
            codes.setdefault(compose.code_of(key), set()).add(key[0])
    assert all(len(surfaces) == 1 for surfaces in codes.values()), codes


def test_a_condition_is_never_composed_with_a_surface_it_cannot_meet() -> None:
    """A trial organisation renews no annual subscription: `unfit` keeps the two apart, and names surfaces only."""
    parts = compose.load_parts("test")
    named = [(c, s) for c in parts.conditions for s in parts.surfaces if s.id in c.unfit]
    assert named  # the test partition's trial organisation and its renewal
    for si, _, ci, _ in compose.compositions("test"):
        assert ci is None or parts.surfaces[si].id not in parts.conditions[ci].unfit
    raw = parts.model_dump()
    raw["conditions"][0]["unfit"] = ["no-such-surface"]
    with pytest.raises(ValueError, match="unfit surfaces"):
        compose.Parts.model_validate(raw)


def test_a_surface_only_some_plans_use_is_reported_by_their_customers_alone() -> None:
    """A card upgrade to Enterprise is a Pro customer's: its defects carry `tiers` ["pro"], with or without a
    condition, and a condition whose plans share none with the surface's is never composed with it."""
    parts = compose.load_parts("train")
    checkout = next(s for s in parts.surfaces if s.tiers)
    keys = [k for k in compose.compositions("train") if parts.surfaces[k[0]].id == checkout.id]
    assert keys and any(k[2] is None for k in keys) and any(k[2] is not None for k in keys)
    assert {tuple(compose.composed("train", k).tiers) for k in keys} == {tuple(checkout.tiers)}
    failure = next(f for f in parts.failures if f.effect == "blocks" and checkout.kind in f.surfaces)
    anyone = next(c for c in parts.conditions if c.platform is None and not c.unfit)
    assert compose.fits(checkout, failure, anyone, None)
    assert not compose.fits(checkout, failure, anyone.model_copy(update={"tiers": ["enterprise"]}), None)
    assert compose.fits(checkout, failure, anyone.model_copy(update={"tiers": ["pro", "enterprise"]}), None)


@pytest.mark.parametrize("partition", ["train", "validation", "test"])
def test_an_error_that_tells_of_a_wait_is_logged_after_it(partition: str) -> None:
    """A composed log's error that tells of a wait ("held open 300 s", "timed out after 60000 ms") comes at
    least that long after the request it answers, never a second later."""
    from datetime import datetime

    told = 0
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        # the request and its error, among the service's routine lines
        lines = compose.composed(partition, key).logs[0].split("\n")  # type: ignore[arg-type]
        error = next((line for line in lines if " ERROR " in line), None)
        if error is None:  # a display glitch logs none
            continue
        asked = compose.load_parts(partition).surfaces[key[0]].request  # type: ignore[arg-type]
        request = next(line for line in reversed(lines[: lines.index(error)]) if asked in line)
        waited = compose.waited_seconds(error)
        gap = datetime.fromisoformat(error.split(" ")[0]) - datetime.fromisoformat(request.split(" ")[0])
        assert gap.total_seconds() >= waited, (key, request, error)
        told += waited > 0
    assert told, "no composed failure of this partition tells of a wait"


def test_a_success_shown_for_what_was_entered_and_not_kept_is_data_lost() -> None:
    """'A tick shows as if it worked, but opening it again shows nothing was done' on a table cell the customer typed
    into is the handbook's data taken and lost (critical); on a renewal, where nothing was entered, it blocks."""
    parts = compose.load_parts("test")
    ghost = next(f for f in parts.failures if f.takes)
    entered = next(s for s in parts.surfaces if s.object is not None and s.kind in ghost.surfaces)
    nothing = next(s for s in parts.surfaces if s.object is None and s.kind in ghost.surfaces)
    assert compose.impact_of(entered, ghost, None) == "critical"
    assert compose.impact_of(nothing, ghost, None) in ("core", "minor")
    plain = next(f for f in parts.failures if not f.takes and f.effect == "blocks" and entered.kind in f.surfaces)
    assert compose.impact_of(entered, plain, None) in ("core", "minor")


@pytest.mark.parametrize("partition", SPLITS)
def test_a_failure_that_gives_no_sign_whether_it_took_is_never_composed_where_something_is_entered(
    partition: str,
) -> None:
    """ "The button flashes once and then nothing else happens" on a document's save reads as the handbook's "took
    and then lost, even when the action looked as if it did nothing" (data lost), while its truth would say the
    save is blocked: such a failure is composed only where nothing is entered (a sign-in, a download)."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    for si, fi, _, _ in compose.compositions(partition):  # type: ignore[arg-type]
        assert not (parts.failures[fi].silent and parts.surfaces[si].object is not None), (
            parts.surfaces[si].id,
            parts.failures[fi].id,
        )
    train = compose.load_parts("train")
    dead = next(f for f in train.failures if f.silent)
    entered = next(s for s in train.surfaces if s.object is not None and s.kind in dead.surfaces)
    assert not compose.fits(entered, dead, None, None)
    assert compose.fits(entered, dead.model_copy(update={"silent": False}), None, None)


@pytest.mark.parametrize("partition", SPLITS)
def test_a_change_refused_in_plain_sight_loses_nothing(partition: str) -> None:
    """A 403, an error banner or a value that snaps back tells the customer the change did not take: the handbook
    rates it as the workflow it blocks, so no such failure is composed with what was entered being lost."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    refused = [f for f in parts.failures if f.refused]
    assert refused, f"{partition}: no failure refuses in plain sight"
    losses = [k for k in compose.compositions(partition) if k[3] is not None]  # type: ignore[arg-type]
    assert losses, f"{partition}: no composition loses data"
    for si, fi, _, _ in losses:
        assert not parts.failures[fi].refused, (parts.surfaces[si].id, parts.failures[fi].id)
    entered = next(s for s in parts.surfaces if s.object is not None and s.kind in refused[0].surfaces)
    assert not compose.fits(entered, refused[0], None, parts.losses[0])


def test_a_surface_that_reaches_one_group_fails_for_that_group_not_everyone() -> None:
    """Okta sign-in failing with no condition is the handbook's "Okta SSO fails for all Okta tenants" (a group,
    sev1 at most): not global, its segment the surface's own group."""
    parts = compose.load_parts("test")
    keys = [k for k in compose.compositions("test") if k[2] is None and parts.surfaces[k[0]].reaches is not None]
    assert keys
    for key in keys:
        d = compose.composed("test", key)
        assert not d.global_ and d.segment, d.id
        assert "everyone" not in scope_options(d), d.id
        if d.impact == "core":  # stated as the group that fails, or with its way round
            assert set(scope_options(d)) == {"segment", "workaround"}, d.id


@pytest.mark.parametrize("partition", SPLITS)
def test_a_composed_log_sets_the_failure_among_routine_lines(partition: str) -> None:
    """Four to eight lines, as a service logs them: routine lines around the request and its one error, a
    warning after it at most (nothing before the error that a reader would take for the fault). A display glitch
    logs no error: the server served the page, and no server log sees what a screen drew (reader 55 met
    "ERROR web-app css: flex baseline mismatch" in support's server logs)."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    drawn = 0
    for key in compose.compositions(partition):  # type: ignore[arg-type]
        lines = compose.composed(partition, key).logs[0].split("\n")  # type: ignore[arg-type]
        assert 4 <= len(lines) <= 8, (key, lines)
        stamps = [line.split(" ")[0] for line in lines]
        assert stamps == sorted(stamps), (key, lines)
        faults = [i for i, line in enumerate(lines) if re.search(r" (?:ERROR|WARN) ", line)]
        if parts.failures[key[1]].effect == "display":
            drawn += 1
            assert not any(" ERROR " in line for line in lines) and len(faults) <= 1, (key, lines)
            assert parts.surfaces[key[0]].request in "\n".join(lines), (key, lines)
        else:
            assert " ERROR " in lines[faults[0]] and len(faults) <= 2, (key, lines)
    assert drawn


def test_webhooks_are_never_said_to_come_from_a_client_library() -> None:
    """The service pushes webhooks to the customer's endpoint: no client library sends or receives them, so a
    library condition is never composed with webhook delivery ("has stopped coming from the Node.js client library")."""
    parts = compose.load_parts("test")
    for si, _, ci, _ in compose.compositions("test"):
        if ci is not None and parts.conditions[ci].platform == "api":
            assert "webhook" not in parts.surfaces[si].id, (parts.surfaces[si].id, parts.conditions[ci].id)


_NEVER = re.compile(r"\b(?:never|stopped)\b", re.I)
"""A failure's short form that says it no longer happens at all ("never arrives", "has stopped coming")."""


@pytest.mark.parametrize("partition", SPLITS)
def test_a_failure_told_as_nothing_getting_through_is_never_a_degraded_service(partition: str) -> None:
    # a title "Has stopped coming" beside "close to 20% of attempts error" makes sev0 and sev1 both readable
    failures = {f.id: f for f in compose.load_parts(partition).failures}
    told_total = [f for f in failures.values() if _NEVER.search(f.short)]
    assert told_total and all(f.total for f in told_total), [f.id for f in told_total if not f.total]
    for d in _all(partition):
        if failures[d.id.split("--")[1]].total:
            assert d.intermittent is False and "degraded" not in scope_options(d), d.id


@pytest.mark.parametrize("partition", SPLITS)
def test_a_failure_that_shows_no_error_is_never_counted_as_a_share_of_errors(partition: str) -> None:
    """ "The autosave check mark comes up, the change is not there" beside "about 14% of our requests have come back
    with an error or not come back at all": a failure that takes the change and keeps nothing, gives no sign, or puts
    the old value back shows no error, so a composed defect of it is never a degraded service."""
    failures = {f.id: f for f in compose.load_parts(partition).failures}
    shown_none = {i for i, f in failures.items() if f.takes or f.silent or (f.refused and not f.error_box)}
    assert shown_none
    seen = 0
    for d in _all(partition):
        if d.id.split("--")[1] in shown_none:
            seen += 1
            assert d.intermittent is False and "degraded" not in scope_options(d), d.id
    assert seen


@pytest.mark.parametrize("partition", SPLITS)
def test_an_action_confirmed_but_not_carried_out_loses_data_only_where_something_was_entered(partition: str) -> None:
    """A failure that says it worked and keeps nothing loses what was entered where something is (a task, a comment):
    sev0. On an action that stores nothing the customer wrote (a renewal, an ownership transfer) the owner or plan
    visibly stays as it was, and the handbook rates it as the workflow it blocks."""
    parts = compose.load_parts(partition)  # type: ignore[arg-type]
    for f in (f for f in parts.failures if f.takes):
        for s in (s for s in parts.surfaces if s.kind in f.surfaces):
            expected = "critical" if s.object is not None else ("core" if s.core else "minor")
            assert compose.impact_of(s, f, None) == expected, (s.id, f.id)


def test_a_change_undone_to_its_old_value_is_never_composed_where_something_new_is_made() -> None:
    """ "Snaps back to the old value" needs a value that was there before: adding a subtask has none (a reader quoted
    "adding a subtask ... snaps back to the old value")."""
    seen = 0
    for partition in SPLITS:
        parts = compose.load_parts(partition)  # type: ignore[arg-type]
        for si, fi, _, _ in compose.compositions(partition):  # type: ignore[arg-type]
            if parts.failures[fi].reverts:
                assert not parts.surfaces[si].creates, (parts.surfaces[si].id, parts.failures[fi].id)
                seen += 1
    assert seen
    parts = compose.load_parts("validation")
    reverts = next(f for f in parts.failures if f.reverts)
    made = next(s for s in parts.surfaces if s.creates and s.kind in reverts.surfaces)
    assert not compose.fits(made, reverts, None, None)
