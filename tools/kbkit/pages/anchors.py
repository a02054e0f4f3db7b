"""Heading anchors as GitHub makes them, for `page.md#fragment` links."""

from __future__ import annotations

import re
from collections.abc import Iterable

# GitHub (github-slugger) lower-cases the heading's text, drops everything but letters,
# digits, `_`, `-` and spaces, and turns each space into `-`.
_DROP = re.compile(r"[^\w\- ]")


def slug(text: str) -> str:
    """The anchor of one heading text (its rendered text: `Heading.plain`)."""
    return _DROP.sub("", text.strip().lower()).replace(" ", "-")


def page_anchors(texts: Iterable[str]) -> tuple[str, ...]:
    """The anchors of a page's headings in order; a repeated slug gets `-1`, `-2`, ..."""
    seen: set[str] = set()
    out = []
    for text in texts:
        base = candidate = slug(text)
        number = 0
        while candidate in seen:
            number += 1
            candidate = f"{base}-{number}"
        seen.add(candidate)
        out.append(candidate)
    return tuple(out)
