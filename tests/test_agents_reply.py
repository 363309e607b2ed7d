"""The reply parser: every malformed reply is refused with a message naming the fix; valid ones round-trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openenv_bug_triage.actions import ACTION_ADAPTER, ActionParseError, ClassifyAction, CloseAction, NextTicketAction
from openenv_bug_triage.agents.reply import MAX_REPLY_CHARS, ReplyError, action_payload, parse_reply, strip_fence

CLASSIFY = {
    "action_type": "classify",
    "ticket_id": "BT-101",
    "severity": "sev1",
    "priority": "p0",
    "component": "login",
}
CLASSIFY_JSON = json.dumps(CLASSIFY)


@pytest.mark.parametrize(
    "reply",
    [
        CLASSIFY_JSON,
        f"  \n{CLASSIFY_JSON}\n\n",
        f"```json\n{CLASSIFY_JSON}\n```",
        f"```\n{CLASSIFY_JSON}\n```",
        f"\n  ```JSON\n{CLASSIFY_JSON}\n```  \n",
        f"```{CLASSIFY_JSON}```",
        json.dumps(CLASSIFY, indent=2),
        f"<think>\nIt crashes for everyone: {{sev0?}} No, one provider.\n</think>\n\n{CLASSIFY_JSON}",
        f"<think>x</think>```json\n{CLASSIFY_JSON}\n```",
    ],
    ids=[
        "bare",
        "whitespace",
        "fence-json",
        "fence-plain",
        "fence-upper-padded",
        "fence-inline",
        "indented",
        "think",
        "think-then-fence",
    ],
)
def test_accepted_replies(reply: str) -> None:
    action = parse_reply(reply)
    assert isinstance(action, ClassifyAction)
    assert action_payload(action) == CLASSIFY


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (f"Sure! Here is the action: {CLASSIFY_JSON}", "text before the JSON object"),
        (f"{CLASSIFY_JSON}\nI chose sev1 because it is a crash.", "text after the JSON value"),
        (f"{CLASSIFY_JSON}\n{CLASSIFY_JSON}", "text after the JSON value"),
        (f"[{CLASSIFY_JSON}]", "JSON array, not an object"),
        ('"classify BT-101 as sev1"', "JSON string, not an object"),
        ("42", "JSON number, not an object"),
        ("null", "JSON null, not an object"),
        ("I think this ticket is a duplicate of BT-101.", "no JSON object"),
        (f"<think>a</think><think>b</think>{CLASSIFY_JSON}", "text before the JSON object"),
        (f"{CLASSIFY_JSON}<think>a</think>", "text after the JSON value"),
        (f"<think>{CLASSIFY_JSON}", "text before the JSON object"),
        ("", "empty"),
        ("   \n ", "empty"),
        ("```json\n```", "empty"),
        (f"```json\n```json\n{CLASSIFY_JSON}\n```\n```", "text before the JSON object"),
        ('{"action_type": "classify", "severity": "sev1",}', "not valid JSON"),
        ("{'action_type': 'next_ticket'}", "not valid JSON"),
        ('{"action_type": "next_ticket", "action_type": "close"}', "more than once"),
        ('{"action_type": "close", "reason": NaN}', "`NaN` is not valid JSON"),
        ("[" * 3000 + "]" * 3000, "could not be read as JSON"),
        ('{"n": ' + "9" * 5000 + "}", "could not be read as JSON"),
        (" " * (MAX_REPLY_CHARS + 1), "limit"),
    ],
    ids=[
        "prose-before",
        "prose-after",
        "two-objects",
        "array",
        "string",
        "number",
        "null",
        "plain-text",
        "two-think-blocks",
        "think-after",
        "unclosed-think",
        "empty",
        "blank",
        "empty-fence",
        "double-fence",
        "trailing-comma",
        "single-quotes",
        "duplicate-key",
        "nan",
        "deep-nesting",
        "huge-int",
        "too-long",
    ],
)
def test_refused_replies_name_the_problem(reply: str, message: str) -> None:
    with pytest.raises(ReplyError, match=message):
        parse_reply(reply)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({k: v for k, v in CLASSIFY.items() if k != "severity"}, "field `severity` is required"),
        ({**CLASSIFY, "confidence": 0.9}, "field `confidence` is not allowed"),
        ({"action_type": "assign", "ticket_id": "BT-101", "team": 7}, "field `team`: Input should be a valid string"),
        ({"action_type": "classify", "severity": 1, "priority": "p0", "component": "login"}, "field `severity`"),
        ({"action_type": "delete_all_tickets"}, "`action_type` must be one of"),
        ({"severity": "sev0"}, "`action_type` must be one of"),
        (
            {"action_type": "close", "ticket_id": "BT-1", "reason": "invalid", "close_all": True},
            "`close_all` is not allowed",
        ),
    ],
    ids=[
        "missing-field",
        "extra-field",
        "number-for-string",
        "number-for-literal",
        "unknown-type",
        "no-type",
        "planted",
    ],
)
def test_schema_violations_are_refused_with_the_validators_message(payload: dict, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        parse_reply(json.dumps(payload))


def test_none_reply_is_refused() -> None:
    with pytest.raises(ReplyError, match="no text"):
        parse_reply(None)


def test_payload_holds_only_schema_fields_and_drops_nulls() -> None:
    action = parse_reply('{"ticket_id": null, "action_type": "next_ticket"}')
    assert isinstance(action, NextTicketAction)
    assert action_payload(action) == {"action_type": "next_ticket"}
    close = parse_reply('{"reason": "invalid", "action_type": "close", "ticket_id": "BT-7"}')
    assert isinstance(close, CloseAction)
    assert list(action_payload(close)) == ["action_type", "ticket_id", "reason"]


def test_strip_fence_removes_exactly_one_layer() -> None:
    assert strip_fence("```json\n{}\n```") == "{}"
    assert strip_fence("```\n```json\n{}\n```\n```") == "```json\n{}\n```"
    assert strip_fence("no fence") == "no fence"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_an_action_or_an_action_parse_error(text: str) -> None:
    try:
        action = parse_reply(text)
    except ActionParseError:
        return
    assert action_payload(action)["action_type"]


_ACTIONS = st.sampled_from(
    [
        CLASSIFY,
        {"action_type": "assign", "ticket_id": "BT-9", "team": "identity"},
        {"action_type": "mark_duplicate", "ticket_id": "BT-9", "duplicate_of": "BT-3"},
        {"action_type": "request_info", "ticket_id": "BT-9", "missing": ["repro", "logs"], "question": "Which page?"},
        {"action_type": "defer", "reason": "feature request"},
        {"action_type": "close", "reason": "won't_fix"},
        {"action_type": "escalate_incident", "summary": "outage"},
        {"action_type": "next_ticket"},
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    _ACTIONS,
    st.sampled_from(["", " ", "\n", "\t\n  "]),
    st.sampled_from(["", " ", "\n", "  \n"]),
    st.booleans(),
    st.sampled_from(["", "json", "JSON"]),
)
def test_valid_actions_survive_whitespace_and_one_fence(
    action: dict, lead: str, trail: str, fence: bool, lang: str
) -> None:
    text = json.dumps(action, indent=None)
    if fence:
        text = f"```{lang}\n{text}\n```"
    parsed = parse_reply(f"{lead}{text}{trail}")
    assert parsed == ACTION_ADAPTER.validate_python(action)
