"""The Bug Triage OpenEnv server: `uvicorn server.app:app`, `python -m server.app`, or the `server` script.

The app is ours; from OpenEnv it mounts only `/ws` (WebSocket sessions), `/mcp`, `/health` and
`/metadata` (`server.openenv_compat`, the same on openenv-core 0.3.0 and openenv 0.10). The
session-aware `/reset`, `/step`, `/state`, `/grader`, `/schema`, `/tasks`, `/handbook` and the Task API
are `server.routes`; `/web` is our playground (`server.web`), whatever `ENABLE_WEB_INTERFACE` says:
openenv-core's generic one shares one environment among all visitors.
Settings come from environment variables (`server.config`): `HOST` and `PORT` (7860) where to listen,
`MAX_SESSIONS` and `SESSION_TTL_S` bound the sessions (a WebSocket silent for `SESSION_TTL_S` is closed),
`BUG_TRIAGE_TRAINER_TOKEN` lets trainers fetch full grades from `/grader`, `SEALED=1` withholds per-step
correctness on the test split (`server.sealing`), `BUG_TRIAGE_TRAJECTORY_DIR` (default `artifacts/`) holds the trajectories
`/web` can replay.
"""

from __future__ import annotations

import argparse
import functools
import gc
from typing import TypedDict

from fastapi import FastAPI
from openenv.core.env_server.types import ConcurrencyConfig

from openenv_bug_triage.protocol import BugTriageAction, BugTriageObservation

from .adapter import ENV_DESCRIPTION, ENV_VERSION, BugTriageEnvironment
from .config import MAX_BODY_BYTES, Listen, Settings
from .openenv_compat import mount_openenv
from .routes import build_router, is_trainer
from .sealing import TrainerWebSocket
from .sessions import SessionStore
from .web import build_web_router
from .wire import BodyGuard, install_error_handlers


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
    app = FastAPI(title="Bug Triage OpenEnv HTTP API", version=ENV_VERSION, description=ENV_DESCRIPTION)
    concurrency = ConcurrencyConfig(max_concurrent_envs=settings.max_sessions, session_timeout=settings.session_ttl_s)
    environment = functools.partial(BugTriageEnvironment, sealed=settings.sealed)
    mount_openenv(app, environment, BugTriageAction, BugTriageObservation, concurrency)
    store = SessionStore(settings.max_sessions, settings.session_ttl_s)
    app.include_router(build_router(store, settings.trainer_token, settings.sealed))
    app.include_router(build_web_router(settings.trajectory_dir))
    install_error_handlers(app)
    app.add_middleware(BodyGuard, max_body_bytes=MAX_BODY_BYTES, ws_idle_s=settings.session_ttl_s)
    app.add_middleware(TrainerWebSocket, is_trainer=functools.partial(is_trainer, trainer_token=settings.trainer_token))
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
    """Serve `app` with uvicorn on `--host` (default `HOST` or 127.0.0.1) and `--port` (default `PORT` or 7860)."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="server", description="Serve the Bug Triage OpenEnv environment.")
    parser.add_argument("--host", default=None, help="default: $HOST, else 127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: $PORT, else 7860")
    args = parser.parse_args(argv)
    listen = Listen()
    host = args.host if args.host is not None else listen.host
    port = args.port if args.port is not None else listen.port
    uvicorn.run(app, host=host, port=port, **UVICORN_WS_OPTIONS)


if __name__ == "__main__":
    main()
