"""Generated queues: determinism, splits held apart, facts visible in text, fair and feasible, no surface leaks."""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import cache

import pytest

from openenv_bug_triage import rules
from openenv_bug_triage.canaries import DEGENERATE, Constant
from openenv_bug_triage.catalogue import Defect, load_catalogue, load_phrases
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.errors import InvalidSeedError, InvalidSplitError, UnknownTaskError
from openenv_bug_triage.generator import (
    TRAIN_MAX_SEED,
    GeneratedTask,
    compose,
    derive_truth,
    generate,
    kinds,
    load_levels,
    scope_options,
    severity_for,
)
from openenv_bug_triage.generator.facts import workspace_wide
from openenv_bug_triage.generator.phrasing import variants
from openenv_bug_triage.models import Ticket, Truth
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy, run_episode
from openenv_bug_triage.sources import load_task
from openenv_bug_triage.surface import TARGETS, fit_structured_policy, surface_report
from openenv_bug_triage.world import load_world

LEVELS = tuple(level.task_id for level in load_levels().levels)
SWEEP = int(os.environ.get("GENERATOR_SWEEP", "12"))
"""Instances per level and split in the default suite for the sampled checks."""
ORACLE_SAMPLE = 12
"""Seeds per level and split the oracle plays in the fast tier."""
ORACLE_SWEEP = int(os.environ.get("ORACLE_SWEEP", "500"))
"""Seeds per level and split the oracle plays in the slow sweep (validation has 200)."""


def canonical(made: GeneratedTask) -> str:
    task = made.task
    pinned: dict[str, object] = {
        "tickets": [t.model_dump(mode="json") for t in task.tickets],
        "truth": {k: v.model_dump() for k, v in task.truth.items()},
        "budget": task.step_budget,
    }
    if task.live is not None:  # a live queue pins its replies, history and arrivals, and the notes it adds
        pinned["live"] = task.live.model_dump(mode="json")
        pinned["releases"] = [r.model_dump(mode="json") for r in task.releases]
    return json.dumps(pinned, sort_keys=True)


def scenario(scenario_id: str) -> Defect:
    """A composed defect by the id its facts name (a catalogue scenario is looked up in the catalogue)."""
    found = compose.named(scenario_id)
    assert found is not None, scenario_id
    return found


def sample(split: str, per_level: int, start: int = 0) -> list[GeneratedTask]:
    return [generate(level, seed, split) for level in LEVELS for seed in range(start, start + per_level)]


# --------------------------------------------------------------------------- contract and determinism


def test_levels_have_the_documented_sizes() -> None:
    sizes = {level.task_id: level.tickets for level in load_levels().levels}
    assert sizes == {
        "generated_easy": 8,
        "generated_medium": 15,
        "generated_hard": 25,
        "generated_expert": 50,
        "generated_live_hard": 25,
        "generated_live_expert": 50,
    }
    for task_id, n in sizes.items():
        assert len(generate(task_id, 0).task.tickets) == n


@pytest.mark.parametrize("task_id", LEVELS)
def test_same_task_split_and_seed_give_the_same_bytes(task_id: str) -> None:
    for split in ("train", "validation", "test"):
        assert canonical(generate(task_id, 3, split)) == canonical(generate(task_id, 3, split))
    assert canonical(generate(task_id, 3)) != canonical(generate(task_id, 4))
    assert canonical(generate(task_id, 3, "validation")) != canonical(generate(task_id, 3, "test"))


def test_instances_are_the_same_bytes_in_another_process() -> None:
    cases = [(level, seed, split) for level in LEVELS for seed, split in ((0, "train"), (7, "test"))]
    code = (
        "import hashlib, json, sys\n"
        "from openenv_bug_triage.generator import generate\n"
        "from test_generator import canonical\n"
        "cases = json.loads(sys.argv[1])\n"
        "print(json.dumps([hashlib.sha256(canonical(generate(*c)).encode()).hexdigest() for c in cases]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123", "PYTHONPATH": os.path.dirname(__file__)}
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(cases)], capture_output=True, text=True, check=True, env=env
    )
    here = [hashlib.sha256(canonical(generate(*c)).encode()).hexdigest() for c in cases]
    assert json.loads(out.stdout) == here


