"""The parts of a parsed page body (headings, code blocks, comments), shared by the page
model (`kbkit.pages.page`) and the two parsers (`kbkit.pages.native`, `kbkit.pages.fallback`) that build them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kbkit.pages.lines import LineCounter
from kbkit.pages.link import Footnote, Link


class Heading(NamedTuple):
    level: int
    text: str  # the heading's inline source, trimmed (`[a](b.md) **c**`)
    line: int
    plain: str = ""  # its text and code spans as rendered (what GitHub slugs are made of)


class CodeBlock(NamedTuple):
    """A fenced or indented code block; `first_line` is the line of its first content line."""

    first_line: int
    info: str
    text: str
    fenced: bool

    def lines(self) -> list[tuple[int, str]]:
        return [(self.first_line + i, line) for i, line in enumerate(self.text.split("\n")[:-1])]

    def line_numbers(self) -> range:
        """The numbers `lines()` gives, without splitting the text."""
        return range(self.first_line, self.first_line + self.text.count("\n"))


class Comment(NamedTuple):
    """An HTML comment block or inline comment (`<!-- ... -->`) and its line."""

    text: str
    line: int


Body = tuple[
    tuple[Heading, ...],
    tuple[Link, ...],
    tuple[CodeBlock, ...],
    tuple[Comment, ...],
    tuple[Footnote, ...],
    tuple[Link, ...],
]


def frozen_body(
    headings: Iterable[Heading],
    links: Iterable[Link],
    code: Iterable[CodeBlock],
    comments: Iterable[Comment],
    footnotes: Iterable[Footnote],
    wikilinks: Iterable[Link],
) -> Body:
    """A parser's parts (built as lists) as the page keeps them: tuples."""
    return (
        tuple(headings),
        tuple(links),
        tuple(code),
        tuple(comments),
        tuple(footnotes),
        tuple(wikilinks),
    )


def inline_comments(content: str, first_line: int) -> list[Comment]:
    """The HTML comments in a raw HTML block, with their lines."""
    found = []
    pos = 0
    lines = LineCounter(content, first_line)
    while (start := content.find("<!--", pos)) >= 0:
        end = content.find("-->", start + 4)
        if end < 0:
            break
        found.append(Comment(content[start + 4 : end].strip(), lines.line_at(start)))
        pos = end + 3
    return found
