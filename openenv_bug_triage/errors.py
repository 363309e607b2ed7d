"""Typed exceptions. Bad agent moves are not exceptions: they are penalised observations."""

from __future__ import annotations

from typing import Any


def quote(value: Any, limit: int = 60, digits: int | None = None) -> str:
    """`repr(value)` clipped to `limit` characters, for showing a caller's value in a message:
    control and bidi characters come out escaped, and a long value cannot swell the answer.
    With `digits`, an integer of more digits than that is not shown, only said to be that long."""
    if digits is not None and isinstance(value, int) and abs(value) >= 10**digits:
        return f"an integer of more than {digits} digits"
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class BugTriageError(Exception):
    """Base class for every error this package raises."""


class FixtureError(BugTriageError):
    """A task fixture breaks an invariant; the message names the ticket and field."""


class UnknownTaskError(BugTriageError, ValueError):
    """`reset` was asked for a task that does not exist."""


class ResetNeededError(BugTriageError, RuntimeError):
    """`step`, `state` or `grade` was called before `reset`."""


class EpisodeDoneError(BugTriageError, RuntimeError):
    """`step` was called on an episode that has ended."""


class InvalidSeedError(BugTriageError, ValueError):
    """`reset` got a seed that is not a non-negative integer."""


class InvalidSplitError(BugTriageError, ValueError):
    """`reset` or `load_task` got a split the task does not have."""


class InvalidMoveError(BugTriageError, ValueError):
    """A tool call the environment judged invalid (it still cost a step); the message is the environment's."""


class EpisodeRunningError(BugTriageError, RuntimeError):
    """An episode's final grade was asked for before the episode ended."""


class ServiceError(BugTriageError):
    """A service an episode depends on failed for good; the message says which and what to check."""


class EnvServerError(ServiceError):
    """The environment server refused a request or could not be reached."""


class EpisodeLostError(EnvServerError):
    """The server no longer holds the episode: the process that held it stopped, or the episode expired.

    An episode lives in the memory of one server process; behind a load balancer, a replica that
    stops takes its episodes with it. `episode_id` names the lost episode; start a new one.
    """

    def __init__(self, episode_id: str, cause: str) -> None:
        super().__init__(
            f"episode {quote(episode_id)} is lost: {cause}. An episode lives in one server process and cannot "
            "move to another, so start a new episode with reset()"
        )
        self.episode_id = episode_id
