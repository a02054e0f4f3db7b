"""A fast path for tables of contents in block YAML (DocFX `toc.yml`): nested mappings and
sequences of `key: value` lines with plain or quoted scalars, read in one pass.

libyaml parses a docset's tables of contents quickly, but PyYAML builds every node in Python
afterwards: MicrosoftDocs/cpp-docs' 31 `toc.yml` (1 MB) took 0.45 s to load, on the serial
tail of every cold check. This reader accepts only a narrow, unambiguous subset and answers
None for anything else (comments, flow collections, anchors, tags, block scalars, quoted
scalars with escapes or over several lines, a plain one continued below a blank line,
numbers, repeated keys, a scalar list item, tabs, ...); the caller then asks PyYAML
with `TocLoader`, which stays the reference (tests/policy/test_toc_yaml.py compares the two).
Where it answers, the value is what `yaml.load(text, Loader=TocLoader)` gives: strings are
`LinedText` with their line, `true`/`false` and `null` as PyYAML resolves them.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

from kbkit.pages.flat_yaml import plain_scalar, quoted_scalar, safe_text
from kbkit.sites.config import LinedText

# indent, "- " when the line opens a sequence item, the key, the value (None: none)
_LINE: Final = re.compile(r"( *)(- )?([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?")
_RESOLVE: Final = yaml.resolver.Resolver().resolve
_STR: Final = "tag:yaml.org,2002:str"
_BOOL: Final = "tag:yaml.org,2002:bool"
_NULL: Final = "tag:yaml.org,2002:null"
_BOOLS: Final = yaml.constructor.SafeConstructor.bool_values
# The first characters PyYAML has implicit resolvers for: a plain scalar starting with any
# other character is a string. (A wildcard resolver, key None, would apply to all of them.)
_RESOLVERS: Final = yaml.resolver.Resolver.yaml_implicit_resolvers
_RESOLVED_FIRST: Final = frozenset(_RESOLVERS) if None not in _RESOLVERS else None
_TAGS: dict[str, str] = {}  # keys (and values) repeat from line to line
_TAGS_MAX: Final = 2048


class _Outside(Exception):
    """The text leaves the subset: PyYAML decides."""


# (indent, item: the line opens a sequence item, key, value, line, value is a plain string)
Token = tuple[int, bool, str, Any, int, bool]
_NO_VALUE: Final = object()  # `key:` with nothing after it


def load_toc(text: str) -> tuple[bool, Any]:
    """(True, the value PyYAML would load) for text inside the subset, else (False, None)."""
    if not safe_text(text):
        return False, None
    try:
        tokens = _tokens(text)
        if not tokens:
            return False, None  # an empty document: rare, left to PyYAML
        value, end = _block(tokens, 0)
    except _Outside:
        return False, None
    return (True, value) if end == len(tokens) else (False, None)


def _tag(token: str) -> str:
    """The tag PyYAML's implicit resolver gives a plain scalar."""
    if _RESOLVED_FIRST is not None and token[0] not in _RESOLVED_FIRST:
        return _STR
    tag = _TAGS.get(token)
    if tag is None:
        tag = _RESOLVE(yaml.ScalarNode, token, (True, False))
        if len(_TAGS) < _TAGS_MAX:
            _TAGS[token] = tag
    return tag


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    blank = True  # the line before was blank (or there was none)
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip(" ")
        if not line:
            blank = True
            continue
        found = _LINE.fullmatch(line)
        if found is None:
            if blank or not out:
                raise _Outside
            out[-1] = _continued(out[-1], line)
            continue
        blank = False
        indent, dash, key, value = found.groups()
        if _tag(key) != _STR:
            raise _Outside
        name = LinedText(key)
        name.line = number
        scalar, plain = (_NO_VALUE, False) if value is None else _scalar(value, number)
        out.append((len(indent), dash is not None, name, scalar, number, plain))
    return out


def _continued(token: Token, line: str) -> Token:
    """The token with the next line of its multi-line plain scalar value (PyYAML folds the
    lines with one space); a line more indented than the key, right below it."""
    indent, item, key, value, number, plain = token
    text = line.lstrip(" ")
    column = indent + 2 if item else indent
    if len(line) - len(text) <= column or not plain or not plain_scalar(text):
        raise _Outside
    joined = f"{value} {text}"
    if not plain_scalar(joined) or _tag(joined) != _STR:
        raise _Outside
    folded = LinedText(joined)
    folded.line = value.line
    return indent, item, key, folded, number, True


def _scalar(token: str, line: int) -> tuple[Any, bool]:
    """The value of a one-line scalar token and whether it is a plain string (one a next
    line may continue)."""
    text = quoted_scalar(token)
    plain = text is None
    if text is None:
        if not plain_scalar(token):
            raise _Outside
        tag = _tag(token)
        if tag == _BOOL:
            return _BOOLS[token.lower()], False
        if tag == _NULL:
            return None, False
        if tag != _STR:
            raise _Outside  # numbers, dates, merge keys...: PyYAML constructs them
        text = token
    value = LinedText(text)
    value.line = line
    return value, plain


def _block(tokens: list[Token], at: int) -> tuple[Any, int]:
    """The sequence or mapping that starts at token `at`, and the index after it."""
    indent, item = tokens[at][0], tokens[at][1]
    return _sequence(tokens, at, indent) if item else _mapping(tokens, at, indent)


def _sequence(tokens: list[Token], at: int, indent: int) -> tuple[list[Any], int]:
    items = []
    while at < len(tokens) and tokens[at][0] == indent and tokens[at][1]:
        mapping, at = _mapping(tokens, at, indent + 2)  # the item's keys start after "- "
        items.append(mapping)
    return items, at


def _mapping(tokens: list[Token], at: int, column: int) -> tuple[dict[str, Any], int]:
    """The mapping whose keys sit at `column`; its first token may open a sequence item."""
    out: dict[str, Any] = {}
    first = True
    while at < len(tokens):
        indent, item, key, value = tokens[at][:4]
        if not first:
            if indent < column:
                break  # the mapping ended (a dedent, or the next item of its sequence)
            if item or indent != column:
                raise _Outside
        first = False
        if key in out:
            raise _Outside  # a repeated key: PyYAML keeps the last, left to it
        at += 1
        if value is _NO_VALUE:
            value = None
            if at < len(tokens):
                below, below_item = tokens[at][0], tokens[at][1]
                if below > column or (below == column and below_item):
                    value, at = _block(tokens, at)
        out[key] = value
    return out, at
