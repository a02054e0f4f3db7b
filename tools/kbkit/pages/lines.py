"""Line numbers of character offsets in one text, counted incrementally.

Asking `text.count("\\n", 0, offset)` for every match rescans the text from the start each
time: quadratic on a page with thousands of matches. A `LineCounter` moves forward from the
last offset it was asked about, so a run of increasing offsets scans each character once;
an offset before the last one restarts from the top (still linear per run). The text may be
bytes (byte offsets, as the native parser reports them).
"""

from __future__ import annotations


class LineCounter:
    def __init__(self, text: str | bytes, first_line: int = 1) -> None:
        self._text = text
        self._newline: str | bytes = b"\n" if isinstance(text, bytes) else "\n"
        self._first_line = first_line
        self._offset = 0
        self._line = first_line

    def line_at(self, offset: int) -> int:
        """The line (counted from `first_line`) that holds the character at `offset`."""
        if offset < self._offset:
            self._offset, self._line = 0, self._first_line
        self._line += self._text.count(self._newline, self._offset, offset)  # type: ignore[arg-type]
        self._offset = offset
        return self._line
