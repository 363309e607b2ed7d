"""A chat-completions caller with deterministic parameters, on the openai client's own retries.

Temperature 0 and a fixed seed go with every request. Models that only accept their default
temperature (OpenAI's reasoning models such as gpt-5-mini answer 400 to `temperature=0`) are
asked once more without it, and `ChatClient.temperature` then reports None.

The openai client retries what is worth retrying (timeouts, lost connections, 408, 409, 429 and
5xx answers) up to `api_retries` times, each request bounded by `timeout` seconds. Only the wait
before each retry is ours: `backoff` seconds, doubling, at most `MAX_BACKOFF_SECONDS`, or longer
when the endpoint's `Retry-After` asks for it. A refusal, or failures that outlast the retries,
raise `EndpointError` so the run can stop cleanly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from .errors import EndpointError

MAX_BACKOFF_SECONDS = 30.0


class _Reply(Protocol):
    """What the wait before a retry reads of the failed answer."""

    @property
    def headers(self) -> Mapping[str, str]: ...


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


class _RetryingOpenAI(openai.OpenAI):
    """The openai client, its retry loop unchanged, with the wait before each retry handed to `before_retry`.

    `before_retry(n, reply)` gets the retry's number (from 1) and the failed answer (None after a
    timeout or a lost connection); the client's own sleep is replaced, not added to.
    """

    def __init__(self, before_retry: Callable[[int, _Reply | None], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._before_retry = before_retry

    def _sleep_for_retry(self, *, retries_taken: int, max_retries: int, options: Any, response: Any) -> None:
        self._before_retry(retries_taken + 1, response)


class ChatClient:
    """Sends one conversation, returns the reply text; counts calls and transport retries."""

    def __init__(self, settings: ChatSettings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.calls = 0
        self.retries = 0
        self.temperature: float | None = settings.temperature
        self._sleep = sleep
        self._client = _RetryingOpenAI(
            self._before_retry,
            api_key=settings.api_key,
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=settings.api_retries,
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to."""
        return str(self._client.base_url)

    def complete(self, messages: list[dict[str, str]]) -> str | None:
        """The model's reply to `messages` (None when it sent no text); raises `EndpointError`."""
        s = self.settings
        retries_before = self.retries
        self.calls += 1
        try:
            response = self._client.chat.completions.create(
                model=s.model,
                # The role/content dicts of `prompt`; openai types each role's message as its own TypedDict.
                messages=cast("list[ChatCompletionMessageParam]", messages),
                seed=s.seed,
                temperature=openai.omit if self.temperature is None else self.temperature,
            )
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise self._not_answering(self.retries - retries_before + 1, exc) from None
        except openai.APIStatusError as exc:
            if _worth_retrying(exc.status_code):
                raise self._not_answering(self.retries - retries_before + 1, exc) from None
            if self.temperature is not None and exc.status_code == 400 and "temperature" in str(exc).lower():
                self.temperature = None  # the model only takes its default temperature
                return self.complete(messages)
            raise EndpointError(
                f"the model endpoint {self.endpoint} refused the request with HTTP {exc.status_code}: "
                f"{_short(exc)}; check the model name (--model / MODEL_NAME) and the API key"
            ) from None
        except openai.OpenAIError as exc:
            raise EndpointError(f"the model endpoint {self.endpoint} sent an unusable answer: {_short(exc)}") from None
        if not response.choices:
            return None
        return response.choices[0].message.content

    def _before_retry(self, retry: int, reply: _Reply | None) -> None:
        self.retries += 1
        self.calls += 1
        self._sleep(self._delay(retry, reply))

    def _delay(self, retry: int, reply: _Reply | None) -> float:
        delay: float = self.settings.backoff * 2 ** (retry - 1)
        hint = reply.headers.get("retry-after", "") if reply is not None else ""
        if hint.replace(".", "", 1).isdigit():
            delay = max(delay, float(hint))
        return min(delay, MAX_BACKOFF_SECONDS)

    def _not_answering(self, attempts: int, last: Exception) -> EndpointError:
        return EndpointError(
            f"the model endpoint {self.endpoint} is not answering: {attempts} attempts failed "
            f"(last: {_short(last)}); check OPENAI_BASE_URL / API_BASE_URL and that the server is up"
        )


def _worth_retrying(status: int) -> bool:
    """The statuses the openai client retries: request timeout, conflict, rate limit and server errors."""
    return status in (408, 409, 429) or status >= 500


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"
