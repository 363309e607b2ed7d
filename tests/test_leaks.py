"""Indirect leaks: changing only the hidden truth must not change what the agent sees, except feedback,
and feedback (rewards, the agent's grade) must say no more than whether the agent was right."""

from __future__ import annotations

import dataclasses
import random

import pytest

from openenv_bug_triage import contract as contract_module
from openenv_bug_triage import reward as reward_module
from openenv_bug_triage.checker import policy_actions
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.grader import grade_episode, is_stray_bug, ticket_right
from openenv_bug_triage.models import ObservationModel, TicketProgress, Truth
from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy
from openenv_bug_triage.sources import LoadedTask, load_task
from openenv_bug_triage.tasks import TASK_IDS, Task

FEEDBACK_KEYS = {"score_breakdown"}


def scrambled(task: Task) -> Task:
    """The same visible tickets with every ticket's truth taken from another ticket."""
    ids = list(task.ticket_ids)
    donors = ids[1:] + ids[:1]
    random.Random(0).shuffle(donors)
    truth = {tid: task.truth[donor] for tid, donor in zip(ids, donors, strict=True)}
    assert truth != task.truth
    return dataclasses.replace(task, truth=truth)


def visible(obs) -> dict:
    return obs.model_dump(mode="json", exclude=FEEDBACK_KEYS)


def play(task: Task, actions: list, monkeypatch) -> list[tuple[dict, dict]]:
    monkeypatch.setattr(contract_module, "resolve", lambda *_args: LoadedTask(task, None, None))
    env = BugTriageEnv()
    seen = [(env.reset(task_id=task.task_id, seed=42).model_dump(mode="json"), {})]
    for action in actions:
        obs, _, done, _ = env.step(action)
        seen.append((obs.model_dump(mode="json"), env.state().model_dump(mode="json", exclude={"cumulative_reward"})))
        if done:
            break
    return seen


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reset_and_navigation_are_identical_whatever_the_truth(task_id, monkeypatch):
    task = load_task(task_id)
    actions = [{"action_type": "next_ticket"}] * 6
    assert play(task, actions, monkeypatch) == play(scrambled(task), actions, monkeypatch)


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("policy_cls", [HeuristicPolicy, RandomPolicy])
def test_other_actions_differ_only_in_feedback(task_id, policy_cls, monkeypatch):
    task = load_task(task_id)
    actions = policy_actions(policy_cls(), task_id, 42, limit=30)
    assert_same_but_feedback(play(task, actions, monkeypatch), play(scrambled(task), actions, monkeypatch))


def assert_same_but_feedback(real: list[tuple[dict, dict]], fake: list[tuple[dict, dict]]) -> None:
    """Two plays of the same actions showed the same observations and states, feedback aside."""
    assert len(real) == len(fake)
    for (obs_a, state_a), (obs_b, state_b) in zip(real, fake, strict=True):
        for key in FEEDBACK_KEYS:
            obs_a.pop(key), obs_b.pop(key)
        assert obs_a == obs_b
        assert state_a == state_b


# --------------------------------------------------------------------------- rewards and grades as side channels
#
# The property: for two truths that agree on which of the agent's actions were right, every
# reward and every agent-visible message is identical; and the agent's copy of the grade depends
# only on the agent's own actions and on right/wrong per ticket and per subscore. Perturbations
# swap two tickets' truths, so the task keeps its counts of bugs, duplicates and incidents.


def swapped(task: Task, a: str, b: str) -> Task:
    truth = {**task.truth, a: task.truth[b], b: task.truth[a]}
    return dataclasses.replace(task, truth=truth)


def judge(action: dict, result, before: TicketProgress, after: TicketProgress, truth: Truth) -> tuple:
    """Whether one action was right, as the handbook sees it; nothing else about the truth."""
    if result.status == "error" or result.action_type == "next_ticket":
        return (result.status,)
    if after == before:
        return ("no_op",)
    kind = result.action_type
    fix = truth.disposition == "fix"
    if kind in ("classify", "assign"):
        if (before.classify_count if kind == "classify" else before.assign_count) > 0:
            return ("relabel",)
        if kind == "classify":
            got = (action["severity"], action["priority"], action["component"])
            want = (truth.true_severity, truth.true_priority, truth.true_component)
            return ("labels", *(fix and g == w for g, w in zip(got, want, strict=True)))
        return ("labels", fix and action["team"] == truth.true_assignee_team)
    if kind == "request_info":
        return ("request_info", truth.needs_more_info)
    if kind == "escalate_incident":
        return ("escalate", truth.should_escalate)
    right = reward_module.outcome_correct(truth, after)
    return ("settle", right, fix and not right)  # a wrong settlement that loses a real bug is the graver wrong


