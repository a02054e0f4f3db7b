"""Links of a page, found by markdown-it-py's own inline link rules on the spans that can hold one.

A full inline parse of every paragraph costs most of a validator's time. Only five
characters can start a construct that contains a `[` (`[`, `![`, a code span, an escape, a
raw-HTML tag or autolink), so the scanner jumps between them and hands each candidate to
markdown-it's `link`/`image` rules, which then parse exactly as CommonMark says (titles,
`<...>` destinations, nested brackets, reference definitions). tests/test_links.py checks the
result against a full markdown-it parse on fuzzed pages.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkLabel
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.autolink import autolink
from markdown_it.rules_inline.backticks import backtick
from markdown_it.rules_inline.html_inline import html_inline
from markdown_it.rules_inline.image import image
from markdown_it.rules_inline.link import link
from markdown_it.token import Token

from kbkit.pages.lines import LineCounter
from kbkit.pages.link import AUTOLINK, INLINE, REFERENCE, Link, make_link

_SPECIAL = re.compile(r"[\[!`\\<]")
# What a link's text needs before it can hold a link or an image (or touch the state that a
# later candidate reads: the backtick cache).
_NESTABLE = re.compile(r"[\[<`]")


def _first(tokens: list[Token], line: int, kind: str) -> Link | None:
    """The link or image that a link rule (or the autolink rule) just produced."""
    for token in tokens:
        if token.type == "link_open":
            return make_link(str(token.attrGet("href") or ""), line, False, kind)
        if token.type == "image":
            return make_link(str(token.attrGet("src") or ""), line, True, kind)
    return None


class _LinkTextParser(ParserInline):
    """markdown-it's inline parser (same rules and settings), except that a link's text
    without `[`, `<` or a backtick is not tokenized: such text yields no link or image
    token, and the link rule's result (end position, href) does not depend on it."""

    def tokenize(self, state: StateInline) -> None:
        if state.linkLevel > 0 and not _NESTABLE.search(state.src, state.pos, state.posMax):
            state.pos = state.posMax
            return
        super().tokenize(state)


@functools.lru_cache(maxsize=8)
def _scanner(md: MarkdownIt) -> MarkdownIt:
    """A shallow copy of `md` whose inline parser is a `_LinkTextParser` (`md` is unchanged)."""
    inline = _LinkTextParser.__new__(_LinkTextParser)
    inline.__dict__.update(md.inline.__dict__)
    scanner = copy.copy(md)
    scanner.inline = inline
    return scanner


def extract_links(md: MarkdownIt, src: str, env: dict[str, Any], base_line: int) -> list[Link]:
    """All links and images in one inline span; `base_line` is the span's first line."""
    if "[" not in src and "<" not in src:
        return []
    out: list[Link] = []
    lines = LineCounter(src, base_line)
    state = StateInline(src, _scanner(md), env, [])
    end = len(src)
    pos = 0
    while True:
        match = _SPECIAL.search(src, pos)
        if match is None:
            break
        pos = match.start()
        char = src[pos]
        state.pos = pos
        state.posMax = end
        if char == "\\":
            pos += 2
            continue
        if char == "`":
            backtick(state, True)
            pos = state.pos
            continue
        if char == "<":
            state.tokens = []
            if autolink(state, False):
                found = _first(state.tokens, lines.line_at(pos), AUTOLINK)
                out.extend([found] if found else [])
                pos = state.pos
            elif html_inline(state, True):
                pos = state.pos
            else:
                pos += 1
            continue
        rule = link if char == "[" else image
        if char == "!" and not src.startswith("[", pos + 1):
            pos += 1
            continue
        state.tokens = []
        if rule(state, False):
            # `[t](dest)` ends with `)`, `[t][label]`, `[t][]` and `[t]` with `]`
            kind = INLINE if src[state.pos - 1] == ")" else REFERENCE
            found = _first(state.tokens, lines.line_at(pos), kind)
            out.extend([found] if found else [])
            after = state.pos
            if found is not None and found.image or char == "[":
                # what the link's text holds (images; an image's text holds links too),
                # each with its own line and kind: the text parses as it does inside
                label = pos + (2 if char == "!" else 1)
                state.pos = pos
                label_end = parseLinkLabel(state, label - 1, char == "[")
                text = src[label:label_end]
                if label_end > label and ("[" in text or "<" in text):
                    out.extend(extract_links(md, text, env, lines.line_at(label)))
            pos = after
        else:
            pos += 1
    return out


def extract_comments(md: MarkdownIt, src: str, base_line: int) -> list[tuple[str, int]]:
    """HTML comments (`<!-- ... -->`) in one inline span, as (text, line); code spans and
    escapes hide them exactly as CommonMark says."""
    if "<!--" not in src:
        return []
    out: list[tuple[str, int]] = []
    lines = LineCounter(src, base_line)
    state = StateInline(src, md, {}, [])
    pos = 0
    while (match := _COMMENT_SPECIAL.search(src, pos)) is not None:
        pos = match.start()
        state.pos, state.posMax = pos, len(src)
        if src[pos] == "\\":
            pos += 2
        elif src[pos] == "`":
            backtick(state, True)
            pos = state.pos
        else:
            state.tokens = []
            if html_inline(state, False) and state.tokens[-1].content.startswith("<!--"):
                text = state.tokens[-1].content[4:].rsplit("-->", 1)[0].strip()
                out.append((text, lines.line_at(pos)))
                pos = state.pos
            else:
                pos += 1
    return out


_COMMENT_SPECIAL = re.compile(r"[`\\<]")
