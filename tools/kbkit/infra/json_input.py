"""Decoding JSON that someone else wrote: one place, so no reader can forget a failure mode.

`json.loads` raises RecursionError, not ValueError, on input nested deeper than the
interpreter's recursion limit (`[[[[...` 100k deep is a few hundred kilobytes). Every reader
catches ValueError for bad records, so such a record escaped as a crash (exit 3) and stopped
the valid records beside it. Here it becomes `JsonNestingError`, a `json.JSONDecodeError`
(so a ValueError), and the C parser's own recursion guard is the depth bound: no scan of our
own, so the fast paths keep their speed.
"""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()


class JsonNestingError(json.JSONDecodeError):
    """JSON nested too deeply to decode; a malformed record like any other."""


def _nesting_error(doc: str | bytes | bytearray, pos: int) -> JsonNestingError:
    text = doc if isinstance(doc, str) else ""  # JSONDecodeError counts lines in a str only
    return JsonNestingError(
        "nested too deeply (arrays or objects beyond the parser's recursion limit)",
        text,
        pos if text else 0,
    )


def loads(data: str | bytes | bytearray) -> Any:
    """`json.loads`, failing with a ValueError (JsonNestingError) on any nesting depth."""
    try:
        return json.loads(data)
    except RecursionError:
        raise _nesting_error(data, 0) from None


def raw_decode(text: str, position: int = 0) -> tuple[Any, int]:
    """`JSONDecoder.raw_decode`: one value starting at `position` and where it ends."""
    try:
        return _DECODER.raw_decode(text, position)
    except RecursionError:
        raise _nesting_error(text, position) from None
