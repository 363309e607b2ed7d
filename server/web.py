"""The playground at `/web`: a static page that plays episodes over the HTTP API and replays trajectories.

The page (`server/static/`) uses relative URLs only, so it works under any path prefix; it
talks to `/reset`, `/step`, `/state`, `/tasks`, `/schema` and `/handbook` like any client,
passing its own `episode_id`. Trajectory files (`--trajectory` of the baseline) are listed
from one folder and served raw, capped in size; the page parses and checks them.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel

from .wire import ApiError

STATIC_DIR = Path(__file__).resolve().parent / "static"
TRAJECTORY_MAX_BYTES = 5_000_000
"""Largest trajectory the server hands out (and the page accepts): the hard task's LLM run is about 300 KB."""
TRAJECTORY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.jsonl")

_MEDIA_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'"
)
"""No inline script, no third-party origin: data the page shows can never run as code."""
_PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class TrajectoryFile(BaseModel):
    """One replayable file in the trajectory folder."""

    name: str
    bytes: int


class TrajectoryList(BaseModel):
    """GET /web/trajectories."""

    folder: str
    max_bytes: int
    files: list[TrajectoryFile]


def _static_files() -> dict[str, Path]:
    return {p.name: p for p in STATIC_DIR.iterdir() if p.is_file() and p.suffix in _MEDIA_TYPES}


def build_web_router(trajectory_dir: Path) -> APIRouter:
    """Routes of the playground: the page, its static files, and the trajectory folder."""
    router = APIRouter(include_in_schema=False)
    files = _static_files()

    @router.get("/")
    async def root() -> Response:
        return Response(status_code=307, headers={"Location": "web/"})

    @router.get("/web")
    async def web_no_slash() -> Response:
        return Response(status_code=307, headers={"Location": "web/"})

    @router.get("/web/")
    async def page() -> Response:
        return FileResponse(files["index.html"], media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    @router.get("/web/static/{name}")
    async def static(name: str) -> Response:
        path = files.get(name)
        if path is None:
            raise ApiError(404, "not_found", "no such playground file")
        media_type = _MEDIA_TYPES[path.suffix] + "; charset=utf-8"
        return FileResponse(path, media_type=media_type, headers=_PAGE_HEADERS)

    @router.get("/web/trajectories")
    async def list_trajectories() -> Response:
        found = []
        if trajectory_dir.is_dir():
            for path in sorted(trajectory_dir.iterdir()):
                if TRAJECTORY_NAME.fullmatch(path.name) and path.is_file():
                    found.append(TrajectoryFile(name=path.name, bytes=path.stat().st_size))
        reply = TrajectoryList(folder=trajectory_dir.name, max_bytes=TRAJECTORY_MAX_BYTES, files=found)
        return Response(reply.model_dump_json(), media_type="application/json")

    @router.get("/web/trajectories/{name}")
    async def trajectory(name: str) -> Response:
        path = trajectory_dir / name
        if not TRAJECTORY_NAME.fullmatch(name) or not path.is_file():
            raise ApiError(404, "not_found", "no such trajectory; GET /web/trajectories lists them")
        size = path.stat().st_size
        if size > TRAJECTORY_MAX_BYTES:
            raise ApiError(
                413,
                "trajectory_too_large",
                f"this trajectory is {size / 1e6:.1f} MB; the playground opens files up to "
                f"{TRAJECTORY_MAX_BYTES / 1e6:.0f} MB",
            )
        return FileResponse(path, media_type="application/x-ndjson; charset=utf-8")

    return router