def test_load_task_serves_generated_instances_with_their_truth() -> None:
    task = load_task("generated_hard", seed=123, split="train")
    assert task.task_id == "generated_hard" and len(task.truth) == 25
    assert canonical(generate("generated_hard", 123, "train")) == canonical(GeneratedTask(task, {}, "train", 123))


@pytest.mark.parametrize(
    ("split", "seed", "error"),
    [
        ("validation", 200, InvalidSeedError),
        ("test", 1000, InvalidSeedError),
        ("train", TRAIN_MAX_SEED + 1, InvalidSeedError),
        ("train", -1, InvalidSeedError),
        ("train", True, InvalidSeedError),
        ("dev", 0, InvalidSplitError),
    ],
)
def test_out_of_range_seeds_and_unknown_splits_are_clear_errors(split, seed, error) -> None:
    with pytest.raises(error, match=r"split|seed"):
        BugTriageEnv().reset(task_id="generated_easy", seed=seed, split=split)


def test_split_edges_are_valid_instances() -> None:
    for split, top in (("validation", 199), ("test", 999), ("train", TRAIN_MAX_SEED)):
        assert BugTriageEnv().reset(task_id="generated_easy", seed=top, split=split).task_id == "generated_easy"


def test_fixed_tasks_have_no_splits_and_unknown_tasks_are_named() -> None:
    with pytest.raises(InvalidSplitError, match="fixed benchmark task"):
        BugTriageEnv().reset(task_id="bug_triage_easy", split="test")
    with pytest.raises(UnknownTaskError, match="generated_expert"):
        BugTriageEnv().reset(task_id="generated_impossible")


def test_reset_without_a_seed_draws_a_fresh_instance_that_replays() -> None:
    env = BugTriageEnv()
    first = env.reset(task_id="generated_medium")
    seed_1 = env.state().seed
    env.reset(task_id="generated_medium")
    seed_2 = env.state().seed
    assert seed_1 != seed_2 and env.state().split == "train"
    replay = BugTriageEnv().reset(task_id="generated_medium", seed=seed_1)
    assert replay.model_dump_json() == first.model_dump_json()
    env.reset(task_id="generated_medium", split="test")
    assert env.state().split == "test" and 0 <= env.state().seed < 1000


def test_the_env_rng_is_seeded_for_reproducible_draws() -> None:
    def seeds(env_seed: int) -> list[int]:
        env = BugTriageEnv(seed=env_seed)
        out = []
        for _ in range(3):
            env.reset(task_id="generated_easy")
            out.append(env.state().seed)
        return out

    assert seeds(5) == seeds(5) != seeds(6)


# --------------------------------------------------------------------------- tickets and truth


def test_ticket_ids_are_unique_and_originals_come_first() -> None:
    id_sets = []
    for made in sample("train", 6) + sample("test", 6):
        task = made.task
        ids = [t.ticket_id for t in task.tickets]
        assert len(set(ids)) == len(ids)
        id_sets.append(frozenset(ids))
        for t in task.tickets:
            original = task.truth[t.ticket_id].duplicate_of
            if original is not None and original in task.by_id:  # (an earlier tracker ticket: test_live_generator)
                assert task.by_id[original].created_at < t.created_at
                assert made.facts[original].component == made.facts[t.ticket_id].component
    assert len(set(id_sets)) == len(id_sets)  # ids are drawn per instance


def test_truth_is_the_rules_applied_to_the_facts() -> None:
    world = load_world()
    for made in sample("train", 5) + sample("validation", 5):
        for tid, facts in made.facts.items():
            assert made.task.truth[tid] == derive_truth(facts, world)


def test_severity_rules_follow_the_handbook() -> None:
    assert severity_for("critical", None, "production") == "sev0"
    assert severity_for("core", "everyone", "production") == "sev0"
    assert severity_for("core", "segment", "production") == "sev1"
    assert severity_for("core", "degraded", "production") == "sev1"
    assert severity_for("core", "workaround", "production") == "sev2"
    assert severity_for("minor", "workaround", "production") == "sev2"
    assert severity_for("cosmetic", "few", "production") == "sev3"
    assert severity_for("critical", "segment", "staging") == "sev2"
    assert severity_for("cosmetic", None, "development") == "sev3"
    for d in load_catalogue().defects:  # "only a few users" is never said of a core failure
        assert "few" not in scope_options(d) or d.impact in ("minor", "cosmetic")


