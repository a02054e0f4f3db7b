"""Bodies parsed before, reused: a versioned docset repeats most of its pages word for word.

The pages of `docs/v3.4/` are, to a large part, the pages of `docs/v3.5/`; a reference
docset keeps one copy of every page per product version (four in PowerShell's, 44% of its
pages repeat an earlier body). The parse of a body depends on nothing else than its text and
the file line it starts on, and its parts are immutable, so a repeated body takes the parts
of its first parse. Many pages repeat whole, front matter and all (38% of etcd's): the parse
of a page's bytes depends on nothing else than the bytes and whether the page is MDX, so a
repeated page takes the parts of its first parse but for its path (`RepeatedBodies.pages`).

Memory stays bounded and nothing is kept where little repeats: at most `KEEP` values are
remembered (the oldest forgotten first), and after every `PROBATION` values computed, a memo
that has answered fewer than one lookup in `WORTH` forgets them all and stops remembering for
the rest of the process (a tree of unique pages pays one digest per page for its first
`PROBATION` pages only; one stray repeat, the empty text twice, no longer keeps the memo on,
and its digests, for the whole tree). A digest costs a few microseconds and a parse saved a
hundred or more, so a memo pays for itself well below one hit in `WORTH`. A load reads
pages by file name (`kbkit.tree.model`; a parallel one hands them out so), so a page's
versions come close together: `KEEP` spans the distance between a page and its next
version in the docsets measured (up to ~3,800 pages in walk order), and in each process the
first repeat of a body came within its first 160 pages, the first of a whole page within
its first 500, in the docsets measured that repeat any.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from kbkit.infra.content_digest import digest

T = TypeVar("T")

KEEP: Final = 4096
PROBATION: Final = 512
WORTH: Final = 32


class Memo:
    """A bounded memo of values by key (see above: at most `keep`; none once, after some
    multiple of `probation` values computed, fewer than one lookup in `WORTH` has hit)."""

    def __init__(self, keep: int = KEEP, probation: int = PROBATION) -> None:
        self.keep = keep
        self.probation = probation
        self.on = True
        self.hits = 0
        self.misses = 0
        self.remembered: dict[tuple[int, bytes], object] = {}  # insertion order: oldest first

    def recall(self, key: tuple[int, bytes], compute: Callable[[], T]) -> T:
        """The value remembered under `key`, else `compute()`, remembered."""
        if not self.on:
            return compute()
        found = self.remembered.get(key)
        if found is not None:
            self.hits += 1
            return found  # type: ignore[return-value]
        value = compute()
        self.misses += 1
        remembered = self.remembered
        if self.misses % self.probation == 0 and self.hits * WORTH < self.misses:
            self.on = False  # too few repeats to pay for the digests: stop here
            remembered.clear()
            return value
        remembered[key] = value
        if len(remembered) > self.keep:
            del remembered[next(iter(remembered))]
        return value


class RepeatedBodies(Memo):
    """A bounded memo of body parses, keyed by the body's digest and its first line, and
    (`pages`) of whole pages' parses, keyed by their bytes' digest."""

    def __init__(self, keep: int = KEEP, probation: int = PROBATION) -> None:
        super().__init__(keep, probation)
        self.pages = Memo(keep, probation)

    def parse(self, body: str, body_line: int, parse: Callable[[str, int], T]) -> T:
        """`parse(body, body_line)`, or the parts of an earlier parse of the same body."""
        if not self.on:
            return parse(body, body_line)
        return self.recall((body_line, text_digest(body)), lambda: parse(body, body_line))


def text_digest(text: str) -> bytes:
    """A text's key in the memo: the digest of its UTF-8 bytes."""
    return digest(text.encode("utf-8", "surrogatepass"))
