"""Bodies parsed before, reused: a versioned docset repeats most of its pages word for word.

The pages of `docs/v3.4/` are, to a large part, the pages of `docs/v3.5/`; a reference
docset keeps one copy of every page per product version (four in PowerShell's, 44% of its
pages repeat an earlier body). The parse of a body depends on nothing else than its text and
the file line it starts on, and its parts are immutable, so a repeated body takes the parts
of its first parse.

Memory stays bounded and nothing is kept where nothing repeats: at most `KEEP` bodies are
remembered (the oldest forgotten first), and once `KEEP` bodies have gone by without one
repeat, the memo forgets them all and stops remembering for the rest of the process (a tree
of unique pages pays one digest per page for its first `KEEP` pages only). `KEEP` spans the
distance between a page and its next version in the docsets measured (up to ~3,800 pages in
walk order, about half of which this process parses when a helper shares the work).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Final, TypeVar

T = TypeVar("T")

KEEP: Final = 4096


class RepeatedBodies:
    """A bounded memo of body parses, keyed by the body's digest and its first line."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self.on = True
        self.hits = 0
        self.remembered: dict[tuple[int, bytes], object] = {}  # insertion order: oldest first

    def parse(self, body: str, body_line: int, parse: Callable[[str, int], T]) -> T:
        """`parse(body, body_line)`, or the parts of an earlier parse of the same body."""
        if not self.on:
            return parse(body, body_line)
        key = (body_line, hashlib.sha256(body.encode("utf-8", "surrogatepass")).digest()[:16])
        found = self.remembered.get(key)
        if found is not None:
            self.hits += 1
            return found  # type: ignore[return-value]
        parts = parse(body, body_line)
        remembered = self.remembered
        remembered[key] = parts
        if len(remembered) > self.keep:
            if not self.hits:  # a whole memo's worth of bodies and no repeat: stop here
                self.on = False
                remembered.clear()
            else:
                del remembered[next(iter(remembered))]
        return parts