def test_no_few_users_scope_on_a_defect_the_whole_workspace_meets() -> None:
    """A trigger of the workspace's (its size, name, domain, region) hits everyone in it: no "only 2 of our 720"."""
    wide = [d for d in load_catalogue().defects if workspace_wide(d)]
    assert wide
    assert all("few" not in scope_options(d) for d in wide)
    big = next(d for d in load_catalogue().defects if d.impact == "cosmetic" and "few" in scope_options(d))
    sized = big.model_copy(update={"segment": ["every workspace with more than 500 members"]})
    assert workspace_wide(sized) and scope_options(sized) == []


def test_exposure_traps_stay_sev0_escalated_bugs_to_fix() -> None:
    """Hard and expert queues tell some exposures outside production and some with a clean retest."""
    seen: Counter = Counter()
    for made in [generate(level, seed) for level in LEVELS[2:] for seed in range(20)]:
        for tid, facts in made.facts.items():
            truth = made.task.truth[tid]
            if not facts.exposure or truth.disposition == "duplicate":
                continue
            assert (truth.disposition, truth.true_severity, truth.should_escalate) == ("fix", "sev0", True), tid
            if facts.environment != "production":
                seen["environment"] += 1
            if facts.retest_clean or any(rule == "retest" for rule, _ in facts.evidence):
                seen["retest"] += 1
    assert seen["environment"] and seen["retest"], seen
    for level in LEVELS[:2]:
        assert load_levels().levels[LEVELS.index(level)].rates.exposure == 0.0


def test_a_clean_retest_of_data_lost_in_production_leaves_a_bug_to_fix() -> None:
    """Data already lost is not undone by a clean retest: those traps are sev0 bugs to fix, escalated, and
    no ticket closed as cannot_reproduce describes data lost in production."""
    traps = 0
    for made in [
        generate(level, seed, split)
        for level in LEVELS[2:]
        for seed in range(10)
        for split in ("train", "validation", "test")
    ]:
        for tid, facts in made.facts.items():
            truth = made.task.truth[tid]
            lost = facts.kind == "defect" and rules.data_lost(facts.impact, facts.component, facts.environment)
            if truth.disposition == "close_cannot_reproduce":
                assert not lost and not facts.exposure, tid
            if lost and facts.retest_clean and not facts.exposure and truth.disposition != "duplicate":
                assert (truth.disposition, truth.true_severity, truth.should_escalate) == ("fix", "sev0", True), tid
                traps += 1
    assert traps, "no clean retest of lost data in 60 hard and expert queues"


def test_retests_and_upgrades_arrive_as_comments_after_filing() -> None:
    """The settling retest or upgrade is the last comment, never in the description; any kind may have a thread."""
    with_thread: Counter = Counter()
    for made in sample("train", 6) + sample("test", 6):
        last_filed = max(t.created_at for t in made.task.tickets)
        for t in made.task.tickets:
            facts = made.facts[t.ticket_id]
            for c in t.comments:
                assert t.created_at < c.time <= last_filed + timedelta(days=2), t.ticket_id
            settling = [s for rule, s in facts.evidence if rule in ("retest", "resolved")]
            if settling:
                assert t.comments and t.comments[-1].text == settling[0]
                assert settling[0] not in t.description
                assert t.comments[-1].role == ("qa" if t.reporter_type == "qa" else "reporter")
            if t.comments:
                with_thread[made.task.truth[t.ticket_id].disposition] += 1
    assert {"fix", "close_cannot_reproduce", "close_resolved", "defer", "needs_info"} <= set(with_thread), with_thread


HARD = tuple(level for level in LEVELS if load_levels().levels[LEVELS.index(level)].difficulty in ("hard", "expert"))


def test_hard_cases_are_drawn_above_medium_only() -> None:
    for level in load_levels().levels:
        rates = level.rates
        drawn = [rates.feature_attached, rates.wrong_cause, rates.two_problems, rates.regression, rates.retold]
        assert all(drawn) if level.task_id in HARD else not any(drawn), level.task_id


