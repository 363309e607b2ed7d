"""The one episode loop: the same policy plays alike in-process, over HTTP and over the WebSocket."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import TRANSPORTS, LiveServer, open_env

from openenv_bug_triage import BugTriageEnv, ObservationModel
from openenv_bug_triage.contract import StepResult
from openenv_bug_triage.episode import Episode, Policy, start
from openenv_bug_triage.errors import EpisodeRunningError
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, RandomPolicy, ReplayPolicy

OBSERVATION_FIELDS = set(ObservationModel.model_fields)
GAMES = [
    (HeuristicPolicy, "bug_triage_hard", 3, None),
    (RandomPolicy, "bug_triage_medium", 11, None),
    (OraclePolicy, "generated_easy", 4, "validation"),
]


def record(episode: Episode) -> list[tuple[Any, ...]]:
    """Everything each step showed, in a form that does not depend on the transport.

    Over the wire `info` carries `grader: None` until the end and observations carry their
    transport's extra fields; both are left out here.
    """
    return [
        (
            s.number,
            s.seen.model_dump(include=OBSERVATION_FIELDS),
            s.action,
            s.observation.model_dump(include=OBSERVATION_FIELDS),
            s.reward,
            s.done,
            {k: v for k, v in s.info.items() if not (k == "grader" and v is None)},
        )
        for s in episode.steps
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("policy_cls", "task_id", "seed", "split"), GAMES)
def test_the_same_policy_plays_alike_in_process_and_on_the_wire(
    server: LiveServer, transport: str, policy_cls: type[Policy], task_id: str, seed: int, split: str | None
) -> None:
    expected = start(BugTriageEnv(), policy_cls(), task_id, seed, split).play()
    with open_env(transport, server.url) as env:
        episode = start(env, policy_cls(), task_id, seed, split).play()
    assert episode.done and expected.done
    assert episode.first.model_dump(include=OBSERVATION_FIELDS) == expected.first.model_dump()
    assert episode.actions == expected.actions
    assert episode.rewards == expected.rewards
    assert episode.agent_grade == expected.agent_grade
    assert episode.invalid_actions == expected.invalid_actions
    assert record(episode) == record(expected)
    if policy_cls is OraclePolicy:
        assert episode.agent_grade.score == 1.0  # the policy was reset with the split it plays


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_limit_stops_the_episode_early_and_it_can_go_on(server: LiveServer, transport: str) -> None:
    whole = start(BugTriageEnv(), HeuristicPolicy(), "bug_triage_medium", 5).play()
    with open_env(transport, server.url) as env:
        episode = start(env, HeuristicPolicy(), "bug_triage_medium", 5).play(limit=4)
        assert len(episode.steps) == 4 and not episode.done
        assert len(episode.play(limit=4).steps) == 4, "the limit counts every step the episode has taken"
        assert len(episode.play(limit=6).steps) == 6
        with pytest.raises(EpisodeRunningError, match="has not ended"):
            episode.agent_grade  # noqa: B018
        episode.play()
    assert episode.done and episode.rewards == whole.rewards and episode.agent_grade == whole.agent_grade


def test_iterating_yields_every_step_in_order_and_can_stop_and_resume() -> None:
    env = BugTriageEnv()
    episode = start(env, RandomPolicy(), "bug_triage_easy", 2)
    seen: list[int] = []
    for step in episode:
        seen.append(step.number)
        assert env.state().step_count == step.number, "each step is yielded as soon as it is taken"
        if step.number == 3:
            break
    seen += [step.number for step in episode]
    whole = start(BugTriageEnv(), RandomPolicy(), "bug_triage_easy", 2).play()
    assert seen == list(range(1, len(whole.steps) + 1))
    assert episode.actions == whole.actions and episode.rewards == whole.rewards
    assert episode.steps[0].seen == episode.first
    for before, after in zip(episode.steps, episode.steps[1:], strict=False):
        assert after.seen == before.observation
    assert list(episode) == [], "a finished episode has no steps left"


class EndsWithoutGrade(BugTriageEnv):
    """A broken environment: ends after one step and reports no grade."""

    def step_result(self, action: Any) -> StepResult:
        result = super().step_result(action)
        info = result.info.model_copy(update={"grader": None, "terminated": True})
        return result.model_copy(update={"terminated": True, "info": info})


def test_an_environment_that_ends_without_a_grade_is_an_error_not_a_zero() -> None:
    episode = start(EndsWithoutGrade(), ReplayPolicy(), "bug_triage_easy", 1).play()
    assert episode.done and len(episode.steps) == 1
    with pytest.raises(EpisodeRunningError, match="grader"):
        episode.agent_grade  # noqa: B018
