"""The docs site builds with `mkdocs build --strict`: a broken link, anchor or nav entry fails it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"

pytestmark = pytest.mark.slow


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    result = build(REPO, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    for page in ("index", "environment", "api", "benchmarks", "development"):
        assert (tmp_path / "site" / page / "index.html").exists() or (tmp_path / "site" / f"{page}.html").exists()
    assert (tmp_path / "site" / "images" / "playground.png").exists()


def test_a_broken_anchor_fails_the_build(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copy(REPO / "mkdocs.yml", copy)
    shutil.copytree(REPO / "docs", copy / "docs")
    page = copy / "docs" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [nowhere](api.md#no-such-section).\n", encoding="utf-8")
    result = build(copy, tmp_path / "site")
    assert result.returncode != 0
    assert "no-such-section" in result.stderr
