"""The Bug Triage OpenEnv server: `uvicorn server.app:app`, `python -m server.app`, or the `server` script.

OpenEnv's `create_fastapi_app` provides `/ws`, `/mcp`, `/health`, `/metadata` and the docs; its
stateless `/reset`, `/step`, `/state` and `/schema` are replaced by the session-aware routes in
`server.routes`. `/web` is always our own playground (`server.web`): openenv-core's generic one,
which `ENABLE_WEB_INTERFACE=true` would turn on through `create_app`, shares one environment
among all visitors, so that variable is ignored here.
Port 7860 unless `PORT` says otherwise; `MAX_SESSIONS` and `SESSION_TTL_S` bound the sessions;
`BUG_TRIAGE_TRAINER_TOKEN` lets trainers fetch full grades from `/grader`;
`BUG_TRIAGE_TRAJECTORY_DIR` (default `artifacts/`) holds the trajectories `/web` can replay.
"""

from __future__ import annotations

import argparse
import gc
import os
from typing import TypedDict

from fastapi import FastAPI
from fastapi.routing import APIRoute
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.types import ConcurrencyConfig

from openenv_bug_triage.protocol import BugTriageAction, BugTriageObservation

from .adapter import BugTriageEnvironment
from .config import MAX_BODY_BYTES, Settings, port_from_env
from .routes import build_router
from .sessions import SessionStore
from .web import build_web_router, trajectory_dir_from_env
from .wire import BodyGuard, install_error_handlers

REPLACED_ROUTES = frozenset({"/reset", "/step", "/state", "/schema"})


class UvicornWsOptions(TypedDict):
    """Keyword arguments of `uvicorn.run` and `uvicorn.Config`, typed so that `**` unpacking checks."""

    ws_max_size: int
    ws_per_message_deflate: bool


UVICORN_WS_OPTIONS: UvicornWsOptions = {"ws_max_size": MAX_BODY_BYTES, "ws_per_message_deflate": False}
"""WebSocket messages are capped like HTTP bodies, and not compressed: deflating a 4 KB observation
costs more CPU per step than the environment itself, for bandwidth a few KB per step does not need."""


def build_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app with its own session store; `settings` default to the environment's."""
    settings = settings or Settings.from_env()
    app = create_fastapi_app(
        BugTriageEnvironment,
        BugTriageAction,
        BugTriageObservation,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=settings.max_sessions, session_timeout=settings.session_ttl_s
        ),
    )
    app.title = "Bug Triage OpenEnv HTTP API"
    app.router.routes[:] = [r for r in app.router.routes if not (isinstance(r, APIRoute) and r.path in REPLACED_ROUTES)]
    store = SessionStore(settings.max_sessions, settings.session_ttl_s)
    app.include_router(build_router(store, settings.trainer_token))
    app.include_router(build_web_router(trajectory_dir_from_env()))
    install_error_handlers(app)
    app.add_middleware(BodyGuard, max_body_bytes=settings.max_body_bytes)
    app.state.sessions = store
    app.state.settings = settings
    return app


app = build_app()
# What the imports and the app built stays for the process's life (about 225,000 objects, most of them
# openenv-core's dependencies): frozen, Python's occasional full collection no longer walks them, which
# took about 270 ms each time here, a stall for every client at once. Start-up garbage is collected first.
gc.collect()
gc.freeze()


def main(argv: list[str] | None = None) -> None:
    """Serve `app` with uvicorn on `--host` (default `HOST` or 0.0.0.0) and `--port` (default `PORT` or 7860)."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="server", description="Serve the Bug Triage OpenEnv environment.")
    parser.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0"))
    parser.add_argument("--port", type=int, default=None, help="default: $PORT, else 7860")
    args = parser.parse_args(argv)
    port = args.port if args.port is not None else port_from_env()
    uvicorn.run(app, host=args.host, port=port, **UVICORN_WS_OPTIONS)


if __name__ == "__main__":
    main()
