"""Live queues in the environment: arrivals, reporters' replies, the tracker search (issue 16).

Played on `live_fixture`'s hand-made queue (the fixed medium task made live), whose every event is known.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from live_fixture import ARRIVALS, TASK_ID, live_task, served
from server_helpers import LiveServer

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.agents.prompt import build_messages
from openenv_bug_triage.agents.trajectory import StepRecord, TrajectoryWriter, read_trajectory
from openenv_bug_triage.client import WebSocketEnv
from openenv_bug_triage.episode import start
from openenv_bug_triage.http_client import HttpEnvClient
from openenv_bug_triage.live import LiveClock, asked_items
from openenv_bug_triage.models import ObservationModel
from openenv_bug_triage.policies import HeuristicPolicy, OraclePolicy, ReplayPolicy
from openenv_bug_triage.tools.text import step_text


@pytest.fixture(autouse=True, scope="module")
def _live_task_served() -> Iterator[None]:
    with served():
        yield


def fresh() -> BugTriageEnv:
    env = BugTriageEnv()
    env.reset(task_id=TASK_ID)
    return env


def ask(tid: str, *missing: str) -> dict[str, Any]:
    return {"action_type": "request_info", "ticket_id": tid, "missing": list(missing)}


def test_tickets_still_to_arrive_are_nowhere_in_what_the_agent_sees() -> None:
    env = BugTriageEnv()
    obs = env.reset(task_id=TASK_ID)
    seen = obs.model_dump_json() + env.state().model_dump_json()
    assert not any(tid in seen for tid in ARRIVALS)
    _, _, _, info = env.step({"action_type": "mark_duplicate", "ticket_id": "BT-213", "duplicate_of": "BT-210"})
    assert not info["action_valid"] and "not in the queue" in info["error"]
    _, _, _, info = env.step({"action_type": "next_ticket", "ticket_id": "BT-212"})
    assert not info["action_valid"]


def test_a_ticket_arrives_at_its_step_with_its_sla_counted_from_then() -> None:
    env = fresh()
    for step in range(1, 4):
        obs, _, _, _ = env.step({"action_type": "next_ticket"})
        arrived = [e for e in obs.events if e.kind == "arrived"]
        assert [e.ticket_id for e in arrived] == (["BT-210"] if step == 3 else [])
    entry = next(q for q in obs.queue if q.ticket_id == "BT-210")
    assert entry.arrived_at_step == 3 and entry.status == "open"
    assert env.state().ticket_order[-1] == "BT-210"
    obs, _, _, _ = env.step({"action_type": "next_ticket"})
    assert obs.events == []  # each event is shown once


def test_a_reply_to_the_right_question_comes_back_and_settles_the_ticket_by_its_facts() -> None:
    env = fresh()
    _, reward, _, _ = env.step(ask("BT-204", "repro", "version"))
    assert reward.components == {"correct_request_info": 0.1}
    obs, _, _, _ = env.step({"action_type": "next_ticket"})
    assert next(q for q in obs.queue if q.ticket_id == "BT-204").status == "awaiting_info"
    obs, _, _, _ = env.step({"action_type": "next_ticket"})
    assert [(e.ticket_id, e.kind) for e in obs.events] == [("BT-210", "arrived"), ("BT-204", "answered")]
    assert next(q for q in obs.queue if q.ticket_id == "BT-204").status == "answered"
    obs, _, _, _ = env.step({"action_type": "next_ticket", "ticket_id": "BT-204"})
    ticket = obs.current_ticket
    assert ticket is not None and ticket.repro_steps_present and ticket.version == "2026.11.2"
    reply = ticket.comments[-1]
    assert reply.author == "Dana Whitfield" and reply.role == "reporter" and reply.time > ticket.created_at
    assert "Only tables" in reply.text and "2026.11.2" in reply.text
    classify = {"action_type": "classify", "ticket_id": "BT-204", "severity": "sev2", "component": "editor"}
    _, reward, _, _ = env.step(classify | {"priority": "p2"})
    assert reward.components == {"correct_severity": 0.2, "correct_priority": 0.15, "correct_component": 0.15}


def test_asking_for_what_does_not_settle_it_gets_an_answer_that_does_not_help() -> None:
    env = fresh()
    _, reward, _, _ = env.step(ask("BT-204", "version", "screenshot"))
    assert reward.components == {"unneeded_request_info": -0.05}
    env.step({"action_type": "next_ticket"})
    obs, _, _, _ = env.step({"action_type": "next_ticket", "ticket_id": "BT-204"})
    ticket = obs.current_ticket
    assert ticket is not None and not ticket.repro_steps_present
    assert "Only tables" not in ticket.comments[-1].text and "2026.11.2" in ticket.comments[-1].text
    # still a report that needs information: asking again, for the steps this time, is right
    _, reward, _, _ = env.step(ask("BT-204", "steps to reproduce"))
    assert reward.components == {"correct_request_info": 0.1}


def test_a_reporter_who_never_answers_leaves_the_ticket_awaiting_info_which_ends_right() -> None:
    env = fresh()
    env.step(ask("BT-215", "repro", "logs"))
    for _ in range(20):
        obs, _, done, _ = env.step({"action_type": "next_ticket"})
        assert next(q for q in obs.queue if q.ticket_id == "BT-215").status == "awaiting_info"
        if done:
            break
    assert not any(m.startswith("BT-215") for m in env.grade().mistakes)


def test_when_nothing_is_left_to_work_the_queue_jumps_to_what_comes_next() -> None:
    env = BugTriageEnv()
    episode = start(env, OraclePolicy(), TASK_ID, seed=0).play()
    assert episode.done and episode.agent_grade.score == 1.0
    arrived = {e.ticket_id: e.step for s in episode.steps for e in s.observation.events if e.kind == "arrived"}
    assert arrived == ARRIVALS  # the oracle is busy until both arrive
    # idle time: with nothing open, the clock jumps to the next event without a step
    clock = LiveClock(live_task().live)  # type: ignore[arg-type]
    clock.clock = 1
    clock.jump()
    assert clock.clock == ARRIVALS["BT-210"] and [d.ticket_id for d in clock.due()] == ["BT-210"]
    clock.arrived["BT-210"] = 1
    clock.ask("BT-204", ("repro",))
    assert [(d.ticket_id, d.due) for d in clock.pending()] == [("BT-212", 5), ("BT-204", 5)]  # arrivals first


def test_search_ranks_the_history_and_links_to_an_earlier_tracker_ticket() -> None:
    env = fresh()
    obs, reward, _, info = env.step({"action_type": "search_tracker", "query": "scheduled PDF snapshot dashboard"})
    assert info["action_valid"] and reward.components == {}
    assert [e.ticket_id for e in obs.search_results][:1] == ["BT-090"]
    closed = env.step({"action_type": "search_tracker", "query": "dashboard", "status": "closed"})[0]
    assert {e.status for e in closed.search_results} == {"closed"} and closed.search_results
    _, reward, _, _ = env.step({"action_type": "search_tracker", "query": "dashboard", "status": "closed"})
    assert reward.components == {"no_op": -0.02}  # the same search again
    obs, _, _, _ = env.step({"action_type": "next_ticket"})
    assert obs.search_results == []  # results belong to the step that searched
    _, reward, _, _ = env.step({"action_type": "mark_duplicate", "ticket_id": "BT-213", "duplicate_of": "BT-090"})
    assert reward.components == {"correct_duplicate": 0.15}


def test_a_static_queue_refuses_the_search_and_keeps_request_info_final() -> None:
    env = BugTriageEnv()
    env.reset(task_id="bug_triage_medium")
    _, _, _, info = env.step({"action_type": "search_tracker", "query": "export"})
    assert not info["action_valid"] and "live levels" in info["error"]
    env.step(ask("BT-204", "repro"))
    for _ in range(10):
        obs, _, _, _ = env.step({"action_type": "next_ticket"})
    assert next(q for q in obs.queue if q.ticket_id == "BT-204").status == "awaiting_info"


def test_the_item_words_a_request_may_use() -> None:
    assert asked_items(["Steps to reproduce", "LOGS", "app version", "what?"]) == ("repro", "logs", "version")


def test_no_reply_words_reach_the_agent_before_the_reply_arrives() -> None:
    env = BugTriageEnv()
    seen = [env.reset(task_id=TASK_ID).model_dump_json()]
    for action in [ask("BT-204", "repro"), {"action_type": "next_ticket"}]:
        obs, _, _, _ = env.step(action)
        seen.append(obs.model_dump_json() + env.state().model_dump_json())
    assert not any("Only tables" in text or "Dana Whitfield" in text for text in seen)


def _transcript(env: Any, actions: list[dict[str, Any]]) -> list[str]:
    """Every observation and reward of an episode that plays `actions`, as the bytes of the env's own models."""
    steps = start(env, ReplayPolicy(actions), TASK_ID, seed=0).play().steps
    return [
        ObservationModel.model_validate(
            s.observation.model_dump(include=set(ObservationModel.model_fields))
        ).model_dump_json()
        + s.reward.model_dump_json()
        for s in steps
    ]