def final_judgement(task: Task, progress: dict[str, TicketProgress]) -> tuple:
    """The end-of-episode verdict: per ticket right/wrong and escalation right/wrong, the critical bugs', and how
    many tickets were left on a team's board though not bugs to fix (the grade's stray-bug cost counts them)."""
    critical = [tid for tid, t in task.truth.items() if reward_module.is_critical(t)]
    return (
        tuple(
            sorted(
                (tid, ticket_right(t, progress[tid]), progress[tid].escalated == t.should_escalate)
                for tid, t in task.truth.items()
            )
        ),
        sum(is_stray_bug(t, progress[tid]) for tid, t in task.truth.items()),
        all(reward_module.outcome_correct(task.truth[tid], progress[tid]) for tid in critical),
        sum(not progress[tid].settled for tid in critical),
    )


def play_judged(task: Task, actions: list, monkeypatch) -> tuple[list, list]:
    """(what the agent saw, the verdicts) of playing `actions` on `task` with seed 42."""
    monkeypatch.setattr(contract_module, "resolve", lambda *_args: LoadedTask(task, None, None))
    env = BugTriageEnv()
    seen: list = [env.reset(task_id=task.task_id, seed=42).model_dump(mode="json")]
    verdicts: list = []
    for action in actions:
        before = env.state().progress
        obs, reward, done, info = env.step(action)
        result = obs.last_action_result
        tid = result.ticket_id
        after = env.state().progress
        verdicts.append(judge(action, result, before.get(tid), after.get(tid), task.truth.get(tid)) if tid else ())
        seen.append((obs.model_dump(mode="json"), reward.model_dump(mode="json"), done, info))
        if done:
            verdicts.append(final_judgement(task, after))
            break
    return seen, verdicts


def relabel_probe(task: Task) -> list[dict]:
    """Assign every ticket twice, the way an agent would probe for the relabel charge."""
    return [
        {"action_type": "assign", "ticket_id": tid, "team": team}
        for tid in sorted(task.ticket_ids)
        for team in ("frontend", "sre")
    ]


def label_probe(task: Task) -> list[dict]:
    """Classify and assign every ticket once with a fixed guess, then wait for the end."""
    guess = [
        action
        for tid in sorted(task.ticket_ids)
        for action in (
            {"action_type": "classify", "ticket_id": tid, "severity": "sev3", "priority": "p3", "component": "web-ui"},
            {"action_type": "assign", "ticket_id": tid, "team": "sre"},
        )
    ]
    return guess + [{"action_type": "next_ticket"}] * task.step_budget


def swaps(task: Task) -> list[tuple[str, str]]:
    """Pairs of tickets with different dispositions, one a bug to fix: the swaps that would show a bug."""
    ids = sorted(task.ticket_ids)
    fix = {tid for tid in ids if task.truth[tid].disposition == "fix"}
    return [(a, b) for a in ids for b in ids if a < b and (a in fix) != (b in fix)]


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("probe", [relabel_probe, label_probe, "random", "heuristic"])
def test_rewards_and_messages_depend_only_on_whether_actions_were_right(task_id, probe, monkeypatch):
    task = load_task(task_id)
    if probe == "random":
        actions = policy_actions(RandomPolicy(), task_id, 42, limit=60)
    elif probe == "heuristic":
        actions = policy_actions(HeuristicPolicy(), task_id, 42, limit=60)
    else:
        actions = probe(task)
    seen, verdicts = play_judged(task, actions, monkeypatch)
    agreeing = 0
    for a, b in swaps(task):
        other_seen, other_verdicts = play_judged(swapped(task, a, b), actions, monkeypatch)
        if other_verdicts == verdicts:
            agreeing += 1
            assert other_seen == seen, f"swapping the truths of {a} and {b} changed what the agent saw"
    assert agreeing > 0 or probe in ("random", "heuristic"), "the probe must meet truths that agree on it"