def test_each_hard_case_gets_the_handbooks_truth() -> None:
    """A bug with a request is fixed, a wrong guess at the cause is routed by the evidence, two problems
    are triaged by the more severe, a regression stays a bug, a re-told duplicate links to the original."""
    world = load_world()
    seen: Counter = Counter()
    for made in [generate(level, seed, split) for level in HARD for split in ("train", "test") for seed in range(12)]:
        for t in made.task.tickets:
            facts, truth = made.facts[t.ticket_id], made.task.truth[t.ticket_id]
            if facts.case is None:
                continue
            seen[facts.case] += 1
            assert truth.disposition == "fix" and truth.true_component == facts.component, facts.case
            assert truth == derive_truth(facts, world)
            cased = [text for rule, text in facts.evidence if rule == f"case:{facts.case}"]
            assert cased and all(text in t.description for text in cased)
            if facts.case == "wrong_cause":
                assert t.component_candidates[0] != facts.component
            if facts.case == "two_problems":
                assert facts.second_impact == "cosmetic" and facts.second_component != facts.component
                assert truth.true_severity != "sev3"
        steps = {d.id: d.steps for d in load_catalogue().defects}
        for t in made.task.tickets:
            facts = made.facts[t.ticket_id]
            if "retold" not in facts.traps:
                continue
            if facts.scenario not in steps:  # composed from parts
                steps[facts.scenario] = scenario(facts.scenario).steps
            seen["retold"] += 1
            assert made.task.truth[t.ticket_id].duplicate_of == facts.duplicate_of is not None
            full = "\n".join(f"{i}. {step}" for i, step in enumerate(steps[facts.scenario], 1))
            if facts.repro and len(steps[facts.scenario]) > 2:
                assert full not in t.description  # its own steps, not the catalogue's list copied
    assert set(seen) >= {"feature_attached", "wrong_cause", "two_problems", "regression", "retold"}, seen


def test_the_more_severe_of_two_problems_is_triaged() -> None:
    world = load_world()
    made = generate("generated_hard", 0)
    facts = next(f for f in made.facts.values() if f.kind == "defect" and f.duplicate_of is None)
    cosmetic = replace(facts, impact="cosmetic", scope=None, exposure=False)
    cosmetic = replace(cosmetic, second_component="search", second_impact="minor")
    truth = derive_truth(cosmetic, world)
    assert (truth.true_component, truth.true_severity) == ("search", "sev2")
    assert derive_truth(replace(cosmetic, second_impact="cosmetic"), world).true_component == facts.component


RULES = (
    "scope:everyone",
    "scope:segment",
    "scope:degraded",
    "scope:workaround",
    "scope:few",
    "environment",
    "critical",
    "unsupported",
    "retest",
    "resolved",
    "feature",
    "invalid",
    "vague",
)


def test_every_deciding_fact_is_visible_in_the_ticket() -> None:
    seen: Counter = Counter()
    for made in sample("train", 10) + sample("test", 10):
        for t in made.task.tickets:
            facts = made.facts[t.ticket_id]
            text = f"{t.title}\n{t.description}\n{t.log_excerpt or ''}"
            text += "".join(f"\n{c.text}" for c in t.comments)
            for rule, sentence in facts.evidence:
                assert sentence in text, (t.ticket_id, rule)
                seen[rule] += 1
            assert (t.environment, t.customer_tier, t.reporter_type) == (
                facts.environment,
                facts.tier,
                facts.reporter,
            )
            assert (t.repro_steps_present, t.logs_present) == (facts.repro, facts.logs)
            if facts.repro and t.reporter_type != "monitoring":
                assert any(rule == "steps" for rule, _ in facts.evidence), t.ticket_id
            # (a leak is sev0 at any scope; a duplicate's way round it decides nothing, and one its original told in
            # every wording there is goes unsaid rather than copied)
            retold_way = facts.duplicate_of is not None and facts.scope == "workaround"
            if facts.scope and facts.environment == "production" and not facts.exposure and not retold_way:
                assert any(rule.startswith("scope:") for rule, _ in facts.evidence)
    missing = [rule for rule in RULES if not seen[rule]]
    assert not missing, f"rules never exercised by the sample: {missing}"


