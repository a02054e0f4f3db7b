"""Spans that open with a pattern and close at the first closing text after it, in linear time.

`re.compile(opener + ".*?" + re.escape(closer), re.S)` finds the same spans, but where a span
is left open it reads on to the end of the text, and then does so again from every later
opening (an HTML comment never closed, repeated: seconds for a page of 100 KB, minutes at
a megabyte). Here the first opening with no closing after it ends the search: every later
opening's text is part of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple


class Span(NamedTuple):
    start: int  # where the opening starts
    end: int  # where the closing ends
    inner_start: int  # where the opening ends
    inner_end: int  # where the closing starts


def closed_spans(text: str, opener: re.Pattern[str], closer: str | re.Pattern[str]) -> list[Span]:
    """Each span, in order, as `opener(.*?)closer` (re.S) finds them with `finditer`: the
    next span is looked for after the end of the last. `closer`: a text, or a pattern
    searched for from the opening's end."""
    spans = []
    position = 0
    while (opened := opener.search(text, position)) is not None:
        if isinstance(closer, str):
            inner_end = text.find(closer, opened.end())
            end = inner_end + len(closer)
        else:
            closed = closer.search(text, opened.end())
            inner_end, end = (closed.start(), closed.end()) if closed is not None else (-1, -1)
        if inner_end < 0:
            break
        spans.append(Span(opened.start(), end, opened.end(), inner_end))
        position = end
    return spans


def replace_spans(text: str, spans: Iterable[Span], by: str | None = "") -> str:
    """`text` with each span (in order, apart) replaced by `by`; None: by as many blanks."""
    pieces = []
    done = 0
    for span in spans:
        pieces.append(text[done : span.start])
        pieces.append(" " * (span.end - span.start) if by is None else by)
        done = span.end
    pieces.append(text[done:])
    return "".join(pieces)