def test_same_actions_give_the_same_bytes_in_process_over_http_and_over_the_websocket(server: LiveServer) -> None:
    planned = start(BugTriageEnv(), OraclePolicy(), TASK_ID, seed=0).play().actions
    actions = [ask("BT-204", "version"), {"action_type": "search_tracker", "query": "PDF"}, *planned]
    local = _transcript(BugTriageEnv(), actions)
    assert local == _transcript(BugTriageEnv(), actions)
    assert any('"events"' in step for step in local) and any('"search_results"' in step for step in local)
    with closing(HttpEnvClient(server.url)) as http_env:
        assert _transcript(http_env, actions) == local
    with closing(WebSocketEnv(server.url)) as ws_env:
        assert _transcript(ws_env, actions) == local


@pytest.mark.parametrize("policy", [OraclePolicy])
def test_the_oracle_scores_one_on_the_live_queue(policy: type) -> None:
    episode = start(BugTriageEnv(), policy(), TASK_ID, seed=0).play()
    assert episode.agent_grade.score == 1.0 and episode.invalid_actions == 0


def test_the_heuristic_asks_a_vague_reporter_then_settles_the_answer_and_searches_before_new_bugs() -> None:
    episode = start(BugTriageEnv(), HeuristicPolicy(), TASK_ID, seed=0).play()
    on_204 = [s.action["action_type"] for s in episode.steps if s.action.get("ticket_id") == "BT-204"]
    assert on_204[0] == "request_info" and "classify" in on_204[1:]
    searches = [s for s in episode.steps if s.action["action_type"] == "search_tracker"]
    assert searches and all(s.result.info.action_valid for s in searches)
    never = start(BugTriageEnv(), HeuristicPolicy(asks="never", searches="never"), TASK_ID, seed=0).play()
    assert not {s.action["action_type"] for s in never.steps} & {"request_info", "search_tracker"}


