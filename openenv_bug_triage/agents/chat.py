"""A chat-completions caller with deterministic parameters and bounded retries on endpoint failures.

Temperature 0 and a fixed seed go with every request. Models that only accept their default
temperature (OpenAI's reasoning models such as gpt-5-mini answer 400 to `temperature=0`) are
asked once more without it, and `ChatClient.temperature` then reports None. Timeouts, connection failures, 429 and
5xx answers are retried with exponential backoff (honouring a short `Retry-After`); any other
error, or failures that outlast the retries, raise `EndpointError` so the run can stop cleanly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from .errors import EndpointError

MAX_BACKOFF_SECONDS = 30.0
_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


@dataclass
class ChatSettings:
    """Where and how to ask the model."""

    model: str
    api_key: str
    base_url: str | None = None
    seed: int = 42
    temperature: float = 0.0
    timeout: float = 60.0
    api_retries: int = 4
    backoff: float = 1.0


class ChatClient:
    """Sends one conversation, returns the reply text; counts calls and transport retries."""

    def __init__(self, settings: ChatSettings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.calls = 0
        self.retries = 0
        self.temperature: float | None = settings.temperature
        self._sleep = sleep
        self._client = openai.OpenAI(
            api_key=settings.api_key, base_url=settings.base_url, timeout=settings.timeout, max_retries=0
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to."""
        return str(self._client.base_url)

    def complete(self, messages: list[dict[str, str]]) -> str | None:
        """The model's reply to `messages` (None when it sent no text); raises `EndpointError`."""
        s = self.settings
        last: Exception | None = None
        for attempt in range(s.api_retries + 1):
            if attempt:
                self.retries += 1
                self._sleep(self._delay(attempt, last))
            self.calls += 1
            try:
                response = self._client.chat.completions.create(
                    model=s.model,
                    # The role/content dicts of `prompt`; openai types each role's message as its own TypedDict.
                    messages=cast("list[ChatCompletionMessageParam]", messages),
                    seed=s.seed,
                    temperature=openai.omit if self.temperature is None else self.temperature,
                )
            except _RETRYABLE as exc:
                last = exc
                continue
            except openai.APIStatusError as exc:
                if self.temperature is not None and exc.status_code == 400 and "temperature" in str(exc).lower():
                    self.temperature = None  # the model only takes its default temperature
                    return self.complete(messages)
                raise EndpointError(
                    f"the model endpoint {self.endpoint} refused the request with HTTP {exc.status_code}: "
                    f"{_short(exc)}; check the model name (--model / MODEL_NAME) and the API key"
                ) from None
            except openai.OpenAIError as exc:
                raise EndpointError(
                    f"the model endpoint {self.endpoint} sent an unusable answer: {_short(exc)}"
                ) from None
            if not response.choices:
                return None
            return response.choices[0].message.content
        raise EndpointError(
            f"the model endpoint {self.endpoint} is not answering: {s.api_retries + 1} attempts failed "
            f"(last: {_short(last)}); check OPENAI_BASE_URL / API_BASE_URL and that the server is up"
        )

    def _delay(self, attempt: int, last: Exception | None) -> float:
        delay: float = self.settings.backoff * 2 ** (attempt - 1)
        if isinstance(last, openai.RateLimitError):
            hint = last.response.headers.get("retry-after", "")
            if hint.replace(".", "", 1).isdigit():
                delay = max(delay, float(hint))
        return min(delay, MAX_BACKOFF_SECONDS)


def _short(exc: Exception | None) -> str:
    text = " ".join(str(exc).split()) if exc is not None else "no answer"
    kind = type(exc).__name__ if exc is not None else "Error"
    return f"{kind}: {text[:300]}"