@pytest.mark.parametrize("task_id", TASK_IDS)
@pytest.mark.parametrize("probe", [label_probe, "random", "heuristic", "next_only"])
def test_the_agents_grade_depends_only_on_right_and_wrong(task_id, probe, monkeypatch):
    task = load_task(task_id)
    if probe == "next_only":
        actions = [{"action_type": "next_ticket"}] * task.step_budget
    elif probe in ("random", "heuristic"):
        policy = RandomPolicy() if probe == "random" else HeuristicPolicy()
        actions = policy_actions(policy, task_id, 42, limit=task.step_budget)
    else:
        actions = probe(task)
    monkeypatch.setattr(contract_module, "resolve", lambda *_args: LoadedTask(task, None, None))
    env = BugTriageEnv()
    env.reset(task_id=task_id, seed=42)
    for action in actions:
        if env.step(action)[2]:
            break
    state = env.state()
    progress = state.progress

    def graded(t: Task) -> tuple:
        full = grade_episode(t, progress, state.invalid_actions, state.no_op_actions)
        agent = grade_episode(t, progress, state.invalid_actions, state.no_op_actions, reveal=False)
        verdict = (
            {tid: ticket_right(t.truth[tid], progress[tid]) for tid in t.ticket_ids},
            full.subscores,
            full.passed,
        )
        return verdict, agent

    verdict, agent = graded(task)
    assert agent.score == grade_episode(task, progress, state.invalid_actions, state.no_op_actions).score
    agreeing = 0
    for a, b in swaps(task):
        other_verdict, other_agent = graded(swapped(task, a, b))
        if other_verdict == verdict:
            agreeing += 1
            assert other_agent == agent, f"swapping the truths of {a} and {b} changed the agent's grade"
    assert agreeing > 0 or probe in ("random", "heuristic"), "the probe must meet truths that agree on it"


# --------------------------------------------------------------------------- live queues: replies and search results


def live_scrambled(task: Task) -> Task:
    """`scrambled`, and every reporter's reply given another reply's truth: what a reply settles a ticket as
    is truth too, and must show nowhere before the grade."""
    assert task.live is not None
    fake = scrambled(task)
    replies = task.live.replies
    ids = sorted(replies)
    donors = ids[1:] + ids[:1]
    swapped_replies = {
        tid: replies[tid].model_copy(update={"truth": replies[donor].truth})
        for tid, donor in zip(ids, donors, strict=True)
    }
    return dataclasses.replace(fake, live=task.live.model_copy(update={"replies": swapped_replies}))


@pytest.mark.parametrize("task_id", ["generated_live_hard", "generated_live_expert"])
@pytest.mark.parametrize("policy_cls", [HeuristicPolicy, RandomPolicy])
def test_live_replies_arrivals_and_search_results_differ_only_in_feedback(task_id, policy_cls, monkeypatch):
    task = load_task(task_id, 2, "test")
    actions = start(BugTriageEnv(), policy_cls(), task_id, 2, "test").play(limit=60).actions
    actions += [{"action_type": "search_tracker", "query": t.title} for t in task.tickets[:3]]
    real = play(task, actions, monkeypatch)
    fake = play(live_scrambled(task), actions, monkeypatch)
    assert any(obs.get("events") for obs, _ in real), "the probe saw no arrival or reply"
    assert_same_but_feedback(real, fake)


def test_whether_a_reporter_answers_says_nothing_about_the_ticket() -> None:
    """Asked, reporters of clear reports answer too (after a delay of their temper, or never), so an `answered`
    event is no verdict on the request, sealed or not (a new user's attack found the opposite once)."""
    answered: dict[bool, int] = {True: 0, False: 0}
    asked: dict[bool, int] = {True: 0, False: 0}

    def count_answers(obs: ObservationModel) -> None:  # each answer under its own ticket's class
        for e in obs.events:
            if e.kind == "answered":
                answered[task.truth[e.ticket_id].needs_more_info] += 1

    for seed in range(3):
        task = load_task("generated_live_expert", seed, "test")
        env = BugTriageEnv()
        obs = env.reset(task_id=task.task_id, seed=seed, split="test")
        done = False
        for entry in obs.queue:
            if task.by_id[entry.ticket_id].reporter_type != "monitoring" and not done:
                vague = task.truth[entry.ticket_id].needs_more_info
                asked[vague] += 1
                obs, _, done, _ = env.step({"action_type": "request_info", "ticket_id": entry.ticket_id})
                count_answers(obs)
        while not done:
            obs, _, done, _ = env.step({"action_type": "next_ticket"})
            count_answers(obs)
    assert asked[True] and asked[False]
    rates = {vague: answered[vague] / asked[vague] for vague in (True, False)}
    assert rates[False] > 0.5 and abs(rates[True] - rates[False]) < 0.35, rates
