"""The live levels' generator: replies, the tracker's history, reports of earlier tickets, arrivals,
and the loader's refusals of a live queue that breaks them."""

from __future__ import annotations

import itertools
from datetime import timedelta
from functools import cache

import pytest

from openenv_bug_triage.catalogue import load_phrases
from openenv_bug_triage.errors import FixtureError
from openenv_bug_triage.generator import GeneratedTask, derive_truth, generate, level_of
from openenv_bug_triage.models import TaskFixture, TicketRecord
from openenv_bug_triage.tasks import build_task
from openenv_bug_triage.world import load_world

LIVE = ("generated_live_hard", "generated_live_expert")
CASES = [(level, split, seed) for level in LIVE for split in ("train", "test") for seed in range(3)]


@cache
def made(level: str, split: str, seed: int) -> GeneratedTask:
    return generate(level, seed, split)


def fixture_of(m: GeneratedTask) -> TaskFixture:
    """The fixture a generated task was built from (its records are its tickets with their truth)."""
    task = m.task
    fields = [name for name in TicketRecord.model_fields if name != "truth"]
    records = [
        TicketRecord(**{name: getattr(t, name) for name in fields}, truth=task.truth[t.ticket_id]) for t in task.tickets
    ]
    return TaskFixture(
        task_id=task.task_id,
        difficulty=task.difficulty,
        description=task.description,
        step_budget=task.step_budget,
        sla_policy=level_of(task.task_id).sla_policy,
        tickets=records,
        releases=list(task.releases),
        live=task.live,
    )


@pytest.mark.parametrize("level", LIVE)
def test_same_seed_same_live_queue(level: str) -> None:
    a, b = generate(level, 5, "validation"), generate(level, 5, "validation")
    assert a.task.live is not None and b.task.live is not None
    assert a.task.live.model_dump_json() == b.task.live.model_dump_json()
    assert a.task.live.model_dump_json() != generate(level, 6, "validation").task.live.model_dump_json()  # type: ignore[union-attr]


@pytest.mark.parametrize(("level", "split", "seed"), CASES)
def test_the_live_queue_has_what_its_level_asks(level: str, split: str, seed: int) -> None:
    m = made(level, split, seed)
    live, dyn = m.task.live, level_of(level).dynamics
    assert live is not None and dyn is not None
    vague = {tid for tid, t in m.task.truth.items() if t.disposition == "needs_info"}
    reporters = {t.ticket_id for t in m.task.tickets if t.reporter_type != "monitoring"}
    assert set(live.replies) == reporters and len(vague) >= 2  # every reporter answers: a reply tells nothing
    assert {tid for tid, reply in live.replies.items() if reply.settles} == vague
    backlog = {e.ticket_id: e for e in live.backlog}
    of_backlog = [tid for tid, t in m.task.truth.items() if t.duplicate_of in backlog]
    assert len(of_backlog) == dyn.backlog_duplicates
    assert 0.8 * dyn.backlog <= len(live.backlog) <= dyn.backlog
    assert 1 <= len(live.arrivals) <= dyn.arrivals
    assert max(live.arrivals.values()) <= 0.7 * m.task.step_budget


@pytest.mark.parametrize(("level", "split", "seed"), CASES)
def test_a_reply_truth_is_the_rules_applied_to_what_the_reply_tells(level: str, split: str, seed: int) -> None:
    m = made(level, split, seed)
    assert m.task.live is not None
    world = load_world()
    for tid, reply in m.task.live.replies.items():
        if reply.truth is None:  # a reporter whose ticket needs nothing more: their reply settles nothing
            assert not reply.settles and "repro" not in reply.has
            continue
        facts, ticket = m.replied[tid], m.task.by_id[tid]
        assert (facts.kind, facts.tier, facts.environment) == ("defect", ticket.customer_tier, ticket.environment)
        assert reply.truth == derive_truth(facts, world)
        assert reply.truth.disposition == "fix" and reply.settles == ["repro"]
        assert facts.component == reply.truth.true_component
        # a customer speaks for their own workspace: how far past it a defect reaches is support's to say
        assert (reply.support is not None) == (facts.scope in ("everyone", "segment"))
        assert "repro" in reply.has and ("logs" in reply.has) == (reply.log_excerpt is not None)
        assert reply.delay is None or 1 <= reply.delay <= 16


