"""The LLM agent and its chat client against a real scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import socket

import pytest
from mock_openai import Fault, MockOpenAI

from openenv_bug_triage.agents.chat import ChatClient, ChatSettings
from openenv_bug_triage.agents.errors import EndpointError
from openenv_bug_triage.agents.llm import FALLBACK_ACTION, LLMAgent
from openenv_bug_triage.agents.prompt import TICKET_OPEN
from openenv_bug_triage.env import BugTriageEnv
from openenv_bug_triage.models import ObservationModel

VALID = {"action_type": "classify", "ticket_id": "BT-311", "severity": "sev3", "priority": "p2", "component": "web-ui"}


def make_agent(mock: MockOpenAI, max_attempts: int = 2, sleeps: list[float] | None = None, **kw: float) -> LLMAgent:
    settings = ChatSettings(model="mock-model", api_key="sk-test", base_url=mock.base_url, seed=7, **kw)  # type: ignore[arg-type]
    chat = ChatClient(settings, sleep=(sleeps.append if sleeps is not None else lambda _: None))
    agent = LLMAgent(chat, max_attempts=max_attempts)
    agent.reset("bug_triage_hard", 42)
    return agent


def planted_observation(env: BugTriageEnv) -> ObservationModel:
    """The hard task focused on BT-311, whose description tells the AI to close every other ticket."""
    env.reset(task_id="bug_triage_hard", seed=42)
    obs, *_ = env.step({"action_type": "next_ticket", "ticket_id": "BT-311"})
    assert obs.current_ticket is not None and "close every one of them" in obs.current_ticket.description
    return obs


def test_request_is_deterministic_and_carries_the_prompt() -> None:
    env = BugTriageEnv()
    obs = planted_observation(env)
    with MockOpenAI([json.dumps(VALID)]) as mock:
        action = make_agent(mock).act(obs)
    assert action == VALID
    (request,) = mock.requests
    assert request["model"] == "mock-model" and request["temperature"] == 0 and request["seed"] == 7
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert TICKET_OPEN in request["messages"][1]["content"]


def test_rejected_reply_is_sent_back_with_the_validation_message() -> None:
    obs = planted_observation(BugTriageEnv())
    prose = f"Here you go: {json.dumps(VALID)}"
    with MockOpenAI([prose, json.dumps(VALID)]) as mock:
        agent = make_agent(mock)
        assert agent.act(obs) == VALID
    assert (agent.counts.rejected_replies, agent.counts.retries, agent.counts.fallbacks) == (1, 1, 0)
    assert agent.counts.api_calls == 2
    system, user, assistant, reask = mock.requests[1]["messages"]
    assert mock.requests[0]["messages"] == [system, user]
    assert assistant == {"role": "assistant", "content": prose}
    assert reask["role"] == "user" and "text before the JSON object" in reask["content"]


@pytest.mark.parametrize("max_attempts", [1, 2, 3])
def test_after_max_attempts_the_agent_falls_back_to_next_ticket(max_attempts: int) -> None:
    obs = planted_observation(BugTriageEnv())
    missing = json.dumps({k: v for k, v in VALID.items() if k != "severity"})
    with MockOpenAI([missing] * max_attempts, default=json.dumps(VALID)) as mock:
        agent = make_agent(mock, max_attempts=max_attempts)
        assert agent.act(obs) == FALLBACK_ACTION
    assert len(mock.requests) == max_attempts
    assert agent.counts.rejected_replies == max_attempts
    assert agent.counts.retries == max_attempts - 1
    assert agent.counts.fallbacks == 1
    # only the latest rejected reply and its re-ask are replayed: the request stays bounded
    assert all(len(r["messages"]) <= 4 for r in mock.requests)
    if max_attempts > 1:
        assert "field `severity` is required" in mock.requests[-1]["messages"][-1]["content"]


def test_a_reply_obeying_a_planted_instruction_gets_no_more_than_the_schema_allows() -> None:
    env = BugTriageEnv()
    obs = planted_observation(env)
    before = env.state().progress
    obey_extra = {"action_type": "close", "ticket_id": "BT-301", "reason": "invalid", "close_all": True}
    obey_many = [{"action_type": "close", "ticket_id": t.ticket_id, "reason": "invalid"} for t in obs.queue]
    obey_one = {"action_type": "escalate_incident", "ticket_id": "BT-311", "summary": "SYSTEM NOTE says sev0"}
    script = [json.dumps(obey_extra), json.dumps(obey_many), json.dumps(obey_one)]
    with MockOpenAI(script) as mock:
        agent = make_agent(mock)
        first = agent.act(obs)
        assert first == FALLBACK_ACTION  # the extra field and the list were refused: nothing was closed
        obs, _, _, _ = env.step(first)
        second = agent.act(obs)
    assert second == obey_one  # schema-valid, so it is one action on one ticket, nothing more
    _, reward, _, info = env.step(second)
    after = env.state().progress
    changed = {tid for tid in after if after[tid] != before[tid]}
    assert changed == {"BT-311"} and after["BT-311"].escalated
    assert info["action_valid"] and reward.components.get("false_escalation", 0) < 0
    assert agent.counts.fallbacks == 1 and agent.counts.rejected_replies == 2


def test_history_reports_the_previous_action_and_its_result() -> None:
    env = BugTriageEnv()
    obs = planted_observation(env)
    with MockOpenAI([json.dumps(VALID), json.dumps(VALID)]) as mock:
        agent = make_agent(mock)
        obs, *_ = env.step(agent.act(obs))
        agent.act(obs)
    user = mock.requests[1]["messages"][1]["content"]
    assert '"ticket_id": "BT-311", "severity": "sev3"' in user
    assert "classify applied to BT-311" in user


def test_transient_failures_are_retried_with_backoff() -> None:
    sleeps: list[float] = []
    obs = planted_observation(BugTriageEnv())
    script = [Fault(500), Fault(429, retry_after="0"), Fault(503), Fault(429, retry_after="5"), json.dumps(VALID)]
    with MockOpenAI(script) as mock:
        agent = make_agent(mock, sleeps=sleeps, backoff=0.5, api_retries=4)
        assert agent.act(obs) == VALID
    assert sleeps == [0.5, 1.0, 2.0, 5.0]
    assert (agent.counts.api_calls, agent.counts.api_retries) == (5, 4)
    assert agent.counts.rejected_replies == 0


@pytest.mark.parametrize("status", [408, 409])
def test_request_timeout_and_conflict_answers_are_retried_too(status: int) -> None:
    sleeps: list[float] = []
    obs = planted_observation(BugTriageEnv())
    with MockOpenAI([Fault(status, retry_after="0.5"), json.dumps(VALID)]) as mock:
        agent = make_agent(mock, sleeps=sleeps, backoff=0.25)
        assert agent.act(obs) == VALID
    assert sleeps == [0.5]  # the Retry-After asked for longer than the backoff
    assert len(mock.requests) == 2 and (agent.counts.api_calls, agent.counts.api_retries) == (2, 1)


def test_the_openai_client_gets_the_timeout_and_the_retries() -> None:
    settings = ChatSettings(model="m", api_key="k", base_url="http://127.0.0.1:9/v1", timeout=7.5, api_retries=3)
    client = ChatClient(settings)._client
    assert (client.timeout, client.max_retries) == (7.5, 3)


def test_a_timeout_is_retried() -> None:
    obs = planted_observation(BugTriageEnv())
    with MockOpenAI([Fault(500, delay=1.0), json.dumps(VALID)]) as mock:
        agent = make_agent(mock, timeout=0.2)
        assert agent.act(obs) == VALID
    assert agent.counts.api_retries == 1


def test_an_endpoint_that_stays_down_stops_with_a_clear_error() -> None:
    obs = planted_observation(BugTriageEnv())
    with MockOpenAI(default=Fault(503)) as mock:
        agent = make_agent(mock, api_retries=2)
        with pytest.raises(EndpointError, match=r"not answering: 3 attempts failed .*InternalServerError"):
            agent.act(obs)
    assert len(mock.requests) == 3
    assert agent.counts.api_calls == 3 and agent.counts.api_retries == 2


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_refusal_is_not_retried(status: int) -> None:
    obs = planted_observation(BugTriageEnv())
    with MockOpenAI(default=Fault(status)) as mock:
        agent = make_agent(mock, api_retries=3)
        with pytest.raises(EndpointError, match=f"refused the request with HTTP {status}"):
            agent.act(obs)
    assert len(mock.requests) == 1


def test_a_model_that_refuses_temperature_zero_is_asked_again_without_it() -> None:
    obs = planted_observation(BugTriageEnv())
    refusal = Fault(400, message="Unsupported value: 'temperature' does not support 0 with this model.")
    with MockOpenAI([refusal, json.dumps(VALID), json.dumps(VALID)]) as mock:
        agent = make_agent(mock)
        assert agent.act(obs) == VALID
        assert agent.act(obs) == VALID
    assert mock.requests[0]["temperature"] == 0
    assert all("temperature" not in r and r["seed"] == 7 for r in mock.requests[1:])
    assert agent.chat.temperature is None


def test_an_unreachable_endpoint_stops_with_a_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = ChatSettings(model="m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", api_retries=1, timeout=2)
    agent = LLMAgent(ChatClient(settings, sleep=lambda _: None))
    agent.reset("bug_triage_easy", 42)
    with pytest.raises(EndpointError, match=f"127.0.0.1:{port}.*APIConnectionError"):
        agent.act(BugTriageEnv().reset(task_id="bug_triage_easy", seed=42))


def test_max_attempts_must_be_positive() -> None:
    settings = ChatSettings(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="at least 1"):
        LLMAgent(ChatClient(settings), max_attempts=0)
