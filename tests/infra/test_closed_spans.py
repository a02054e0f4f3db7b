"""Spans closed by the first closing text after their opening: what `opener.*?closer` (re.S)
finds, without reading on to the end from every opening left open."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.infra.closed_spans import Span, closed_spans, replace_spans

OPENERS = (r"<!--", r"<!--\s*kb-disable-file\b", r"<!--[ \t]*kb-disable-(?:next-line|file)\b")
PIECES = (
    "<!--",
    "-->",
    "--",
    "->",
    "<!",
    " ",
    "\n",
    "kb-disable-file",
    "kb-disable-next-line",
    "x",
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30), st.sampled_from(OPENERS))
def test_spans_are_those_the_lazy_pattern_finds(pieces: list[str], opener: str) -> None:
    text = "".join(pieces)
    lazy = re.compile(opener + r"(.*?)-->", re.S)
    spans = closed_spans(text, re.compile(opener), "-->")
    assert [(span.start, span.end) for span in spans] == [m.span() for m in lazy.finditer(text)]
    assert [(span.inner_start, span.inner_end) for span in spans] == [
        m.span(1) for m in lazy.finditer(text)
    ]
    assert replace_spans(text, spans, " ") == lazy.sub(" ", text)


def test_an_opening_left_open_ends_the_search() -> None:
    text = "<!-- a --> <!-- b <!-- c"
    assert closed_spans(text, re.compile("<!--"), "-->") == [Span(0, 10, 4, 7)]


def test_spans_can_be_blanked_keeping_every_offset() -> None:
    text = "a {/* b */} c {/* d"
    spans = closed_spans(text, re.compile(r"\{/\*"), "*/}")
    assert replace_spans(text, spans, None) == "a " + " " * 9 + " c {/* d"
