"""Errors that stop a baseline run: a service it depends on is down or refuses it."""

from __future__ import annotations

from ..errors import BugTriageError


class ServiceError(BugTriageError):
    """A service the run depends on failed for good; the message says which and what to check."""


class EndpointError(ServiceError):
    """The model endpoint refused the request or stayed unreachable."""


class EnvServerError(ServiceError):
    """The environment server refused a request or could not be reached."""
