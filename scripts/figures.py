"""Figures in the documents, written by the scripts that measure them.

A figure block in `README.md` or `docs/*.md` sits between two marker comments:

    <!-- figures:reference_scores -->
    ...written by `python scripts/reference_scores.py --write`...
    <!-- /figures -->

`replace_blocks(name, body)` rewrites every block of that name in the documents; `read_blocks(name)`
returns what each document holds now (the fast test compares it with a fresh rendering).
`recording()` captures what a script prints, so that `--write` stores the printed report itself.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
END = "<!-- /figures -->"


class FigureBlockError(ValueError):
    """A figure block is missing or malformed in the documents."""


def documents(root: Path = REPO) -> list[Path]:
    """The Markdown files that may hold figure blocks: README.md and everything under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- figures:{re.escape(name)} -->\n)(.*?)({re.escape(END)})", re.DOTALL)


def read_blocks(name: str, root: Path = REPO) -> dict[Path, list[str]]:
    """Every block called `name`, by document (documents without one are left out)."""
    found: dict[Path, list[str]] = {}
    for path in documents(root):
        bodies = [m.group(2) for m in _pattern(name).finditer(path.read_text(encoding="utf-8"))]
        if bodies:
            found[path] = bodies
    return found


def replace_blocks(name: str, body: str, root: Path = REPO) -> list[Path]:
    """Write `body` into every block called `name`; returns the documents changed.

    Raises FigureBlockError when no document has the block: add
    `<!-- figures:NAME -->` and `<!-- /figures -->` on their own lines where the figures belong.
    """
    text_body = body if body.endswith("\n") else body + "\n"
    written: list[Path] = []
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        if f"<!-- figures:{name} -->" not in text:
            continue
        new, count = _pattern(name).subn(lambda m: m.group(1) + text_body + m.group(3), text)
        if count == 0:
            raise FigureBlockError(f"{path}: `<!-- figures:{name} -->` has no `{END}` after it; add one")
        if new != text:
            path.write_text(new, encoding="utf-8")
            written.append(path)
    if not read_blocks(name, root):
        raise FigureBlockError(
            f"no document holds a `<!-- figures:{name} -->` ... `{END}` block; add one to README.md or docs/"
        )
    return written


def fenced(text: str, caption: str) -> str:
    """A block body: one caption line, then `text` as a fenced code block."""
    return f"{caption}\n\n```text\n{text.rstrip()}\n```\n"


@contextlib.contextmanager
def recording() -> Iterator[io.StringIO]:
    """Print as usual and also keep a copy of everything printed."""
    copy, out = io.StringIO(), sys.stdout

    class Tee(io.TextIOBase):
        def write(self, s: str) -> int:
            copy.write(s)
            return out.write(s)

    with contextlib.redirect_stdout(Tee()):
        yield copy


def report_written(name: str, paths: list[Path]) -> None:
    """Tell the user which documents a `--write` changed."""
    where = ", ".join(str(p.relative_to(REPO)) for p in paths) or "nothing (already up to date)"
    print(f"figures:{name} written to {where}", file=sys.stderr)


def write_measured(name: str, script: str, printed: str) -> None:
    """Write what a measuring script printed into block `name`, captioned with its command and today's date."""
    arguments = [a for a in sys.argv[1:] if a != "--write"]
    line = " ".join([f"python scripts/{script}", *arguments])
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    caption = f"`{line}`, measured {today} on one shared 2-core machine:"
    report_written(name, replace_blocks(name, fenced(printed, caption)))


def run_writing(main: Callable[[], object], name: str, script: str) -> None:
    """Run a measuring script's `main`; with `--write` on the command line, store its report in block `name`."""
    with recording() as printed:
        main()
    if "--write" in sys.argv[1:]:
        write_measured(name, script, printed.getvalue())
