"""`check_env`: small checks, one property each, that every task must pass (run in the tests)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .env import BugTriageEnv
from .episode import Policy, start
from .errors import BugTriageError
from .models import ObservationModel, Truth
from .policies import OraclePolicy, RandomPolicy, run_episode

TRUTH_KEYS: frozenset[str] = frozenset(set(Truth.model_fields) - {"duplicate_of"}) | {"truth"}
"""Keys that only hidden truth uses. (`duplicate_of` is also an action field, so it is not listed.)"""


class CheckError(BugTriageError, AssertionError):
    """A task failed one of the environment checks."""


def dump(value: Any) -> str:
    """Canonical JSON of a model, a tuple of models or plain data: the bytes determinism is judged on."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    elif isinstance(value, tuple):
        return "[" + ",".join(dump(v) for v in value) + "]"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def find_truth_keys(payload: Any) -> set[str]:
    """Truth-only keys anywhere in a nested dict/list payload."""
    found: set[str] = set()
    stack = [payload]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found |= TRUTH_KEYS & set(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def rollout(task_id: str, seed: int, actions: Iterable[Any]) -> list[str]:
    """Canonical bytes of every reset/step output for a fixed action list (stops when done)."""
    env = BugTriageEnv()
    out = [dump(env.reset(task_id=task_id, seed=seed))]
    for action in actions:
        obs, reward, done, info = env.step(action)
        out.append(dump((obs, reward, done, info)))
        if done:
            break
    out.append(dump(env.state()))
    return out


def check_reset_determinism(task_id: str, seed: int) -> None:
    """Two environments reset with the same seed show the same bytes."""
    a, b = BugTriageEnv(), BugTriageEnv()
    if dump(a.reset(task_id=task_id, seed=seed)) != dump(b.reset(task_id=task_id, seed=seed)):
        raise CheckError(f"{task_id}: reset(seed={seed}) is not deterministic")


def policy_actions(policy: Policy, task_id: str, seed: int, limit: int | None = None) -> list[dict[str, Any]]:
    """The actions `policy` takes in one episode (at most `limit` of them)."""
    return start(BugTriageEnv(), policy, task_id, seed).play(limit=limit).actions


def check_step_determinism(task_id: str, seed: int, policy: Policy | None = None, steps: int = 60) -> None:
    """Two environments fed the same actions produce identical observations, rewards and info."""
    actions = policy_actions(policy or RandomPolicy(), task_id, seed, limit=steps)
    if rollout(task_id, seed, actions) != rollout(task_id, seed, actions):
        raise CheckError(f"{task_id}: the same actions gave different outputs")


def check_no_truth_before_done(task_id: str, seed: int, policy: Policy | None = None) -> None:
    """No observation, state or info carries a truth-only key before the episode ends."""
    env = BugTriageEnv()
    episode = start(env, policy or RandomPolicy(), task_id, seed)
    _check_visible(task_id, episode.first, env)
    for step in episode:
        if step.done:
            break
        if keys := find_truth_keys(step.info):
            raise CheckError(f"{task_id}: hidden truth keys {sorted(keys)} in info before the end")
        _check_visible(task_id, step.observation, env)


def _check_visible(task_id: str, obs: ObservationModel, env: BugTriageEnv) -> None:
    for payload in (obs.model_dump(mode="json"), env.state().model_dump(mode="json")):
        if keys := find_truth_keys(payload):
            raise CheckError(f"{task_id}: hidden truth keys {sorted(keys)} reached the agent")


def check_bounds(task_id: str, seed: int, policy: Policy | None = None) -> None:
    """Every step reward is in [-1, 1] and the final score in [0, 1]."""
    result = run_episode(policy or RandomPolicy(), task_id, seed)
    if any(not -1.0 <= r <= 1.0 for r in result.rewards):
        raise CheckError(f"{task_id}: a step reward left [-1, 1]: {result.rewards}")
    if not 0.0 <= result.grade.score <= 1.0:
        raise CheckError(f"{task_id}: score {result.grade.score} left [0, 1]")


def check_oracle_perfect(task_id: str, seed: int) -> None:
    """The correct triage, most urgent SLA first, scores exactly 1.0 within the budget."""
    result = run_episode(OraclePolicy(), task_id, seed)
    if result.grade.score != 1.0 or result.grade.mistakes:
        raise CheckError(f"{task_id}: oracle scored {result.grade.score}: {result.grade.mistakes[:5]}")


def check_env(task_id: str, seed: int = 42) -> None:
    """Run every check on one task; raises `CheckError` on the first failure."""
    check_reset_determinism(task_id, seed)
    check_step_determinism(task_id, seed)
    check_no_truth_before_done(task_id, seed)
    check_bounds(task_id, seed)
    check_oracle_perfect(task_id, seed)
