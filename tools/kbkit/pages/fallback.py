"""The fallback page parser: markdown-it-py's CommonMark block parser with GFM tables and
mdit-py-plugins' footnotes, and kbkit.pages.link_scanner for the links. It parses when the native
parser's wheel (pyromark) cannot be imported, and it is the oracle of the native parser's
tests. Footnote references and wikilinks are found by a pattern over the inline text here
(a code span does not hide them), the only place where it is looser than the native one.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from kbkit.pages.lines import LineCounter
from kbkit.pages.link import EMBED, WIKILINK, Footnote, Link, make_link
from kbkit.pages.page_parts import Body, CodeBlock, Comment, Heading, frozen_body, inline_comments

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@functools.lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """CommonMark plus GFM tables and footnotes; the inline pass is left to
    `links.extract_links` (the fallback parser, and the oracle of the native one)."""
    from markdown_it import MarkdownIt  # imported lazily: a warm `kb check` never parses
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark").enable("table").use(footnote_plugin)
    # No inline pass; and footnote definitions stay where they are written (the tail rule
    # would move them to the end and drop the ones never referenced).
    md.disable(["inline", "footnote_tail"])
    return md


_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\]")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]")


def parse(body: str, body_line: int) -> Body:
    """The parts of one page body: markdown-it-py's block parse, every token, and its link
    rules; `body_line` is the file line of the body's first line."""
    from kbkit.pages.link_scanner import extract_comments, extract_links

    md = markdown_parser()
    env: dict[str, Any] = {}
    tokens = md.parse(body, env)
    offset = body_line - 1
    headings: list[Heading] = []
    links: list[Link] = []
    code: list[CodeBlock] = []
    comments: list[Comment] = []
    footnotes: list[Footnote] = []
    wikilinks: list[Link] = []
    pending_heading: int | None = None
    for token in tokens:
        kind = token.type
        if kind == "inline":
            first = (token.map[0] if token.map else 0) + 1 + offset
            content = token.content
            if pending_heading is not None:
                plain = _plain_text(md, content, env)
                headings.append(Heading(pending_heading, content.strip(), first, plain))
                pending_heading = None
            links.extend(extract_links(md, content, env, first))
            if "<!--" in content:
                found = extract_comments(md, content, first)
                comments.extend(Comment(text, line) for text, line in found)
            if "[^" in content or "[[" in content:
                _scan_inline_extras(content, first, footnotes, wikilinks)
        elif kind == "heading_open":
            pending_heading = int(token.tag[1])
        elif kind in ("fence", "code_block"):
            start = (token.map[0] if token.map else 0) + offset + (2 if kind == "fence" else 1)
            code.append(CodeBlock(start, token.info.strip(), token.content, kind == "fence"))
        elif kind == "html_block" and "<!--" in token.content:
            first = (token.map[0] if token.map else 0) + 1 + offset
            comments.extend(inline_comments(token.content, first))
        elif kind == "footnote_reference_open":
            first = (token.map[0] if token.map else 0) + 1 + offset
            footnotes.append(Footnote(str(token.meta["label"]), first, True))
    footnotes.sort(key=lambda note: note.line)
    return frozen_body(headings, links, code, comments, footnotes, wikilinks)


def _scan_inline_extras(
    content: str, first: int, footnotes: list[Footnote], wikilinks: list[Link]
) -> None:
    """Footnote references and wikilinks in one inline span (the fallback's approximation:
    a code span does not hide them here)."""
    lines = LineCounter(content, first)
    for match in _FOOTNOTE_REF.finditer(content):
        footnotes.append(Footnote(match[1], lines.line_at(match.start()), False))
    lines = LineCounter(content, first)
    for match in _WIKILINK.finditer(content):
        kind = EMBED if match[1] else WIKILINK
        line = lines.line_at(match.start())
        wikilinks.append(make_link(match[2].strip(), line, bool(match[1]), kind))


def _plain_text(md: MarkdownIt, content: str, env: dict[str, Any]) -> str:
    """A heading's text and code spans as markdown-it renders them (for its slug)."""
    if not content or not any(c in content for c in "\\`*_&[<!"):
        return content.strip()
    children: list[Any] = []
    md.inline.parse(content.strip(), md, env, children)
    return "".join(child.content for child in children if child.type in _PLAIN)


_PLAIN = frozenset(("text", "text_special", "code_inline"))