def test_a_link_to_the_history_needs_a_search_that_showed_it() -> None:
    env = fresh()
    link = {"action_type": "mark_duplicate", "ticket_id": "BT-213", "duplicate_of": "BT-090"}
    _, _, _, info = env.step(link)
    assert not info["action_valid"] and "search_tracker" in info["error"]
    env.step({"action_type": "search_tracker", "query": "weekly PDF snapshot"})
    _, reward, _, _ = env.step(link)
    assert reward.components == {"correct_duplicate": 0.15}


def test_asked_again_a_reporter_sends_only_what_they_have_not_sent() -> None:
    env = fresh()
    env.step(ask("BT-204", "repro"))
    env.step({"action_type": "next_ticket"})
    env.step({"action_type": "next_ticket"})  # the reply comes in
    env.step(ask("BT-204", "repro", "version"))
    env.step({"action_type": "next_ticket"})
    obs, _, _, _ = env.step({"action_type": "next_ticket", "ticket_id": "BT-204"})
    assert obs.current_ticket is not None
    first, second = obs.current_ticket.comments[-2:]
    assert "Only tables" in first.text and "Only tables" not in second.text and "2026.11.2" in second.text


def test_the_agents_text_shows_news_and_search_results_fenced_and_a_static_queue_none() -> None:
    env = fresh()
    before, _, _, _ = env.step({"action_type": "next_ticket"})
    env.step({"action_type": "next_ticket"})
    after, reward, _, _ = env.step({"action_type": "search_tracker", "query": "PDF snapshot of the dashboard"})
    assert [e.ticket_id for e in after.events] == ["BT-210"] and after.search_results
    user = build_messages(after, [])[1]["content"]
    assert "New since your last action: BT-210 arrived." in user
    fenced = user.split("<<<SEARCH>>>\n", 1)[1].split("\n<<<END SEARCH>>>", 1)[0]
    assert "BT-090" in fenced and len(fenced.splitlines()) == len(after.search_results)
    tool = step_text(before, after, reward.value, None, None)
    assert "arrived: BT-210 |" in tool and "BT-210 arrived" in tool and "<<<SEARCH>>>" in tool
    static = BugTriageEnv().reset(task_id="bug_triage_medium")
    text = build_messages(static, [])[1]["content"]
    assert "New since" not in text and "<<<SEARCH>>>" not in text


def test_a_trajectory_records_what_each_step_found_and_what_came_after_it(tmp_path: Path) -> None:
    episode = start(BugTriageEnv(), OraclePolicy(), TASK_ID, seed=0).play()
    with TrajectoryWriter(tmp_path / "live.jsonl", "oracle", "none") as writer:
        writer.start(TASK_ID, 0)
        for step in episode.steps:
            writer.step(step, [])
    steps = [r for r in read_trajectory(tmp_path / "live.jsonl") if isinstance(r, StepRecord)]
    assert {e.ticket_id for s in steps for e in s.events} == {"BT-210", "BT-212", "BT-204"}
    assert any("BT-090" in s.found for s in steps)
    static = TrajectoryWriter(tmp_path / "static.jsonl", "oracle", "none")
    static.start("bug_triage_easy", 42)
    static.step(start(BugTriageEnv(), OraclePolicy(), "bug_triage_easy", 42).play(limit=1).steps[0], [])
    static.close()
    line = (tmp_path / "static.jsonl").read_text()
    assert '"events"' not in line and '"found"' not in line  # a static queue's records are as before
