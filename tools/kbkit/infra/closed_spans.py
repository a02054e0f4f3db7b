"""Spans that open with a pattern and close at the first closing text after it, in linear time.

`re.compile(opener + ".*?" + re.escape(closer), re.S)` finds the same spans, but where a span
is left open it reads on to the end of the text, and then does so again from every later
opening (an HTML comment never closed, repeated: seconds for a page of 100 KB, minutes at
a megabyte). Here the first opening with no closing after it ends the search: every later
opening's text is part of its own.
"""

from __future__ import annotations

import re


def closed_spans(text: str, opener: re.Pattern[str], closer: str) -> list[tuple[int, int]]:
    """(start, end) of each span, in order, as `opener.*?closer` (re.S) finds them with
    `finditer`: the next span is looked for after the end of the last."""
    spans = []
    position = 0
    while (opened := opener.search(text, position)) is not None:
        end = text.find(closer, opened.end())
        if end < 0:
            break
        end += len(closer)
        spans.append((opened.start(), end))
        position = end
    return spans


def replace_spans(text: str, spans: list[tuple[int, int]], by: str | None = "") -> str:
    """`text` with each span (in order, apart) replaced by `by`; None: by as many blanks."""
    pieces = []
    done = 0
    for start, end in spans:
        pieces.append(text[done:start])
        pieces.append(" " * (end - start) if by is None else by)
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
