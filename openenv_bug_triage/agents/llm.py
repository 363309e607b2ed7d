"""The LLM agent: prompt, ask, validate, re-ask with the validation message, then a safe fallback.

The fallback is `next_ticket`: it moves on and never guesses a label. Rejected replies,
re-asks and fallbacks are counted per episode in `counts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..actions import ActionParseError
from ..models import ObservationModel
from .chat import ChatClient
from .prompt import HistoryEntry, build_messages, describe_result, reask_messages
from .reply import action_payload, parse_reply

FALLBACK_ACTION: dict[str, Any] = {"action_type": "next_ticket"}
"""What the agent does when every attempt was rejected: move on, label nothing."""


@dataclass
class AgentCounts:
    """Per-episode counters an agent reports besides the environment's own."""

    rejected_replies: int = 0
    retries: int = 0
    fallbacks: int = 0
    api_calls: int = 0
    api_retries: int = 0


class LLMAgent:
    """Chooses actions by asking a chat model; conforms to `policies.Policy`."""

    name = "llm"

    def __init__(self, chat: ChatClient, max_attempts: int = 2) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.chat = chat
        self.max_attempts = max_attempts
        self.counts = AgentCounts()
        self.history: list[HistoryEntry] = []
        self.last_replies: list[str] = []  # the raw replies behind the latest action, every attempt in order
        self._pending: tuple[dict[str, Any], bool] | None = None
        self._calls_at_reset = (0, 0)

    def reset(self, task_id: str, seed: int, split: str | None = None) -> None:
        """Forget the previous episode and zero the counters."""
        self.counts = AgentCounts()
        self.history = []
        self._pending = None
        self._calls_at_reset = (self.chat.calls, self.chat.retries)

    def act(self, obs: ObservationModel) -> dict[str, Any]:
        """The next action as a plain dict holding only schema fields."""
        self._remember(obs)
        self.last_replies = []
        messages = build_messages(obs, self.history)
        try:
            chosen = self._ask(messages)
        finally:
            self._sync_call_counts()
        fallback = chosen is None
        if chosen is None:
            self.counts.fallbacks += 1
            chosen = dict(FALLBACK_ACTION)
        self._pending = (chosen, fallback)
        return chosen

    def _ask(self, messages: list[dict[str, str]]) -> dict[str, Any] | None:
        """A valid action within `max_attempts` calls, re-asking with each rejection; else None."""
        for attempt in range(1, self.max_attempts + 1):
            reply = self.chat.complete(messages)
            self.last_replies.append(reply or "")
            try:
                return action_payload(parse_reply(reply))
            except ActionParseError as exc:
                self.counts.rejected_replies += 1
                if attempt < self.max_attempts:
                    self.counts.retries += 1
                    messages = [*messages[:2], *reask_messages(reply or "", str(exc))]
        return None

    def _remember(self, obs: ObservationModel) -> None:
        if self._pending is not None:
            action, fallback = self._pending
            self.history.append(HistoryEntry(obs.steps_used, action, describe_result(obs.last_action_result), fallback))
            self._pending = None

    def _sync_call_counts(self) -> None:
        calls, retries = self._calls_at_reset
        self.counts.api_calls = self.chat.calls - calls
        self.counts.api_retries = self.chat.retries - retries
