"""Characters that can hide or reorder text, in one place for every guard.

`INVISIBLE` matches C0/C1 controls except tab and newline, Unicode's whole
Default_Ignorable_Code_Point set (zero-width characters, joiners, bidi marks, embeddings,
overrides and isolates, variation selectors, Hangul fillers, tag characters U+E0000–E0FFF,
the BOM), the line and paragraph separators and the interlinear annotation characters.
The default-ignorable ranges are spelled out here (the standard library cannot name the
property); `tests/infra/test_charset.py` checks them against the `regex` library's property table.
"""

from __future__ import annotations

from kbkit.infra.lazy_pattern import lazy

DEFAULT_IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
INVISIBLE = lazy("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufff9-\ufffb" + DEFAULT_IGNORABLE + "]")


def visible(text: str) -> str:
    """Replace each invisible character with a visible `<U+XXXX>` token."""
    return INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def strip_invisible(text: str) -> str:
    """Remove every invisible character (for keys and redaction, where a token would split)."""
    return INVISIBLE.sub("", text)


def json_escaped(text: str) -> str:
    """JSON text with every invisible character written as a `\\uXXXX` escape (surrogate
    pairs beyond the BMP): the same JSON value, and nothing a terminal could act on. Valid
    because in JSON text such characters only occur inside strings."""
    return INVISIBLE.sub(lambda m: json_escape(m.group()), text)


def json_escape(char: str) -> str:
    """One character as a JSON `\\u` escape (a surrogate pair beyond the BMP)."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
