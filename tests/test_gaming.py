"""Rewards and grades cannot be gamed: degenerate and trial-and-error policies stay low."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import pytest

from openenv_bug_triage.canaries import (
    CANARY_NAMES,
    DEGENERATE,
    MAX_DEPTH,
    Constant,
    FieldsOnlyPolicy,
    KeywordStuffing,
    Memoriser,
    RewardProber,
    fit_rules,
    make_canary,
    play,
    training_rows,
)
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.models import ObservationModel
from openenv_bug_triage.policies import (
    HeuristicPolicy,
    RandomPolicy,
    heuristic_component,
    heuristic_severity,
    run_episode,
)
from openenv_bug_triage.sources import load_task, task_infos
from openenv_bug_triage.tasks import TASK_IDS
from openenv_bug_triage.world import load_world

SEEDS = (1, 2, 3, 42)


def heuristic_mean(task_id: str, seeds=SEEDS, split=None) -> float:
    return statistics.fmean(run_episode(HeuristicPolicy(), task_id, s, split).grade.score for s in seeds)


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_policies_score_at_most_015(task_id, name):
    for seed in SEEDS:
        assert play(Constant(name, DEGENERATE[name]), task_id, seed) <= 0.15


GENERATED_LEVELS = [info.task_id for info in task_infos() if info.source == "generated"]


@pytest.mark.parametrize("task_id", GENERATED_LEVELS)
@pytest.mark.parametrize("name", [n for n in CANARY_NAMES if n.startswith("fix_everything_")])
def test_one_severity_for_every_ticket_scores_at_most_015_a_generated_level(task_id, name):
    """Fixing everything at sev0 used to earn 0.15-0.22 on the hard levels from paging about every
    production ticket; each needless page now costs. (The spec's fixed easy task is eight tickets,
    most of them sev2 bugs, so a constant sev2 earns about 0.19 there; the bound is the generated levels'.)
    A level of eight or fifteen tickets is measured over 100 instances: a constant sev2 earns about 0.13 on
    generated easy's test split, and twelve instances of a small queue scatter by a hundredth either side of that."""
    seeds = range(100 if task_id in ("generated_easy", "generated_medium") else 12)
    assert statistics.fmean(play(make_canary(name), task_id, seed, "test") for seed in seeds) <= 0.15


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_probing_the_reward_scores_below_the_heuristic(task_id):
    prober = statistics.fmean(play(RewardProber(), task_id, s) for s in SEEDS)
    assert prober < heuristic_mean(task_id)


def test_the_reward_prober_keeps_the_answer_that_paid_most():
    prober = RewardProber()
    play(prober, "bug_triage_hard", 1)
    means = {arm: statistics.fmean(paid.values()) for arm, paid in prober.paid.items() if paid}
    assert len(means) > 3  # it tried several answers
    assert prober.choose() == max(means, key=lambda arm: means[arm])


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_stuffed_free_text_earns_nothing(task_id):
    for seed in SEEDS:
        assert play(KeywordStuffing(), task_id, seed) == play(KeywordStuffing(text="x"), task_id, seed) <= 0.15


def test_a_memoriser_learns_tickets_that_repeat_but_gains_nothing_on_held_out_instances():
    """On a fixed task every seed replays the same tickets: the memoriser must learn them (the canary
    has teeth). On held-out generated instances what it learned must not lift it to the heuristic."""
    memoriser = Memoriser()
    fixed = [play(memoriser, "bug_triage_hard", seed) for seed in range(8)]
    assert fixed[0] < heuristic_mean("bug_triage_hard") < fixed[-1]
    memoriser = Memoriser()
    held_out = [play(memoriser, "generated_medium", seed, "test") for seed in range(12)]
    assert statistics.fmean(held_out) < heuristic_mean("generated_medium", range(12), "test")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_random_is_low_and_heuristic_is_clearly_between(task_id):
    rand = statistics.fmean(run_episode(RandomPolicy(), task_id, s).grade.score for s in SEEDS)
    heuristic = heuristic_mean(task_id)
    assert rand <= 0.25
    assert rand + 0.1 < heuristic < 0.9


@dataclass
class ClassifyBeforeSettling:
    """The heuristic, but it classifies every ticket with its guess before closing, deferring or linking it."""

    name: str = "classify_first"

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        self.inner = HeuristicPolicy()
        self.inner.reset(task_id, seed)
        self.classified: set[str] = set()

    def act(self, obs: ObservationModel) -> dict:
        action = self.inner.act(obs)
        t = obs.current_ticket
        if t is not None and action["action_type"] not in ("classify", "assign") and t.ticket_id not in self.classified:
            self.classified.add(t.ticket_id)
            self.inner._plan.appendleft(action)
            sev = heuristic_severity(t)
            world = load_world()
            return {
                "action_type": "classify",
                "ticket_id": t.ticket_id,
                "severity": sev,
                "priority": world.priority_for(sev, t.customer_tier),
                "component": heuristic_component(t),
            }
        return action


LABEL_COMPONENTS = ("correct_severity", "correct_priority", "correct_component", "correct_team")


def label_reward_on_tickets_not_to_fix(policy, task_id: str, seed: int) -> float:
    """Label reward one episode of `policy` earns on tickets the handbook settles without classifying."""
    truth = load_task(task_id).truth
    env = BugTriageEnv()
    episode = start(env, policy, task_id, seed)
    total, focused = 0.0, focused_id(env)
    for step in episode:
        target = step.action.get("ticket_id") or focused
        if truth[target].disposition != "fix":
            total += sum(step.reward.components.get(name, 0.0) for name in LABEL_COMPONENTS)
        focused = focused_id(env)
    return total


def focused_id(env: BugTriageEnv) -> str:
    """The ticket an action without `ticket_id` acts on."""
    state = env.state()
    return state.ticket_order[state.focus_index]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_classifying_tickets_that_are_not_bugs_farms_no_reward(task_id):
    for seed in SEEDS:
        assert label_reward_on_tickets_not_to_fix(ClassifyBeforeSettling(), task_id, seed) == 0.0


@pytest.mark.parametrize("depth", range(1, MAX_DEPTH + 1))
def test_rules_over_structured_fields_alone_score_below_the_heuristic(depth):
    """Surface fields (attachments, version, title case, reporter...) must not carry the labels.

    The rules are the decision tree of this depth that best fits all three tasks' tickets, then
    scored on the same tickets: a best case for a policy that never reads ticket text.
    """
    rules = fit_rules(training_rows((task_id, None, None) for task_id in TASK_IDS), depth)
    for task_id in TASK_IDS:
        fields = statistics.fmean(play(FieldsOnlyPolicy(rules=rules), task_id, s) for s in SEEDS)
        heuristic = heuristic_mean(task_id)
        assert fields < heuristic, (
            f"{task_id}: rules over fields {fields:.3f} >= heuristic {heuristic:.3f}\n{rules.describe()}"
        )


def test_every_canary_is_built_by_name_and_a_wrong_name_says_the_choices():
    rules = fit_rules(training_rows([("bug_triage_easy", None, None)]))
    assert [make_canary(name, rules).name for name in CANARY_NAMES] == list(CANARY_NAMES)
    with pytest.raises(ValueError, match="needs fitted rules"):
        make_canary("fields_only")
    with pytest.raises(ValueError, match="choose one of"):
        make_canary("fix_everything_sev9")
