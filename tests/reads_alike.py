"""Property-test helpers: a pattern and the one it replaced read each text alike."""

from __future__ import annotations

import re

from hypothesis import strategies as st


def joined(pieces: tuple[str, ...], max_size: int) -> st.SearchStrategy[str]:
    """Texts made of up to `max_size` of the pieces, in any order."""
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


def assert_reads_alike(ours: re.Pattern[str], theirs: str, text: str) -> None:
    """`ours` matches at the start of `text` where `theirs` does, with the same groups."""
    mine, old = ours.match(text), re.match(theirs, text)
    assert (mine and mine.groups()) == (old and old.groups()), text
