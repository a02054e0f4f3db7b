"""A fast path for flat YAML front matter: `key: value` lines, flow lists and block lists of
plain or quoted one-line strings (and dates, kept as written), which is what almost every
page carries.

PyYAML constructs every node in Python, which costs more than reading the page. This reader
accepts only a narrow, unambiguous subset and answers None for anything else (comments,
numbers, booleans, nesting, anchors, escapes, repeated keys, tabs, control characters, ...): the
caller then asks PyYAML, which stays the reference (tests/test_flat_yaml.py compares the two
on the case folders, the corpus and fuzzed front matter). Whether a plain scalar is a string
is decided by PyYAML's own implicit resolver, so `on`, `null`, `1.5` or `0x1f` never pass.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

_RESOLVE: Final = yaml.resolver.Resolver().resolve
_STR: Final = "tag:yaml.org,2002:str"
_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"  # kept as the written text (frontmatter.py)
_IMPLICIT: Final = (True, False)

# A plain scalar that cannot start an indicator or hold `: `, ` #`, flow characters or
# trailing blanks; one word-ish character, then more with inner spaces.
# Non-ASCII: printable characters that no YAML reader takes for a line break (U+0085,
# U+2028, U+2029), a byte order mark or a non-character.
_WIDE: Final = "\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_PLAIN: Final = rf"[A-Za-z0-9_./{_WIDE}](?:[A-Za-z0-9 _./()+{_WIDE}-]*[A-Za-z0-9_./()+{_WIDE}-])?"
_DOUBLE: Final = r'"[^"\\]*"'
_SINGLE: Final = r"'[^']*'"
_ITEM: Final = f"(?:{_DOUBLE}|{_SINGLE}|{_PLAIN})"
_LINE: Final = re.compile(
    rf"([A-Za-z_][A-Za-z0-9_.-]*):(?: ({_ITEM}|\[(?:{_ITEM}(?:, {_ITEM})*)?\]))?"
)
_ITEMS: Final = re.compile(_ITEM)
_BLOCK_ITEM: Final = re.compile(rf"( *)- ({_ITEM})")
_SAFE_TEXT: Final = re.compile(rf"[\n\x20-\x7e{_WIDE}]*")


def _scalar(token: str) -> str | None:
    """The string a one-line scalar token stands for, or None when it is no string."""
    first = token[0]
    if first in "\"'":
        return token[1:-1]
    tag = _RESOLVE(yaml.ScalarNode, token, _IMPLICIT)
    return token if tag in (_STR, _TIMESTAMP) else None


def load_flat(raw: str) -> dict[str, Any] | None:
    """The mapping of flat front matter `raw`, exactly as PyYAML would load it, or None when
    `raw` is outside the subset this reader is sure about."""
    if not _SAFE_TEXT.fullmatch(raw):
        return None
    data: dict[str, Any] = {}
    lines = raw.split("\n")
    if lines[-1] == "":
        lines.pop()
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        index += 1
        if not line:
            continue  # a blank line between entries
        found = _LINE.fullmatch(line)
        if found is None:
            return None
        key, value = found[1], found[2]
        if key in data or _scalar(key) != key:
            return None  # a repeated key (PyYAML reports it) or a key that is no string
        if value is None:
            items, index = _block_list(lines, index)
            if items is False:
                return None
            data[key] = items
        elif value[0] == "[":
            parsed = [_scalar(token) for token in _ITEMS.findall(value[1:-1])]
            if None in parsed:
                return None
            data[key] = parsed
        else:
            scalar = _scalar(value)
            if scalar is None:
                return None
            data[key] = scalar
    return data


def _block_list(lines: list[str], index: int) -> tuple[Any, int]:
    """The block sequence under an empty `key:` (None when there is none), the next line's
    index; False when the lines below are outside the subset."""
    items: list[str] = []
    indent: str | None = None
    while index < len(lines):
        found = _BLOCK_ITEM.fullmatch(lines[index])
        if found is None:
            break
        if indent is None:
            indent = found[1]
        elif found[1] != indent:
            return False, index
        scalar = _scalar(found[2])
        if scalar is None:
            return False, index
        items.append(scalar)
        index += 1
    if index < len(lines) and lines[index][:1] in (" ", "-"):
        return False, index  # something indented that is not a list item of this shape
    return (items if indent is not None else None), index
