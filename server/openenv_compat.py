"""What this server takes from OpenEnv, the same way on both of its lines.

OpenEnv ships as `openenv-core` (the line that stopped at 0.3.0) and as `openenv` (0.10 on); both
install the module `openenv`, so exactly one is present. Where they differ for this server:

- `HTTPEnvServer.register_routes` registers more in 0.10: the Task API (`/{env_name}/splits`, `/tasks`,
  `/num_tasks`, `/task`, `/task_range`) and `/list_environments`, each answered on a fresh environment.
  This server has its own Task API and session-aware `/reset`, `/step`, `/state` and `/schema`, so it
  mounts OpenEnv's routes by an allowlist (`OPENENV_ROUTES`): a route a later release adds is never
  served by accident, and none is served twice.
- 0.10 sends `Observation.metadata` over the wire (0.3.0 drops it): `BugTriageObservation` refuses
  any, so nothing hidden can ride there; everything a client needs is in typed fields.

Everything else this server uses (`Environment`, `ConcurrencyConfig`, the `/ws` protocol) is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation
from starlette.routing import BaseRoute, Route, WebSocketRoute

OPENENV_ROUTES: frozenset[tuple[str, str]] = frozenset(
    {
        ("/ws", "WEBSOCKET"),  # the session channel: one environment per connection
        ("/mcp", "WEBSOCKET"),
        ("/mcp", "POST"),  # `openenv validate --url` requires a JSON-RPC answer here
        ("/health", "GET"),
        ("/metadata", "GET"),
    }
)
"""(path, method) of every OpenEnv route this server serves; the rest are its own."""

DISTRIBUTIONS = ("openenv", "openenv-core")
"""The two packages that install the module `openenv`, newest line first."""


@dataclass(frozen=True)
class OpenEnvLine:
    """Which OpenEnv package is installed: `openenv-core` 0.3.x or `openenv` 0.10 and later."""

    distribution: str
    version: str


def installed_line() -> OpenEnvLine:
    """The OpenEnv package this process imports `openenv` from."""
    for name in DISTRIBUTIONS:
        try:
            return OpenEnvLine(name, version(name))
        except PackageNotFoundError:
            continue
    raise ImportError(
        "no OpenEnv package is installed: pip install 'openenv-bug-triage[server]' "
        "(openenv-core 0.3.0) or 'openenv-bug-triage[server-openenv10]' (openenv 0.10)"
    )


def route_keys(route: BaseRoute) -> set[tuple[str, str]]:
    """(path, method) pairs a route answers; a WebSocket route's method is `WEBSOCKET`."""
    if isinstance(route, WebSocketRoute):
        return {(route.path, "WEBSOCKET")}
    if isinstance(route, Route):
        return {(route.path, method) for method in route.methods or ()} - {(route.path, "HEAD")}
    return set()


def mount_openenv(
    app: FastAPI,
    env_factory: Callable[[], Environment[Any, Any, Any]],
    action_cls: type[Action],
    observation_cls: type[Observation],
    concurrency: ConcurrencyConfig,
) -> HTTPEnvServer:
    """Add OpenEnv's `OPENENV_ROUTES` to `app`, with the idle-session reaper they need; returns their server.

    `HTTPEnvServer` registers its routes on an app in one call, so they are registered on a scratch
    app (production mode: no stateless `/reset`, `/step`, `/state`) and only the allowlisted ones move.
    """
    server = HTTPEnvServer(env_factory, action_cls, observation_cls, concurrency_config=concurrency)
    scratch = FastAPI()
    server.register_routes(scratch, mode="production")
    wanted = [route for route in scratch.router.routes if route_keys(route) and route_keys(route) <= OPENENV_ROUTES]
    served = set().union(*(route_keys(route) for route in wanted))
    if served != OPENENV_ROUTES:
        raise RuntimeError(
            f"OpenEnv {installed_line()} lacks routes this server needs: {sorted(OPENENV_ROUTES - served)}"
        )
    app.router.routes.extend(wanted)
    app.router.on_startup.extend(scratch.router.on_startup)  # the idle-session reaper
    app.router.on_shutdown.extend(scratch.router.on_shutdown)
    return server
