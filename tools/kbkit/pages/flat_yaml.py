"""A fast path for plain YAML front matter: `key: value` lines, flow lists and block lists of
one-line scalars (plain or quoted strings, dates kept as written, and the booleans, numbers
and nulls of plain scalars), and block mappings of the same nested under a key (Starlight's
`sidebar:` / `  label: x`, Hugo's `menu:` / `  main:` / `    weight: 2`), which is what almost
every page carries.

PyYAML constructs every node in Python, which costs more than reading the page. This reader
accepts only a narrow, unambiguous subset and answers None for anything else (comments,
lists of mappings, block scalars, anchors, escapes, repeated keys, tabs, control
characters, ...): the caller then asks PyYAML, which stays the reference
(tests/pages/test_flat_yaml.py compares the two on the case folders, the corpus and fuzzed
front matter, values and their types at every depth). What a plain
scalar stands for is decided by PyYAML's own implicit resolver and built by its own safe
constructor, so `on` is True, `0x1f` is 31 and `1:20` is 80, as PyYAML reads them; a key
must be a string.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

_RESOLVER: Final = yaml.resolver.Resolver()
_RESOLVE: Final = _RESOLVER.resolve
# The first characters PyYAML has implicit resolvers for (booleans, null, numbers, dates,
# merge keys...): a plain scalar starting with any other character is a string.
# (A wildcard resolver, key None, would apply to every first character: none is registered.)
_RESOLVED_FIRST: Final = (
    frozenset(_RESOLVER.yaml_implicit_resolvers)
    if None not in _RESOLVER.yaml_implicit_resolvers
    else None
)
# resolved tokens (keys and values repeat on every page): token -> its value, or _DECLINED
_KNOWN: dict[str, Any] = {}
_KNOWN_MAX: Final = 4096
# One-line entries read first: line -> (key, value; a list value kept as a tuple). Most
# lines (`type: guide`, `updated: ...`) repeat from page to page; a hit skips two regexes.
_ENTRIES: dict[str, tuple[str, Any]] = {}
# The common lines come early; at 4096 the unique ones (titles) cost 3 MB of peak memory
# at 50k pages (each process fills its own)
_ENTRIES_MAX: Final = 512
_STR: Final = "tag:yaml.org,2002:str"
_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"  # kept as the written text (frontmatter.py)
_IMPLICIT: Final = (True, False)
# Plain scalars that are no string, built by PyYAML's own safe constructor (a merge key `<<`
# or the `=` value key are left to PyYAML)
_BUILT: Final = {
    "tag:yaml.org,2002:bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    "tag:yaml.org,2002:int": yaml.constructor.SafeConstructor.construct_yaml_int,
    "tag:yaml.org,2002:float": yaml.constructor.SafeConstructor.construct_yaml_float,
    "tag:yaml.org,2002:null": yaml.constructor.SafeConstructor.construct_yaml_null,
}
_CONSTRUCTOR: Final = yaml.constructor.SafeConstructor()
MAX_NUMBER_CHARS: Final = 64  # longer numbers are left to PyYAML's bounded loader
_DECLINED: Final = object()  # a token this reader leaves to PyYAML

# Characters no reader here may see: ASCII and C1 controls, the line breaks YAML adds to
# `\n` (U+0085, U+2028, U+2029), a byte order mark, non-characters and lone surrogates.
# (Written as negated classes: a class listing the allowed Unicode ranges costs 70 ms to
# compile, on every run.)
_OTHER: Final = "\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"
_NEVER: Final = "\x00-\x1f" + _OTHER
# Plain scalar characters: letters, digits, space, `_./()+-` and any other printable
# non-ASCII character; never YAML's indicators, quotes, `#`, `:` or flow punctuation.
# (`_NEVER` needs no place here: `_SAFE_TEXT` has refused such text before; a class with
# its Unicode ranges costs 2 ms to compile, on every run.)
_PUNCT: Final = "!-'*,:-@\\[\\]^`{-~"
_BODY_CHAR: Final = f"[^{_PUNCT}]"
_EDGE_CHAR: Final = f"[^ {_PUNCT}]"  # also no space (no leading/trailing blanks)
_FIRST_CHAR: Final = f"[^ ()+\\-{_PUNCT}]"  # no indicator, `(` or `+` either
_PLAIN: Final = f"{_FIRST_CHAR}(?:{_BODY_CHAR}*{_EDGE_CHAR})?"
_DOUBLE: Final = r'"[^"\\]*"'
_SINGLE: Final = r"'[^']*'"
_ITEM: Final = f"(?:{_DOUBLE}|{_SINGLE}|{_PLAIN})"
_LINE: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)*):(?: (.*))?")
# A block-context plain scalar beyond `_PLAIN` (URLs with `:`, `?`, `&`, `=`; commas and
# brackets after the first character): no indicator first, never `: ` or ` #` inside (a
# nested mapping, a comment), no `:` or blank last.
_WIDE: Final = re.compile(r"[^\s!&*#|>'\"%@`,\[\]{}?:\-](?:[^\n]*[^\s:])?")
_SCALAR: Final = re.compile(_ITEM)
_QUOTED: Final = re.compile(f"{_DOUBLE}|{_SINGLE}")
_FLOW_ITEM: Final = re.compile(f"({_ITEM})(?:, (?=[^ ])|\\Z)")
_BLOCK_ITEM: Final = re.compile(r"( *)- (.*)")
_SAFE_TEXT: Final = re.compile(f"[^\\x00-\\x09\\x0b-\\x1f{_OTHER}]*")  # `\n` is fine


def _scalar(token: str) -> Any:
    """The value a one-line scalar token stands for, as PyYAML builds it, or _DECLINED."""
    first = token[0]
    if first in "\"'":
        return token[1:-1]
    if _RESOLVED_FIRST is not None and first not in _RESOLVED_FIRST:
        return token
    known = _KNOWN.get(token, _DECLINED)
    if known is _DECLINED:
        known = _resolved(token)
        if len(_KNOWN) < _KNOWN_MAX:
            _KNOWN[token] = known
    return known


def _resolved(token: str) -> Any:
    tag = _RESOLVE(yaml.ScalarNode, token, _IMPLICIT)
    if tag in (_STR, _TIMESTAMP):
        return token
    build = _BUILT.get(tag)
    if build is None or len(token) > MAX_NUMBER_CHARS:
        return _DECLINED
    value = build(_CONSTRUCTOR, yaml.ScalarNode(tag, token))
    return value if value == value else _DECLINED  # NaN: equal to nothing, left to PyYAML


def load_flat(raw: str) -> dict[str, Any] | None:
    """The mapping of flat front matter `raw`, exactly as PyYAML would load it, or None when
    `raw` is outside the subset this reader is sure about."""
    if not safe_text(raw):
        return None
    lines = raw.split("\n")
    if lines[-1] == "":
        lines.pop()
    data, index = _mapping(lines, 0, 0)
    return data if index == len(lines) else None


def _mapping(lines: list[str], index: int, width: int) -> tuple[dict[str, Any] | None, int]:
    """The block mapping whose keys are indented `width` spaces, from line `index` on, and
    the index of the first line past it (a less indented one, or the end); None when a line
    is outside the subset. Top-level entries are remembered (`_ENTRIES`)."""
    data: dict[str, Any] = {}
    count = len(lines)
    while index < count:
        line = lines[index]
        if not line:
            index += 1
            continue  # a blank line between entries
        if width:
            if line[:width].strip(" "):
                break  # less indented: the end of this mapping (the caller's to read)
            line = line[width:]
        index += 1
        entry = _ENTRIES.get(line) if not width else None
        if entry is not None:
            if entry[0] in data:
                return None, index  # a repeated key (PyYAML reports it)
            value = entry[1]
            data[entry[0]] = list(value) if type(value) is tuple else value
            continue
        found = _LINE.fullmatch(line)
        if found is None:
            return None, index  # more indented, a comment, a document marker...
        key, value = found[1], found[2]
        if key in data or _scalar(key) != key:
            return None, index  # a repeated key (PyYAML reports it) or a key that is no string
        if value is None:
            below = _indent(lines[index]) if index < count else 0
            if below > width and _LINE.fullmatch(lines[index][below:]):
                nested, index = _mapping(lines, index, below)
                if nested is None:
                    return None, index
                data[key] = nested
                continue
            items, index = _block_list(lines, index, width)
            if items is False:
                return None, index
            data[key] = items
        elif value[:1] == "[":
            parsed = _flow_list(value)
            if parsed is None:
                return None, index
            data[key] = parsed
            if not width:
                _remember(line, key, tuple(parsed))
        else:
            scalar = _scalar(value) if _SCALAR.fullmatch(value) else _wide(value)
            if scalar is _DECLINED:
                return None, index
            data[key] = scalar
            if not width:
                _remember(line, key, scalar)
    return data, index


def _indent(line: str) -> int:
    """The number of spaces a line starts with."""
    return len(line) - len(line.lstrip(" "))


def _flow_list(value: str) -> list[Any] | None:
    """`[a, "b, c"]`: whole scalar tokens, each followed by `, ` and another token or by the
    end (a quoted item may hold `, `: DocFX keyword lists do, on a third of some docsets'
    pages); None for anything else."""
    if value[-1] != "]":
        return None
    inner = value[1:-1]
    items: list[Any] = []
    position, end = 0, len(inner)
    while position < end:
        found = _FLOW_ITEM.match(inner, position)
        if found is None:
            return None
        scalar = _scalar(found[1])
        if scalar is _DECLINED:
            return None
        items.append(scalar)
        position = found.end()
    return items


def plain_scalar(token: str) -> bool:
    """Whether `token` (one line, no leading or trailing blanks) is a whole plain scalar in
    block context within this reader's subset: no indicator first, never `: ` or ` #`
    inside, no `:` last (what it stands for is up to PyYAML's implicit resolver)."""
    return _WIDE.fullmatch(token) is not None and ": " not in token and " #" not in token


def quoted_scalar(token: str) -> str | None:
    """The string of a one-line quoted scalar without escapes (`"..."`, `'...'`), or None."""
    if token[:1] in "\"'" and _QUOTED.fullmatch(token):
        return token[1:-1]
    return None


def safe_text(text: str) -> bool:
    """Whether `text` is free of the characters no reader here may see (tabs, controls,
    YAML's extra line breaks, a byte order mark...)."""
    return _SAFE_TEXT.fullmatch(text) is not None


def _wide(token: str) -> Any:
    """A top-level value `_SCALAR` is too narrow for, as PyYAML reads it in block context
    (or _DECLINED)."""
    return _scalar(token) if plain_scalar(token) else _DECLINED


def _remember(line: str, key: str, value: Any) -> None:
    if len(_ENTRIES) < _ENTRIES_MAX:
        _ENTRIES[line] = (key, value)


def _block_list(lines: list[str], index: int, width: int) -> tuple[Any, int]:
    """The block sequence under an empty `key:` indented `width` spaces (None when there is
    none), the next line's index; False when the lines below are outside the subset. Its
    items are indented alike, at least as much as the key (`key:` then `- a` at the key's
    indent is YAML's indentless sequence)."""
    items: list[Any] = []
    indent: str | None = None
    while index < len(lines):
        found = _BLOCK_ITEM.fullmatch(lines[index])
        if found is None:
            break
        if indent is None:
            indent = found[1]
            if len(indent) < width:
                return False, index  # less indented than its key
        elif found[1] != indent:
            return False, index
        scalar = _scalar(found[2]) if _SCALAR.fullmatch(found[2]) else _DECLINED
        if scalar is _DECLINED:
            return False, index
        items.append(scalar)
        index += 1
    after = lines[index] if index < len(lines) else ""
    if not after[:width].strip(" ") and after[width : width + 1] in (" ", "-"):
        return False, index  # something indented that is not a list item of this shape
    return (items if indent is not None else None), index
