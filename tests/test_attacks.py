"""Attacks an adversarial agent or a careless second client tried, replayed over HTTP (the shared loopback
server, or an app of its own in-process where the attack needs other settings).

Each test plays the attack the way it was first done and checks that it now gets nothing:
no expected labels from `/grader`, no reach into another client's episode, no bug/not-a-bug
signal from relabel charges or from the wording of the agent's grade, no SLA credit for a
throwaway settlement, no hint table in the README or docs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from server_helpers import REPO, TRAINER, TRAINER_TOKEN, LiveServer, in_process, reset_holding_secret

from openenv_bug_triage.sources import load_task
from openenv_bug_triage.tasks import TASK_IDS
from server.app import build_app
from server.config import Settings

NEXT = {"action_type": "next_ticket"}
EPISODE_TERMS = {"sla_breach", "missed_escalation", "critical_left_penalty", "critical_done_bonus"}
"""Reward components about the whole queue or its end, not about the action taken."""


@pytest.fixture
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def reset(http: httpx.Client, **body: Any) -> str:
    """Start an episode; `http` then holds its secret (sends it on every request)."""
    return reset_holding_secret(http, body)["episode_id"]


def step(http: httpx.Client, episode_id: str, action: dict) -> dict:
    reply = http.post("/step", json={"action": action, "episode_id": episode_id})
    assert reply.status_code == 200, reply.text
    return reply.json()


def burn_budget(http: httpx.Client, episode_id: str) -> dict:
    """Step `next_ticket` until the episode ends; returns the last step's reply."""
    while not (data := step(http, episode_id, NEXT))["done"]:
        pass
    return data


# --------------------------------------------------------------------------- 1. /grader as an answer key


def truth_values(task_id: str) -> set[str]:
    """Every label, team and original the truth of `task_id` names."""
    values: set[str] = set()
    for t in load_task(task_id).truth.values():
        values |= {t.true_severity, t.true_priority, t.true_component, t.true_assignee_team}
        values |= {t.duplicate_of} if t.duplicate_of else set()
    return values


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_a_side_episode_gets_no_answer_key_from_the_grader(http: httpx.Client, task_id: str) -> None:
    side = reset(http, task_id=task_id, seed=1)
    burn_budget(http, side)
    answers = []
    for headers in ({}, {"Authorization": "Bearer wrong-token-0000000000000"}, {"Authorization": TRAINER_TOKEN}):
        reply = http.get("/grader", params={"episode_id": side}, headers=headers)
        assert reply.status_code == 200
        answers.append(reply.content)
        grade = reply.json()
        assert not any("expected" in m for m in grade["mistakes"])
        named = {w for m in grade["mistakes"] for w in re.findall(r"[\w'-]+", m.split(":", 1)[1])}
        assert named.isdisjoint(truth_values(task_id) - {"open"}), "a mistake names a true label"
    assert len(set(answers)) == 1, "a wrong or malformed token gets exactly the agent's copy"
    full = http.get("/grader", params={"episode_id": side}, headers=TRAINER).json()
    assert any("expected" in m for m in full["mistakes"]), "the trainer still gets the full grade"
    assert full["score"] == grade["score"] and full["subscores"] == grade["subscores"]


def test_no_answer_tells_whether_a_trainer_token_is_set() -> None:
    def side_grade(settings: Settings, headers: dict[str, str]) -> bytes:
        with in_process(build_app(settings)) as client:
            episode_id = reset(client, task_id="bug_triage_easy", seed=1)
            burn_budget(client, episode_id)
            reply = client.get("/grader", params={"episode_id": episode_id}, headers=headers)
            assert reply.status_code == 200
            return reply.content.replace(episode_id.encode(), b"ID")

    for headers in ({}, {"Authorization": "Bearer guess-guess-guess-guess"}, {"Authorization": "Basic Zm9vOmJhcg=="}):
        assert side_grade(Settings(), headers) == side_grade(Settings(trainer_token=TRAINER_TOKEN), headers)


# --------------------------------------------------------------------------- 2. id-less cross-talk


def test_requests_without_an_id_never_reach_another_clients_episode() -> None:
    app = build_app(Settings())
    with in_process(app) as a, in_process(app) as b:
        first = reset(a, task_id="bug_triage_hard", seed=3)
        reset(b, task_id="bug_triage_easy", seed=1)  # b never learns `first`
        for reply in (
            b.get("/state"),
            b.post("/step", json={"action": NEXT}),
            b.get("/grader"),
        ):
            assert reply.status_code == 409, reply.text
            error = reply.json()["error"]
            assert error["type"] == "episode_id_required"
            assert "episode_id that POST /reset returned" in error["message"]
        for reply in (  # b learns the id, yet the id alone reaches nothing
            b.get("/state", params={"episode_id": first}),
            b.post("/step", json={"action": NEXT, "episode_id": first}),
            b.get("/grader", params={"episode_id": first}),
            b.post("/reset", json={"episode_id": first}),
        ):
            assert reply.status_code == 403, reply.text
            assert reply.json()["error"]["type"] == "episode_secret_wrong"
        assert a.get("/state", params={"episode_id": first}).json()["step_count"] == 0


def test_a_single_client_without_ids_still_plays_a_whole_episode() -> None:
    with in_process(build_app(Settings())) as http:
        reset(http)
        done = False
        while not done:
            reply = http.post("/step", json={"action": NEXT})
            assert reply.status_code == 200, reply.text
            done = reply.json()["done"]
        assert http.get("/state").json()["done"] is True
        assert http.get("/grader").status_code == 200
        reset(http)  # a second episode: the first is finished
        assert http.post("/step", json={"action": NEXT}).status_code == 200


