"""A bounded excerpt of a unified diff, the most rule-bearing hunks first.

Source hunks come before test hunks, which come before docs; within a class, the hunks
that change the most lines come first. The excerpt never exceeds the byte budget.
A merged PR's event holds the excerpt and the review discussion within one budget,
MAX_EXCERPT_BYTES (`kbkit.intake.discussion.fit` gives the excerpt what the ranked reviewer
notes leave, at least half).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import NamedTuple

MAX_EXCERPT_BYTES = 8192
SOURCE, TESTS, DOCS = 0, 1, 2
_DOC_SUFFIXES = {".md", ".rst", ".txt", ".adoc"}
_DOC_DIRS = {"docs", "doc", "documentation"}
_TEST_DIRS = {"tests", "test", "testing", "__tests__", "spec", "specs"}
_OMITTED = "… {} more hunk(s) omitted\n"


class Hunk(NamedTuple):
    path: str
    rank: int
    changed: int
    order: int
    text: str


def classify(path: str) -> int:
    """SOURCE, TESTS or DOCS, from the path alone."""
    pure = PurePosixPath(path)
    parts = {part.lower() for part in pure.parts[:-1]}
    name = pure.name.lower()
    if (
        parts & _TEST_DIRS
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
        or ".spec." in name
    ):
        return TESTS
    if parts & _DOC_DIRS or pure.suffix.lower() in _DOC_SUFFIXES or name.startswith("readme"):
        return DOCS
    return SOURCE


def _file_path(lines: list[str]) -> str:
    header = [line.rstrip("\r\n") for line in lines]  # the lines keep their line ends
    for line in header:
        if line.startswith("+++ ") and line[4:] != "/dev/null":
            return line[4:].removeprefix("b/")
    for line in header:
        if line.startswith("--- ") and line[4:] != "/dev/null":
            return line[4:].removeprefix("a/")
    first = header[0].split(" b/", 1) if header else []
    return first[1] if len(first) == 2 else "?"


def split_hunks(diff: str) -> list[Hunk]:
    """Every hunk of a unified diff (`git diff` output), with its file's path and class."""
    hunks: list[Hunk] = []
    header: list[str] = []
    current: list[str] | None = None
    path = "?"

    def close() -> None:
        if current:
            text = "".join(current)
            changed = sum(1 for ln in current[1:] if ln[:1] in "+-")
            hunks.append(Hunk(path, classify(path), changed, len(hunks), text))

    for line in diff.splitlines(keepends=True):
        if line.startswith("diff --git "):
            close()
            header, current = [line], None
        elif line.startswith("@@"):
            close()
            if current is None:
                path = _file_path(header)
            current = [line]
        elif current is not None:
            current.append(line)
        else:
            header.append(line)
    close()
    return hunks


def build_excerpt(diff: str, limit: int = MAX_EXCERPT_BYTES) -> str:
    """Fill at most `limit` UTF-8 bytes with whole hunks in rule-bearing order."""
    ranked = sorted(split_hunks(diff), key=lambda h: (h.rank, -h.changed, h.order))
    reserve = len(_OMITTED.format(len(ranked)).encode())
    budget = limit - reserve
    parts: list[str] = []
    used = skipped = 0
    for hunk in ranked:
        piece = f"--- {hunk.path}\n{hunk.text}"
        if not piece.endswith("\n"):
            piece += "\n"
        size = len(piece.encode())
        if used + size <= budget:
            parts.append(piece)
            used += size
        elif not parts:
            parts.append(_truncate(piece, budget))
            used = len(parts[0].encode())
        else:
            skipped += 1
    if skipped:
        parts.append(_OMITTED.format(skipped))
    return "".join(parts)


def _truncate(piece: str, budget: int) -> str:
    marker = "… (hunk truncated)\n"
    room = budget - len(marker.encode())
    kept: list[str] = []
    used = 0
    for line in piece.splitlines(keepends=True):
        size = len(line.encode())
        if used + size > room:
            break
        kept.append(line)
        used += size
    if not kept:  # a single enormous line: cut it on a character boundary
        kept = [piece.encode()[:room].decode("utf-8", "ignore")]
    return "".join(kept) + marker