@pytest.mark.parametrize(("level", "split", "seed"), CASES)
def test_reports_of_earlier_tracker_tickets_point_at_open_ones_no_hint_names(level: str, split: str, seed: int) -> None:
    m = made(level, split, seed)
    assert m.task.live is not None
    backlog = {e.ticket_id: e for e in m.task.live.backlog}
    for tid, truth in m.task.truth.items():
        original = backlog.get(truth.duplicate_of or "")
        if original is None:
            continue
        ticket = m.task.by_id[tid]
        assert original.status == "open" and original.created_at < ticket.created_at
        assert original.component == m.facts[tid].component
        assert original.ticket_id not in ticket.suspected_duplicate_ids
        assert original.summary not in ticket.description and original.title != ticket.title


@pytest.mark.parametrize(("level", "split", "seed"), CASES)
def test_history_before_the_start_and_arrivals_filed_as_they_show(level: str, split: str, seed: int) -> None:
    m = made(level, split, seed)
    live = m.task.live
    assert live is not None
    assert all(e.updated_at < live.start for e in live.backlog)
    releases = {(r.platform, r.version): r for r in m.task.releases}
    fixed = [e for e in live.backlog if e.fixed_in is not None]
    assert fixed and all(any(v == e.fixed_in for _, v in releases) for e in fixed)
    step = timedelta(minutes=live.step_minutes)
    for t in m.task.tickets:
        at = live.arrivals.get(t.ticket_id)
        if at is None:
            assert t.created_at < live.start
        else:
            assert live.start + (at - 1) * step <= t.created_at <= live.start + at * step


def test_the_reply_pools_keep_the_partitions_apart() -> None:
    phrases = load_phrases()
    for name in [n for n in phrases.pools if n.startswith("reply_")]:
        seen = [set(phrases.pool(name, p)) for p in ("train", "validation", "test")]
        assert not (seen[0] & seen[1] or seen[0] & seen[2] or seen[1] & seen[2]), name


def _planted(fx: TaskFixture, case: str) -> TaskFixture:
    """`fx` with one thing of its live queue broken."""
    live = fx.live
    assert live is not None
    vague = next(tid for tid, reply in live.replies.items() if reply.settles)
    fix = next(r.ticket_id for r in fx.tickets if r.truth.disposition == "fix" and r.reporter_type != "monitoring")
    alert = next(r.ticket_id for r in fx.tickets if r.reporter_type == "monitoring")
    backlog = {e.ticket_id: e for e in live.backlog}
    report = next(r for r in fx.tickets if r.truth.duplicate_of in backlog)
    arriving = next(iter(live.arrivals))
    if case == "reply_on_a_bug":
        return fx.model_copy(
            update={"live": live.model_copy(update={"replies": {**live.replies, fix: live.replies[vague]}})}
        )
    if case == "reply_from_an_alert":
        return fx.model_copy(
            update={"live": live.model_copy(update={"replies": {**live.replies, alert: live.replies[fix]}})}
        )
    if case == "vague_without_reply":
        replies = {k: v for k, v in live.replies.items() if k != vague}
        return fx.model_copy(update={"live": live.model_copy(update={"replies": replies})})
    if case == "reply_priority":
        reply = live.replies[vague]
        assert reply.truth is not None
        wrong = "p3" if reply.truth.true_priority != "p3" else "p0"
        bad = reply.model_copy(update={"truth": reply.truth.model_copy(update={"true_priority": wrong})})
        return fx.model_copy(update={"live": live.model_copy(update={"replies": {**live.replies, vague: bad}})})
    if case == "closed_original":
        original = backlog[str(report.truth.duplicate_of)]
        closed = original.model_copy(update={"status": "closed", "resolution": "cannot_reproduce"})
        entries = [closed if e is original else e for e in live.backlog]
        return fx.model_copy(update={"live": live.model_copy(update={"backlog": entries})})
    if case == "backlog_id_in_queue":  # an entry no report is a duplicate of, so the rename is the one slip
        named = {str(r.truth.duplicate_of) for r in fx.tickets}
        renamed = next(e for e in live.backlog if e.ticket_id not in named)
        entries = [e.model_copy(update={"ticket_id": fix}) if e is renamed else e for e in live.backlog]
        return fx.model_copy(update={"live": live.model_copy(update={"backlog": entries})})
    if case == "backlog_after_start":
        later = live.backlog[0].model_copy(update={"updated_at": live.start + timedelta(days=1)})
        return fx.model_copy(update={"live": live.model_copy(update={"backlog": [later, *live.backlog[1:]]})})
    if case == "arrival_unknown":
        return fx.model_copy(update={"live": live.model_copy(update={"arrivals": {**live.arrivals, "LRK-0": 3}})})
    if case == "arrival_late":
        moved = {**live.arrivals, arriving: live.arrivals[arriving] + 5}
        return fx.model_copy(update={"live": live.model_copy(update={"arrivals": moved})})
    raise AssertionError(case)


