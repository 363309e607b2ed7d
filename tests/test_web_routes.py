"""The /web playground's routes over real HTTP: the page, its static files, and the trajectory folder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import in_process

from server.app import build_app
from server.web import STATIC_DIR, TRAJECTORY_MAX_BYTES


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trajectories")
    (root / "run-1.jsonl").write_text('{"a": 1}\n')
    (root / "notes.txt").write_text("not a trajectory")
    (root / ".hidden.jsonl").write_text("{}\n")
    (root / "big.jsonl").write_bytes(b"x" * (TRAJECTORY_MAX_BYTES + 1))
    (root / "sub.jsonl").mkdir()
    (root.parent / "outside.jsonl").write_text("secret\n")
    return root


@pytest.fixture(scope="module")
def client(folder: Path) -> Iterator[httpx.Client]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BUG_TRIAGE_TRAJECTORY_DIR", str(folder))
        mp.setenv("ENABLE_WEB_INTERFACE", "true")  # ignored: /web is ours either way
        app = build_app()
    with in_process(app) as http:
        yield http


def test_web_and_root_redirect_relatively_to_the_playground(client: httpx.Client) -> None:
    for path in ("/web", "/"):
        reply = client.get(path, follow_redirects=False)
        assert reply.status_code == 307 and reply.headers["location"] == "web/"
    page = client.get("/web", follow_redirects=True)
    assert page.status_code == 200 and str(page.url).endswith("/web/")


def test_page_is_ours_with_a_strict_content_security_policy(client: httpx.Client) -> None:
    page = client.get("/web/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<title>Bug Triage OpenEnv playground</title>" in page.text
    assert "gradio" not in page.text.lower()
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy and "unsafe" not in policy
    assert client.get("/web/metadata").status_code == 404  # openenv-core's generic playground is not mounted


def test_static_files_are_served_and_nothing_else(client: httpx.Client) -> None:
    for path in sorted(STATIC_DIR.iterdir()):
        reply = client.get(f"/web/static/{path.name}")
        assert reply.status_code == 200 and reply.content == path.read_bytes()
    assert client.get("/web/static/app.js").headers["content-type"].startswith("text/javascript")
    for name in ("nope.js", "..%2Fweb.py", "%2e%2e%2fapp.py", "index.html%00.js"):
        reply = client.get(f"/web/static/{name}")
        assert reply.status_code == 404, name
        assert reply.json()["error"]["type"] == "not_found"


def test_static_files_use_no_third_party_origin_and_no_inline_script() -> None:
    for path in STATIC_DIR.iterdir():
        text = path.read_text(encoding="utf-8")
        origins = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {"http://www.w3.org/2000/svg"}
        assert origins == set(), (path.name, origins)
        assert not re.search(r"\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write", text), path.name
        if path.suffix == ".html":
            assert not re.search(r"<script(?![^>]*\bsrc=)", text), "inline script"
            assert not re.search(r"\son[a-z]+=", text), "inline event handler"
            assert not re.search(r"(?:src|href)=\"/", text), "absolute URL: breaks under a path prefix"


def test_trajectory_folder_lists_only_jsonl_files(client: httpx.Client, folder: Path) -> None:
    listing = client.get("/web/trajectories").json()
    assert listing["max_bytes"] == TRAJECTORY_MAX_BYTES
    assert [f["name"] for f in listing["files"]] == ["big.jsonl", "run-1.jsonl"]
    assert listing["files"][1]["bytes"] == (folder / "run-1.jsonl").stat().st_size


def test_trajectory_files_are_served_raw_and_capped(client: httpx.Client) -> None:
    reply = client.get("/web/trajectories/run-1.jsonl")
    assert reply.status_code == 200 and reply.text == '{"a": 1}\n'
    big = client.get("/web/trajectories/big.jsonl")
    assert big.status_code == 413
    assert "the playground opens files up to 5 MB" in big.json()["error"]["message"]
    for name in ("notes.txt", ".hidden.jsonl", "sub.jsonl", "..%2Foutside.jsonl", "missing.jsonl"):
        reply = client.get(f"/web/trajectories/{name}")
        assert reply.status_code == 404, name
    assert client.get("/health").status_code == 200


def test_a_missing_trajectory_folder_lists_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUG_TRIAGE_TRAJECTORY_DIR", str(tmp_path / "absent"))
    with in_process(build_app()) as http:
        assert http.get("/web/trajectories").json()["files"] == []
