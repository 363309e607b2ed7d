"""Errors that stop a baseline run: a service it depends on is down or refuses it."""

from __future__ import annotations

from ..errors import EnvServerError, ServiceError

__all__ = ["EndpointError", "EnvServerError", "ServiceError"]


class EndpointError(ServiceError):
    """The model endpoint refused the request or stayed unreachable."""
