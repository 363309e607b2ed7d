"""Determinism: same task, seed and actions give the same bytes, in one process and across two."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from openenv_bug_triage.checker import check_env, policy_actions, rollout
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.policies import HeuristicPolicy, RandomPolicy, run_episode
from openenv_bug_triage.tasks import TASK_IDS

GOLDEN = Path(__file__).parent / "golden_rollouts.json"


def rollout_digest(policy_name: str, task_id: str, seed: int) -> str:
    policy = {"heuristic": HeuristicPolicy, "random": RandomPolicy}[policy_name]()
    data = "\n".join(rollout(task_id, seed, policy_actions(policy, task_id, seed)))
    return hashlib.sha256(data.encode()).hexdigest()


def all_digests() -> dict[str, str]:
    return {f"{p}/{t}/42": rollout_digest(p, t, 42) for p in ("heuristic", "random") for t in TASK_IDS}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_check_env(task_id):
    check_env(task_id, seed=42)
    check_env(task_id, seed=7)


def test_golden_rollouts_are_unchanged():
    """Rollout bytes are pinned; regenerate with UPDATE_GOLDEN=1 after an intended change."""
    digests = all_digests()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n")
    assert GOLDEN.exists(), "run UPDATE_GOLDEN=1 pytest tests/test_determinism.py to create the golden file"
    assert json.loads(GOLDEN.read_text()) == digests


def test_two_processes_give_the_same_bytes():
    code = (
        "import json, sys; sys.path.insert(0, 'tests');"
        "from test_determinism import all_digests; print(json.dumps(all_digests(), sort_keys=True))"
    )
    root = Path(__file__).parent.parent
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == all_digests()


def test_seeds_change_the_queue_order_and_nothing_else_random():
    orders = {
        tuple(
            BugTriageEnv().reset(task_id="bug_triage_hard", seed=s).model_dump()["queue"][i]["ticket_id"]
            for i in range(25)
        )
        for s in range(5)
    }
    assert len(orders) == 5
    a = BugTriageEnv().reset(task_id="bug_triage_hard", seed=1)
    b = BugTriageEnv().reset(task_id="bug_triage_hard", seed=2)
    assert sorted(q.ticket_id for q in a.queue) == sorted(q.ticket_id for q in b.queue)


def test_environment_never_touches_the_global_rng():
    random.seed(1234)
    before = random.getstate()
    for task_id in TASK_IDS:
        run_episode(RandomPolicy(), task_id, seed=5)
        run_episode(HeuristicPolicy(), task_id, seed=5)
    assert random.getstate() == before


def test_reset_restarts_cleanly():
    env = BugTriageEnv()
    first = env.reset(task_id="bug_triage_medium", seed=4)
    env.step({"action_type": "defer", "reason": "x"})
    again = env.reset(task_id="bug_triage_medium", seed=4)
    assert again == first
    assert env.state().step_count == 0
