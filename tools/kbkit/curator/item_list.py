"""Bulleted lists of an index page (where an owner registers its pages as list items) and
the item that registers a new rule page in one.

A list is a run of top-level `-`/`*`/`+` items (column 0; indented lines continue an item),
named like a table by the heading above it and its 1-based position among the lists under
that heading. A new item is inserted after the item whose text starts the same way as
`after`, before the first item (`^`), or after the last one; nothing else moves.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kbkit.curator.table import START_ROW
from kbkit.infra.charset import INVISIBLE

_HEADING = re.compile(r"^(#{1,6})[ \t]+((?:.*[^ \t#\n])?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ITEM = re.compile(r"^([-*+])[ \t]+(\S.*)$")
MAX_ITEM_CHARS = 1000


class Item(NamedTuple):
    line: int  # 1-based line of the item's marker
    end: int  # 1-based line right after its last (continuation) line
    text: str  # the first line's text after the marker


class ItemList(NamedTuple):
    heading: str | None
    position: int  # 1-based among the lists under `heading`
    marker: str  # the first item's marker: new items use it
    items: tuple[Item, ...]


def _frontmatter_end(lines: list[str]) -> int:
    if lines and lines[0] == "---":
        return next((i + 1 for i in range(1, len(lines)) if lines[i] == "---"), 0)
    return 0


def find_lists(lines: list[str]) -> list[ItemList]:
    """Every top-level bulleted list of a page's lines (fenced code skipped)."""
    lists: list[ItemList] = []
    heading: str | None = None
    count: dict[str | None, int] = {}
    fence = None
    current: list[Item] = []
    marker = "-"

    def close() -> None:
        if current:
            count[heading] = count.get(heading, 0) + 1
            lists.append(ItemList(heading, count[heading], marker, tuple(current)))
            current.clear()

    n = _frontmatter_end(lines)
    while n < len(lines):
        line = lines[n]
        opener = _FENCE.match(line)
        if fence is not None or opener:
            if fence is None and opener:
                close()
                fence = opener.group(1)
            elif opener and opener.group(1) == fence:
                fence = None
            n += 1
            continue
        item = _ITEM.match(line)
        if item:
            if not current:
                marker = item.group(1)
            end = n + 1
            while end < len(lines) and lines[end][:1] in (" ", "\t") and lines[end].strip():
                end += 1
            current.append(Item(n + 1, end + 1, item.group(2).strip()))
            n = end
            continue
        if not line.strip():
            following = next((x for x in lines[n + 1 :] if x.strip()), "")
            if current and _ITEM.match(following) and following[:1] == marker:
                n += 1  # a loose list: a blank line between two items
                continue
        close()
        heading_match = _HEADING.match(line)
        if heading_match:
            heading = heading_match.group(2).strip()
        n += 1
    close()
    return lists


def list_names(lines: list[str]) -> tuple[str, ...]:
    """The page's lists as the prompt names them: heading, position, item count."""
    return tuple(
        f"{x.heading or '(before the first heading)'} list #{x.position} ({len(x.items)} items)"
        for x in find_lists(lines)
    )


def place_item(
    lists: list[ItemList], heading: str | None, position: int, after: str | None, text: str
) -> tuple[int, str] | str:
    """The 1-based line a new item goes before and its line, or why it cannot go in."""
    wanted = heading.strip().lstrip("#").strip() if heading is not None else None
    found = next((x for x in lists if x.heading == wanted and x.position == position), None)
    if found is None:
        return f"no table or list {position} under {heading!r} in the index"
    if not text.strip() or text != text.strip() or "\n" in text or "\r" in text:
        return "a list item is one line of text without leading or trailing spaces"
    if INVISIBLE.search(text) or len(text) > MAX_ITEM_CHARS:
        return "a list item holds an invisible character or is too long"
    line = f"{found.marker} {text}"
    if after is None:
        return found.items[-1].end, line
    if after.strip() == START_ROW:
        return found.items[0].line, line
    for item in found.items:
        if item.text.startswith(after.strip()):
            return item.end, line
    return f"no item of list {position} under {heading!r} starts with {after.strip()!r}"