def test_traps_appear_above_easy_and_not_in_easy() -> None:
    traps: dict[str, Counter] = {level: Counter() for level in LEVELS}
    # (20 queues a level: a temper is drawn once per person, so a trap of one temper comes in clumps, and 10 medium
    # queues of 15 tickets held no quiet opener after a change that only moved the draws)
    for made in sample("train", 20):
        for facts in made.facts.values():
            traps[made.task.task_id].update(facts.traps)
    # (a wording that plays itself down, "Small thing but...", is its own, not a planted trap)
    assert not any(k not in ("supported_platform_decoy", "hedged") for k in traps["generated_easy"])
    for level in LEVELS[1:]:
        assert {"loud", "quiet", "urgency_claim"} <= set(traps[level]), level
    for level in ("generated_hard", "generated_expert"):
        assert {"injection", "misfiled"} <= set(traps[level]), level


def test_about_a_fifth_of_tickets_above_easy_are_duplicates() -> None:
    for level in LEVELS[1:]:
        made = generate(level, 0)
        share = sum(t.disposition == "duplicate" for t in made.task.truth.values()) / len(made.task.truth)
        assert 0.15 <= share <= 0.25, level


def test_descriptions_rarely_repeat() -> None:
    # (2,000 descriptions: at 1,000, changes that only moved the draws read 0, 6 and 10 repeats on one code)
    descriptions = [t.description for made in sample("train", 22) for t in made.task.tickets][:2000]
    assert len(descriptions) == 2000
    repeated = sum(n for n in Counter(descriptions).values() if n > 1)
    assert repeated / len(descriptions) < 0.01


# --------------------------------------------------------------------------- held-out splits


def test_each_split_uses_only_its_own_scenarios_and_phrases() -> None:
    catalogue = load_catalogue()
    partition = {s.id: s.partition for group in (catalogue.defects, catalogue.features) for s in group}
    partition |= {s.id: s.partition for group in (catalogue.invalid, catalogue.vague) for s in group}
    made = {split: sample(split, SWEEP) for split in ("train", "validation", "test")}
    evidence, titles = {}, {}
    for split, instances in made.items():
        assert {
            partition.get(f.scenario) or scenario(f.scenario).partition for m in instances for f in m.facts.values()
        } == {split}
        evidence[split] = {s for m in instances for f in m.facts.values() for _, s in f.evidence}
        titles[split] = {t.title.lower() for m in instances for t in m.task.tickets}
    for a, b in (("train", "validation"), ("train", "test"), ("validation", "test")):
        assert not evidence[a] & evidence[b], (a, b)
        assert not titles[a] & titles[b], (a, b)


def test_a_defect_that_fails_every_time_is_never_given_a_failure_rate() -> None:
    defects = [d for d in load_catalogue().defects if d.impact == "core" and d.global_]
    assert any(d.intermittent is False for d in defects)
    for d in defects:
        assert ("degraded" in scope_options(d)) == (d.intermittent is not False), d.id
        flipped = d.model_copy(update={"intermittent": not d.intermittent})
        assert ("degraded" in scope_options(flipped)) == flipped.intermittent


def test_a_defect_that_hits_everyone_is_never_said_to_hit_only_a_few() -> None:
    for d in load_catalogue().defects:
        narrow = d.reach not in ("everyone", "object") and not workspace_wide(d)
        assert ("few" in scope_options(d)) == (d.impact in ("minor", "cosmetic") and narrow), d.id


def test_validation_defects_state_how_they_fail_and_carry_real_logs() -> None:
    defects = [d for d in load_catalogue().defects if d.partition == "validation"]
    assert len(defects) >= 40
    assert {d.component for d in defects} == set(load_world().owner)
    for d in defects:
        assert d.intermittent is not None and d.reach is not None and d.internal, d.id
        assert len(d.logs) >= 2, d.id
        assert all(5 <= len(log.splitlines()) <= 25 for log in d.logs), d.id


