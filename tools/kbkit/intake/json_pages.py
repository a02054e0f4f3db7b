"""Read what `gh api --paginate` prints: one JSON value, or several concatenated pages."""

from __future__ import annotations

import json
import sys
from typing import Any, NamedTuple

from kbkit.infra.errors import InputError
from kbkit.infra.json_input import raw_decode
from kbkit.infra.jsonl import gc_paused
from kbkit.infra.paths import named_file
from kbkit.vcs import github

_SPACE = " \t\r\n"


class Page(NamedTuple):
    """One top-level JSON value and the line it starts on."""

    line: int
    value: Any


def read_source(source: str) -> tuple[str, bytes]:
    """The label for messages and the raw bytes of FILE, or of stdin for `-`."""
    if source == "-":
        return "<stdin>", sys.stdin.buffer.read()
    path = named_file(source, "pass a JSON file or - for stdin")
    try:
        return source, path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror}); check the path", path=source) from exc


def decode_pages(label: str, data: bytes) -> list[Page]:
    """Decode UTF-8 and split into top-level JSON values; errors name the line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not UTF-8 (byte {exc.start}); GitHub's API always sends UTF-8", path=label, line=line
        ) from exc
    with gc_paused():  # 100k fresh objects hold no cycles; collections would only cost time
        return _split_values(label, text)


def _split_values(label: str, text: str) -> list[Page]:
    pages: list[Page] = []
    position = counted = 0
    line = 1
    end = len(text)
    while True:
        while position < end and text[position] in _SPACE:
            position += 1
        if position >= end:
            break
        try:
            value, next_position = raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON: {exc.msg} (column {exc.colno})", path=label, line=exc.lineno
            ) from exc
        line += text.count("\n", counted, position)
        counted = position
        pages.append(Page(line, value))
        position = next_position
    if not pages:
        raise InputError("empty input; expected a JSON array of objects", path=label)
    return pages


def page_items(label: str, pages: list[Page], what: str) -> list[tuple[str, dict[str, Any]]]:
    """Flatten pages (arrays of objects, or single objects) into (where, item) pairs."""
    items: list[tuple[str, dict[str, Any]]] = []
    for number, page in enumerate(pages, 1):
        refused = github.error_in_json(page.value, f"{label}:{page.line}")
        if refused is not None:  # `gh api ... > file` saved GitHub's error answer instead
            raise refused
        values = page.value if isinstance(page.value, list) else [page.value]
        for index, value in enumerate(values):
            where = f"page {number} (line {page.line}), item {index}"
            if not isinstance(value, dict):
                raise InputError(
                    f"{where}: expected a {what} object, got {type(value).__name__}",
                    path=label,
                    line=page.line,
                )
            items.append((where, value))
    return items
