"""The one place a model's reply becomes an action: strip, unfence, parse one JSON object, validate.

A reply is untrusted. It must be exactly one JSON object, optionally inside one Markdown
code fence and surrounding whitespace, and optionally after one leading `<think>...</think>`
reasoning block (as reasoning models served by vLLM, Ollama or the HF router emit); prose around the object is refused, not searched,
so an action quoted in a model's commentary is never executed. The object is validated by
`actions.parse_action`, the same validator the environment uses, so nothing beyond what the
action schema allows can reach the environment.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from ..actions import ActionModel, ActionParseError, parse_action

MAX_REPLY_CHARS = 8000
"""Longer replies are refused unread: an action is a few hundred characters."""

_FENCE = re.compile(r"\A```[ \t]*[A-Za-z0-9_+-]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```\Z", re.DOTALL)
_THINK = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL)
_ONLY_JSON = "reply with only the JSON object of one action, no prose before or after it"


class ReplyError(ActionParseError):
    """The reply is not exactly one JSON object; the message says what to send instead."""


def strip_fence(text: str) -> str:
    """`text` without one leading <think> block, surrounding whitespace and one surrounding ``` fence."""
    text = _THINK.sub("", text, count=1).strip()
    match = _FENCE.match(text)
    return match.group("body").strip() if match else text


def _refuse(message: str) -> NoReturn:
    raise ReplyError(message)


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    duplicated = sorted({k for k in keys if keys.count(k) > 1})
    if duplicated:
        _refuse(f"key(s) {duplicated} appear more than once in the JSON object; give each field once")
    return dict(pairs)


def _reject_constant(name: str) -> NoReturn:
    _refuse(f"`{name}` is not valid JSON; use strings for every value")


def _json_kind(value: object) -> str:
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def load_one_object(text: str) -> dict[str, Any]:
    """The single JSON object `text` consists of, or `ReplyError` saying what is wrong."""
    if len(text) > MAX_REPLY_CHARS:
        _refuse(f"the reply is {len(text)} characters long (limit {MAX_REPLY_CHARS}); {_ONLY_JSON}")
    body = strip_fence(text)
    if not body:
        _refuse(f"the reply is empty; {_ONLY_JSON}")
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_without_duplicates, parse_constant=_reject_constant)
    try:
        value, end = decoder.raw_decode(body)
    except ReplyError:
        raise
    except json.JSONDecodeError as exc:
        if not body.startswith(("{", "[")):
            where = "text before the JSON object" if "{" in body else "no JSON object"
            _refuse(f"the reply has {where}; {_ONLY_JSON}")
        _refuse(f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); {_ONLY_JSON}")
    except (ValueError, RecursionError) as exc:  # digit-limit ints, pathological nesting
        _refuse(f"the reply could not be read as JSON ({type(exc).__name__}); {_ONLY_JSON}")
    if body[end:].strip():
        _refuse(f"the reply has text after the JSON value; {_ONLY_JSON}")
    if not isinstance(value, dict):
        _refuse(f"the reply is a JSON {_json_kind(value)}, not an object; send exactly one action object")
    return value


def parse_reply(text: str | None) -> ActionModel:
    """Turn a model's reply into a validated action, or raise `ActionParseError` naming the problem."""
    if text is None:
        _refuse(f"the reply had no text; {_ONLY_JSON}")
    return parse_action(load_one_object(text))


def action_payload(action: ActionModel) -> dict[str, Any]:
    """The action as the environment receives it: only schema fields, `action_type` first, no nulls."""
    dumped = action.model_dump(mode="json", exclude_none=True)
    return {"action_type": dumped.pop("action_type"), **dumped}