def test_phrase_pools_never_share_a_sentence_between_partitions() -> None:
    for name, pool in load_phrases().pools.items():
        train, validation, test = (
            {w for f in pool.of(p) for w in variants(f)} for p in ("train", "validation", "test")
        )
        assert not train & validation, name
        assert not train & test, name
        assert not validation & test, name


# --------------------------------------------------------------------------- fair, feasible, not gameable


@pytest.mark.parametrize("task_id", LEVELS)
@pytest.mark.parametrize(
    "seeds",
    [pytest.param(ORACLE_SAMPLE, id="sample"), pytest.param(ORACLE_SWEEP, id="sweep", marks=pytest.mark.slow)],
)
def test_the_oracle_scores_one_on_every_sampled_instance(task_id: str, seeds: int) -> None:
    for split in ("train", "validation", "test"):
        for seed in range(min(seeds, 200) if split == "validation" else seeds):
            result = run_episode(OraclePolicy(), task_id, seed, split)
            assert result.grade.score == 1.0, (split, seed, result.grade.mistakes)


@pytest.mark.parametrize("task_id", LEVELS)
def test_random_is_near_zero_and_the_heuristic_lands_between(task_id: str) -> None:
    seeds = range(SWEEP)
    rand = statistics.fmean(run_episode(RandomPolicy(), task_id, s, "test").grade.score for s in seeds)
    heuristic = statistics.fmean(run_episode(HeuristicPolicy(), task_id, s, "test").grade.score for s in seeds)
    assert rand <= 0.05
    assert rand + 0.05 < heuristic < 0.8


@pytest.mark.parametrize("task_id", LEVELS)
@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_policies_stay_low_on_generated_tasks(task_id: str, name: str) -> None:
    scores = [run_episode(Constant(name, DEGENERATE[name]), task_id, s, "test").grade.score for s in range(4)]
    assert statistics.fmean(scores) <= 0.15


@cache
def _surface_pairs(split: str) -> list[tuple[Ticket, Truth]]:
    """Every ticket of 400 seeds per level of `split` with its truth, made once for the three targets.

    400 seeds, as `scripts/surface_audit.py --instances 400` publishes: at 30 or 60 the gain swings by 0.02 from one
    sample of seeds to the next, and at 200 still by about 0.01 (0.010 and 0.020 on two commits that moved only the
    draws of a comment's time; 0.023 at 200 and 0.011 at 400 on one commit); the ticket id's last digit alone, pure
    noise, gains 0.015 at 200."""
    return [(t, m.task.truth[t.ticket_id]) for m in sample(split, 400) for t in m.task.tickets]


@pytest.mark.slow
@pytest.mark.parametrize("name", TARGETS)
def test_non_causal_fields_add_nothing_to_a_structured_field_tree(name: str) -> None:
    def pairs(split: str) -> list[tuple[Ticket, Truth]]:
        return _surface_pairs(split)

    report = surface_report(pairs("train"), pairs("test"), name)
    assert report.gain <= 0.02, report


GOLDEN = os.path.join(os.path.dirname(__file__), "golden_generated.json")


def test_golden_instances_are_unchanged() -> None:
    """Instance bytes are pinned; after an intended generator or catalogue change, run with UPDATE_GOLDEN=1."""
    digests = {
        f"{level}/{split}/{seed}": hashlib.sha256(canonical(generate(level, seed, split)).encode()).hexdigest()
        for level in LEVELS
        for split, seed in (("train", 0), ("validation", 199), ("test", 999))
    }
    if os.environ.get("UPDATE_GOLDEN") == "1":
        with open(GOLDEN, "w") as f:
            f.write(json.dumps(digests, indent=2, sort_keys=True) + "\n")
    with open(GOLDEN) as f:
        assert json.load(f) == digests


STRUCTURED_SWEEP = 40
"""Seeds a level's structured-fields policy is compared over: its score and the heuristic's differ by about 0.11 from
one seed to the next, and on the hard level their means are about 0.04 apart, which 12 seeds cannot tell."""


