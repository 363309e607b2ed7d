"""The heuristic reads the tracker's suggested duplicates as hints to check, the way the handbook says."""

from __future__ import annotations

import statistics

from openenv_bug_triage.canaries import FieldsOnlyPolicy, fit_rules, play, training_rows
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.models import Ticket
from openenv_bug_triage.policies import (
    HeuristicPolicy,
    Settlement,
    heuristic_settlement,
    original_of,
    retold,
    same_defect,
)
from openenv_bug_triage.sources import load_task


def hinted_pair() -> tuple[Ticket, Ticket]:
    """A generated ticket and the earlier report the tracker rightly suggests for it (train split)."""
    for seed in range(10):
        task = load_task("generated_medium", seed, "train")
        for t in task.tickets:
            for h in t.suspected_duplicate_ids:
                if task.truth[t.ticket_id].duplicate_of == h and same_defect(t, task.by_id[h]):
                    return t, task.by_id[h]
    raise AssertionError("generated_medium train 0-9 has no checked duplicate suggestion")


def test_a_suggestion_from_another_environment_or_platform_is_not_the_same_defect():
    t, earlier = hinted_pair()
    other_env = "staging" if earlier.environment == "production" else "production"
    assert not same_defect(t, earlier.model_copy(update={"environment": other_env}))
    assert not same_defect(
        t.model_copy(update={"version": "web 2026.1.0"}), earlier.model_copy(update={"version": "iOS app 5.1.0"})
    )
    assert same_defect(t.model_copy(update={"version": None}), earlier.model_copy(update={"version": "iOS app 5.1.0"}))


def test_a_suggestion_about_another_component_is_not_the_same_defect():
    t, earlier = hinted_pair()
    login = earlier.model_copy(
        update={"title": "Cannot log in", "description": "Password sign-in fails.", "log_excerpt": None}
    )
    search = t.model_copy(
        update={"title": "Search misses tasks", "description": "Search results are stale.", "log_excerpt": None}
    )
    assert not same_defect(search, login)
    assert same_defect(search, login.model_copy(update={"description": "Search results are stale too."}))


def test_the_link_goes_to_the_earliest_report_never_to_another_duplicate():
    t, earlier = hinted_pair()
    first = earlier.model_copy(update={"ticket_id": "LRK-1", "created_at": earlier.created_at.replace(year=2000)})
    read = {earlier.ticket_id: earlier, first.ticket_id: first}
    assert original_of(t, read, {earlier.ticket_id: Settlement("fix")}) == earlier.ticket_id
    linked = {earlier.ticket_id: Settlement("duplicate", "LRK-1"), "LRK-1": Settlement("fix")}
    assert original_of(t, read, linked) == "LRK-1"


def test_only_a_suggestion_read_and_settled_as_a_defect_counts():
    t, earlier = hinted_pair()
    read = {earlier.ticket_id: earlier}
    assert original_of(t, {}, {}) is None
    for outcome in ("defer", "needs_info", "close_invalid", "close_resolved"):
        assert original_of(t, read, {earlier.ticket_id: Settlement(outcome)}) is None  # type: ignore[arg-type]
    assert heuristic_settlement(t, read, {earlier.ticket_id: Settlement("fix")}) == Settlement(
        "duplicate", earlier.ticket_id
    )


def retold_pair() -> tuple[Ticket, Ticket]:
    """A generated duplicate the tracker suggests nothing for, and its original, which it re-tells and which passes the
    duplicate check (an alert and a tester's report of one outage may differ in platform: train split)."""
    for seed in range(20):
        task = load_task("generated_medium", seed, "train")
        for t in task.tickets:
            original = task.truth[t.ticket_id].duplicate_of
            earlier = task.by_id[original] if original else None
            if earlier and original not in t.suspected_duplicate_ids and retold(t, earlier) and same_defect(t, earlier):
                return t, earlier
    raise AssertionError("generated_medium train 0-19 has no re-told duplicate without a suggestion")


def test_a_report_read_before_that_it_re_tells_is_its_original_without_a_suggestion():
    t, earlier = retold_pair()
    assert earlier.ticket_id not in t.suspected_duplicate_ids
    read, settled = {earlier.ticket_id: earlier}, {earlier.ticket_id: Settlement("fix")}
    assert original_of(t, read, settled) == earlier.ticket_id
    later = earlier.model_copy(update={"created_at": t.created_at.replace(year=t.created_at.year + 1)})
    assert original_of(t, {earlier.ticket_id: later}, settled) is None, "a later report is never the original"
    other = earlier.model_copy(  # another report altogether: its own words and no log of the same fault
        update={"title": "Cannot log in", "description": "Password sign-in fails.", "log_excerpt": None}
    )
    assert not retold(t, other)
    assert original_of(t, {earlier.ticket_id: other}, settled) is None


def test_a_feature_request_is_never_linked_as_a_duplicate():
    t, earlier = hinted_pair()
    request = t.model_copy(update={"description": t.description + "\nIt would be nice if exports had a PDF option."})
    assert heuristic_settlement(request, {earlier.ticket_id: earlier}, {earlier.ticket_id: Settlement("fix")}) == (
        Settlement("defer")
    )


def test_the_heuristic_opens_each_suggestion_before_it_links_and_links_only_to_reports_it_triaged():
    linked = 0
    for seed in range(10):  # (duplicates tell their own steps: the heuristic finds fewer by their words)
        env, policy = BugTriageEnv(), HeuristicPolicy()
        read_before: set[str] = set()
        for step in start(env, policy, "generated_medium", seed, "validation"):
            action = step.action
            if action["action_type"] == "mark_duplicate":
                original = action["duplicate_of"]
                assert original in read_before
                assert policy.settled[original] == Settlement("fix")
                assert policy.settled[action["ticket_id"]] == Settlement("duplicate", original)
            read_before = set(policy.read)
        linked += any(s.disposition == "duplicate" for s in policy.settled.values())
    assert linked >= 3, "the heuristic linked a duplicate in fewer than 3 of 10 queues"


def test_the_heuristic_beats_the_structured_field_tree_on_the_medium_level():
    """The tree leans on whether a duplicate is suggested; reading the reports beats it."""
    rules = fit_rules(training_rows(("generated_medium", s, "train") for s in range(30)))
    seeds = range(40)
    tree = statistics.fmean(play(FieldsOnlyPolicy(rules=rules), "generated_medium", s, "test") for s in seeds)
    heuristic = statistics.fmean(play(HeuristicPolicy(), "generated_medium", s, "test") for s in seeds)
    assert tree < heuristic, (tree, heuristic)