REFUSALS = {
    "reply_on_a_bug": "only a needs_info ticket's reply settles it",
    "reply_from_an_alert": "an alert has no reporter",
    "vague_without_reply": "needs one",
    "reply_priority": "live.replies.truth",
    "closed_original": "must be an open tracker ticket filed before it",
    "backlog_id_in_queue": "also a queue ticket",
    "backlog_after_start": "before the start",
    "arrival_unknown": "names no ticket",
    "arrival_late": "arriving at step",
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_the_loader_refuses_a_broken_live_queue(case: str) -> None:
    fx = fixture_of(made("generated_live_hard", "train", 0))
    build_task(fx)  # the fixture as generated loads
    with pytest.raises(FixtureError, match=REFUSALS[case]):
        build_task(_planted(fx, case))


@pytest.mark.parametrize("level", LIVE)
@pytest.mark.parametrize("split", ["train", "validation", "test"])
def test_a_live_queue_holds_none_of_the_static_queues_contradictions(level: str, split: str) -> None:
    """The world checks of the static levels (`test_world.TICKET_CHECKS`) hold for a live queue too, whose
    comments move earlier to fit the arrivals ("again after lunch" is worded anew if it lands at 03:00)."""
    from test_world import TICKET_CHECKS

    found = [
        f"{kind}: {t.ticket_id} of seed {seed}"
        for seed in range(6)
        for m in [made(level, split, seed)]
        for t in m.task.tickets
        for kind, check in TICKET_CHECKS.items()
        if check(t, m.facts[t.ticket_id], tuple(m.task.releases))
    ]
    assert not found, found


def test_a_customers_reply_names_only_their_own_organisations_addresses() -> None:
    """A reply told from a catalogue defect carries the writer's own addresses and domain, as their ticket
    does, never the catalogue's example organisation's ("anna.berg@eu.norrfield.com"). Replies that name an
    address are rare (about one a queue at most), so the check runs over both live levels together."""
    import re

    from test_people import _domains, _foreign

    from openenv_bug_triage.models import ReporterReply

    address = re.compile(r"[\w.+'*-]+@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
    named = 0
    for level, split, seed in itertools.product(LIVE, ("train", "validation", "test"), range(12)):
        m = made(level, split, seed)
        assert m.task.live is not None
        for tid, reply in m.task.live.replies.items():
            org = m.facts[tid].organisation
            if org is None or not isinstance(reply, ReporterReply):
                continue
            text = "\n".join([*reply.has.values(), reply.log_excerpt or ""])
            for found in address.finditer(text):
                named += 1
                assert not _foreign(found["domain"], _domains()[org]), (tid, found[0])
    assert named > 0