def test_a_policy_that_reads_only_structured_fields_stays_below_the_heuristic() -> None:
    train = [(t, m.task.truth[t.ticket_id]) for m in sample("train", 30) for t in m.task.tickets]
    fields_only = fit_structured_policy(train)
    for level in LEVELS:
        seeds = range(max(SWEEP, STRUCTURED_SWEEP))
        shortcut = statistics.fmean(run_episode(fields_only, level, s, "test").grade.score for s in seeds)
        heuristic = statistics.fmean(run_episode(HeuristicPolicy(), level, s, "test").grade.score for s in seeds)
        assert shortcut < heuristic, (level, shortcut, heuristic)


def test_a_past_incident_is_told_by_its_customers_or_its_alert_never_by_a_test_run() -> None:
    past = {d.id for d in load_catalogue().defects if d.past}
    assert past  # the failover that lost a window of writes
    seen: Counter[tuple[str, str]] = Counter()
    for seed in range(60):
        made = generate("generated_expert", seed, "train")
        for f in made.facts.values():
            if f.scenario in past:
                seen[(f.reporter, f.environment)] += 1
    assert sum(seen.values()) >= 3
    assert set(seen) <= {("user", "production"), ("monitoring", "production")}, seen


def test_a_reporter_whose_app_never_opens_pastes_none_of_its_screens_and_tries_nothing_inside_it() -> None:
    """The Android app stuck on its splash screen: no Help or settings screen pasted, no other project tried, no
    signing out and in (all of them are inside the app); its reporters still write checklists and pastes."""
    inside = re.compile(
        r"\bHelp screen\b|\bapp's settings\b|\breport screen\b|\bSettings > About\b|\bAbout screen\b|"
        r"\b(?:another|a different|a second) project\b|\b(?:signed|signing|logged) out and (?:back )?in\b",
        re.I,
    )
    seen = 0
    for seed in range(40):
        made = generate("generated_expert", seed, "validation")
        for t in made.task.tickets:
            if made.facts[t.ticket_id].scenario == "android-app-work-profile-splash-hang":
                seen += 1
                assert not inside.search(t.description), (seed, t.ticket_id, t.description)
    assert seen >= 5, seen


def test_api_calls_a_web_page_makes_are_never_pasted_from_a_client_library_or_sent_with_curl() -> None:
    """The CORS preflight refused at the edge is met by web pages calling the API from a browser: no reporter of it
    pastes a server-side client's output (a Go library, a wrapper, a connector) or tests it with curl or k6."""
    server_side = re.compile(r"\blibrary: |\bwrapper\b|\bconnector\b|\bcurl\b|\bk6\b|\bGo API client\b|client's debug")
    seen = 0
    for seed in range(60):
        made = generate("generated_expert", seed, "test")
        for t in made.task.tickets:
            if made.facts[t.ticket_id].scenario == "api-gateway-cors-preflight-403" and t.reporter_type != "monitoring":
                seen += 1
                assert not server_side.search(t.description), (seed, t.ticket_id, t.description)
    assert seen >= 5, seen


def test_a_webhook_defect_is_never_told_as_calls_the_customers_integration_sends() -> None:
    """Webhooks are sent by Larkspur to the customer's server: no reporter of a webhook defect says every request
    their integration sends fails, or that nothing they change gets it through."""
    sends = re.compile(r"\brequest our integration sends\b|\bcalls? our integration makes\b|\bgets it through\b", re.I)
    seen = 0
    for split in ("train", "validation", "test"):
        for seed in range(40):
            made = generate("generated_expert", seed, split)
            for t in made.task.tickets:
                if "webhook" in made.facts[t.ticket_id].reporter_tags and t.reporter_type == "user":
                    seen += 1
                    assert not sends.search(t.description), (split, seed, t.ticket_id)
    assert seen >= 10, seen