def test_reset_with_an_episode_id_and_no_task_restarts_its_own_task(http: httpx.Client) -> None:
    episode_id = reset(http, task_id="bug_triage_hard", seed=5)
    step(http, episode_id, NEXT)
    again = http.post("/reset", json={"episode_id": episode_id}).json()
    assert again["observation"]["task_id"] == "bug_triage_hard"
    assert http.get("/state", params={"episode_id": episode_id}).json()["step_count"] == 0
    fresh = http.post("/reset", json={"episode_id": "never-seen-before"}).json()
    assert fresh["observation"]["task_id"] == "bug_triage_easy"


# --------------------------------------------------------------------------- 3. relabel as a bug detector


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_assigning_twice_tells_nothing_about_a_ticket(http: httpx.Client, task_id: str) -> None:
    task = load_task(task_id)
    second_rewards: dict[str, set[str]] = {"fix": set(), "other": set()}
    episode_id = reset(http, task_id=task_id, seed=1)
    for ticket in task.tickets:
        for team in ("frontend", "sre"):
            data = step(http, episode_id, {"action_type": "assign", "ticket_id": ticket.ticket_id, "team": team})
            if data["done"]:
                episode_id = reset(http, task_id=task_id, seed=1)
        kind = "fix" if task.truth[ticket.ticket_id].disposition == "fix" else "other"
        components = {k: v for k, v in data["info"]["reward"]["components"].items() if k not in EPISODE_TERMS}
        second_rewards[kind].add(repr(sorted(components.items())))
    assert second_rewards["fix"] == second_rewards["other"] == {repr([("relabel", -0.05)])}


# --------------------------------------------------------------------------- 4. the agent's grade as a bug detector


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_final_grade_words_every_wrong_ticket_alike(http: httpx.Client, task_id: str) -> None:
    task = load_task(task_id)
    episode_id = reset(http, task_id=task_id, seed=1)
    data: dict = {"done": False}
    guess = {"action_type": "classify", "severity": "sev3", "priority": "p3", "component": "web-ui"}
    for ticket in task.tickets:
        for action in ({**guess, "ticket_id": ticket.ticket_id}, {"action_type": "assign", "team": "sre"}):
            action.setdefault("ticket_id", ticket.ticket_id)
            if not data["done"]:
                data = step(http, episode_id, action)
    if not data["done"]:
        data = burn_budget(http, episode_id)
    for grade in (data["info"]["grader"], http.get("/grader", params={"episode_id": episode_id}).json()):
        shapes = {re.sub(r"^BT-\d+", "ID", m) for m in grade["mistakes"]}
        assert shapes <= {
            "ID: not settled as the handbook says (final state: triaged)",
            "ID: not settled as the handbook says (final state: classified)",
            "ID: not settled as the handbook says (final state: open)",
        }, shapes
        assert not any(re.match(r"^\d", m) for m in grade["mistakes"]), "no counts of incidents or tickets"


# --------------------------------------------------------------------------- 5. SLA credit for a throwaway settlement


def test_a_throwaway_triage_before_the_deadline_earns_no_sla_credit(http: httpx.Client) -> None:
    task = load_task("bug_triage_easy")
    target = next(t for t in task.tickets if t.sla_deadline_step and task.truth[t.ticket_id].disposition != "fix")
    deadline = target.sla_deadline_step
    assert deadline is not None
    episode_id = reset(http, task_id="bug_triage_easy", seed=1)
    tid = target.ticket_id
    step(
        http,
        episode_id,
        {"action_type": "classify", "ticket_id": tid, "severity": "sev3", "priority": "p2", "component": "web-ui"},
    )
    step(http, episode_id, {"action_type": "assign", "ticket_id": tid, "team": "frontend"})
    while http.get("/state", params={"episode_id": episode_id}).json()["step_count"] < deadline + 1:
        step(http, episode_id, NEXT)
    reason = {"close_wont_fix": "won't_fix", "close_invalid": "invalid"}.get(task.truth[tid].disposition)
    action = (
        {"action_type": "close", "ticket_id": tid, "reason": reason}
        if reason
        else {"action_type": "defer", "ticket_id": tid, "reason": "later"}
    )
    data = step(http, episode_id, action)
    assert data["info"]["reward"]["components"].get("sla_breach") == -0.05, "the late final state is a breach"
    progress = http.get("/state", params={"episode_id": episode_id}).json()["progress"][tid]
    assert progress["settled_at_step"] == deadline + 2


# --------------------------------------------------------------------------- 7. the README and docs as a hint table


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_the_readme_and_docs_name_no_ticket_and_quote_no_ticket_text() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    readme = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    tickets = [t for task_id in TASK_IDS for t in load_task(task_id).tickets]
    assert [t.ticket_id for t in tickets if t.ticket_id in readme] == []
    flat = f" {' '.join(_words(readme))} "
    for ticket in tickets:  # no four words in a row of any title
        title = _words(ticket.title)
        for i in range(len(title) - 3):
            assert f" {' '.join(title[i : i + 4])} " not in flat, ticket.title
    texts = " ".join(" ".join(_words(f"{t.title} {t.description} {t.log_excerpt or ''}")) for t in tickets)
    quoted = re.findall(r'"([^"\n]{3,80})"', readme) + re.findall(r"\b[A-Z]{3,}(?: [A-Z]{3,})+\b", readme)
    for phrase in quoted:  # no quoted or shouted phrase that a ticket says
        words = [w for w in _words(phrase) if w not in ("a", "an", "the")]
        assert len(words) < 2 or f" {' '.join(words)} " not in f" {texts} ", phrase