def test_a_forms_guesses_hold_more_than_the_truth_and_a_lone_wrong_one_is_often_a_neighbour() -> None:
    """A form with the right component never guesses it alone (a constant policy would take it and its team), and its
    one wrong guess beside it, on a composed defect, is often a part next to it of another team (`kinds.neighbours`:
    reader 53 read random guesses as made up), a pair that says neither which is right nor whose it is; a tester's
    is always one (reader 55: "QA should mostly get it right")."""
    world = load_world()
    pairs = near = own_team = tested = 0
    for made in [generate(level, seed, "test") for level in ("generated_easy", "generated_hard") for seed in range(40)]:
        for t in made.task.tickets:
            right, facts = made.task.truth[t.ticket_id].true_component, made.facts[t.ticket_id]
            guesses = t.component_candidates
            if right not in guesses or "misfiled" in facts.traps:
                continue
            assert len(guesses) > 1, t.ticket_id
            composed = compose.named(facts.scenario)  # a catalogue defect guesses among the parts it lists
            if composed is None or composed.misfiled or facts.case is not None:
                continue
            near_by = [c for c in kinds.neighbours(right) if world.owner[c] != world.owner[right]]
            if facts.reporter == "qa" and near_by:  # a tester names one part beside it, next to it
                tested += 1
                assert len(guesses) == 2 and set(guesses) - {right} <= set(near_by), t.ticket_id
            elif len(guesses) == 2:
                (other,) = [c for c in guesses if c != right]
                pairs += 1
                near += other in kinds.neighbours(right) and world.owner[other] != world.owner[right]
                own_team += world.owner[other] == world.owner[right]
    assert pairs > 20 and tested > 5, (pairs, tested)
    assert near / pairs > 0.4 and own_team / pairs < 0.15, (pairs, near, own_team)
    assert all(c in kinds.neighbours(n) for c in world.components for n in kinds.neighbours(c))


def test_a_log_of_the_workspace_names_the_sums_its_ticket_names() -> None:
    """A log pulled for a ticket that names sums of money is the one with those sums, where the defect has one
    (reader 56 met "$1,200.00 ... charged $960.00" above a log of "total=430.00 EUR")."""
    from openenv_bug_triage.generator.render import _amounts

    assert _amounts("says $1,200.00, but our card was charged $960.00.") == {"1200.00", "960.00"}
    assert _amounts("web 2026.11.4 at 04:00:13.402Z total=960.00 USD") == {"960.00"}
    defect = "invoicing-emailed-invoice-wrong-total"  # its first wording's sums are in one of its two logs only
    found = []
    for seed in range(200):
        for level in ("generated_hard", "generated_expert"):
            made = generate(level, seed, "validation")
            found += [t for t in made.task.tickets if made.facts[t.ticket_id].scenario == defect and t.log_excerpt]
        if len([t for t in found if "$1,200.00" in t.description]) >= 3:
            break
    told = [t for t in found if "$1,200.00" in t.description]
    assert len(told) >= 3 and all("960.00" in (t.log_excerpt or "") for t in told), [t.ticket_id for t in told]


_TAKEN = (
    (re.compile(r"(\d{4})-(\d\d)-(\d\d)(?: at)? (\d\d)[.-]?(\d\d)[.-]?(\d\d)"), "%Y%m%d%H%M%S"),
    (re.compile(r"_(\d{4})(\d\d)(\d\d)[-_](\d\d)(\d\d)(\d\d)"), "%Y%m%d%H%M%S"),
)
_UNIX = re.compile(r"RPReplay_Final(\d{10})|app\.larkspur\.app-(\d{13})\.txt")


def _taken(text: str) -> list[datetime]:
    """The times the screenshots, recordings and saved logs a ticket names were taken (UTC)."""
    out = [
        datetime.strptime("".join(m.groups()), fmt).replace(tzinfo=UTC)
        for pattern, fmt in _TAKEN
        for m in pattern.finditer(text)
    ]
    for m in _UNIX.finditer(text):
        out.append(datetime.fromtimestamp(int(m[1]) if m[1] else int(m[2]) / 1000, UTC))
    return out


def test_no_capture_of_a_failure_is_older_than_the_failure() -> None:
    """A screenshot or recording of a failure is taken after it began and before the ticket was filed (reader 56 met
    a screen recording dated 46 minutes before the outage it showed)."""
    seen = 0
    for made in [
        generate(level, seed, "test") for level in ("generated_hard", "generated_expert") for seed in range(25)
    ]:
        for t in made.task.tickets:
            began = made.facts[t.ticket_id].began
            if began is None or t.reporter_type != "user":
                continue
            for at in _taken(t.description):
                seen += 1
                assert began <= at <= t.created_at, (t.ticket_id, began, at, t.created_at)
    assert seen > 30, seen
