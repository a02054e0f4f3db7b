"""The page model: one parse of a markdown page that every check and the curator read.

`parse_page` is pure (path and bytes in, `Page` out). It decodes UTF-8 (a BOM is noted and
tolerated, CRLF is fine), splits the frontmatter, runs markdown-it-py's CommonMark block
parser once over the body, and keeps what consumers need: headings with lines, links from the
inline spans, code blocks (fenced of any length and marker, and indented), HTML comments and
line/byte counts. Lines are 1-based lines of the whole file.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

from kbkit.frontmatter import NO_FRONTMATTER, Frontmatter, FrontmatterError, split_frontmatter
from kbkit.lines import LineCounter
from kbkit.link import Link

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from kbkit import blocks

BOM = "\ufeff"


class Heading(NamedTuple):
    level: int
    text: str
    line: int


class CodeBlock(NamedTuple):
    """A fenced or indented code block; `first_line` is the line of its first content line."""

    first_line: int
    info: str
    text: str
    fenced: bool

    def lines(self) -> list[tuple[int, str]]:
        return [(self.first_line + i, line) for i, line in enumerate(self.text.split("\n")[:-1])]


class Comment(NamedTuple):
    """An HTML comment block or inline comment (`<!-- ... -->`) and its line."""

    text: str
    line: int


class Page(NamedTuple):
    path: str  # repo-relative POSIX path
    size: int  # bytes on disk
    text: str  # decoded text without BOM ("" when unreadable)
    error: str | None  # why the page could not be read or decoded
    bom: bool
    frontmatter: Frontmatter
    headings: tuple[Heading, ...]
    links: tuple[Link, ...]
    code_blocks: tuple[CodeBlock, ...]
    comments: tuple[Comment, ...]
    line_count: int
    nonempty_lines: int

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def meta(self) -> dict[Any, Any]:
        """The frontmatter mapping ({} when absent or invalid)."""
        return self.frontmatter.data or {}

    def code_line_numbers(self) -> frozenset[int]:
        return frozenset(n for block in self.code_blocks for n, _ in block.lines())


@functools.lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """CommonMark plus GFM tables; the inline pass is left to `links.extract_links`."""
    from markdown_it import MarkdownIt  # imported lazily: a warm `kb check` never parses

    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    return md


def _counts(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    nonempty = sum(1 for line in lines if line.strip())
    return len(lines), nonempty


def unreadable_page(path: str, size: int, error: str) -> Page:
    return Page(path, size, "", error, False, NO_FRONTMATTER, (), (), (), (), 0, 0)


def decode(data: bytes) -> tuple[str, bool, str | None]:
    """Return (text, had_bom, error)."""
    if b"\x00" in data[:8192]:
        return "", False, "binary file (contains NUL bytes), not markdown"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return "", False, f"not valid UTF-8 (line {line}, byte offset {exc.start})"
    bom = text.startswith(BOM)
    return (text[1:] if bom else text), bom, None


def parse_page(path: str, data: bytes) -> Page:
    """Parse one page's bytes; never raises for bad content (the error is on the page)."""
    text, bom, error = decode(data)
    if error is not None:
        return unreadable_page(path, len(data), error)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    front = split_frontmatter(text)
    body_line = 1 + text.count("\n", 0, front.body_offset)
    headings, links, blocks, comments = _parse_body(text[front.body_offset :], body_line)
    line_count, nonempty = _counts(text)
    return Page(
        path,
        len(data),
        text,
        None,
        bom,
        front,
        headings,
        links,
        blocks,
        comments,
        line_count,
        nonempty,
    )


Body = tuple[tuple[Heading, ...], tuple[Link, ...], tuple[CodeBlock, ...], tuple[Comment, ...]]


def _parse_body(body: str, body_line: int) -> Body:
    """The fast block scanner (`blocks.py`) where it applies, else markdown-it-py (both are
    imported on the first parse: a warm run that parses nothing never loads them)."""
    from kbkit import blocks

    events = blocks.scan(body)
    if events is None:
        return _parse_body_markdown_it(body, body_line)
    return _parse_body_events(events, body_line)


def _parse_body_events(events: list[blocks.Event], body_line: int) -> Body:
    """Build the body's parts from the fast scanner's events, as from markdown-it's tokens."""
    from kbkit.blocks import FENCE, INLINE
    from kbkit.links import extract_comments, extract_links

    md = markdown_parser()
    env: dict[str, Any] = {}
    offset = body_line - 1
    headings: list[Heading] = []
    links: list[Link] = []
    code: list[CodeBlock] = []
    comments: list[Comment] = []
    for kind, line, level, content, info in events:
        first = line + 1 + offset
        if kind == INLINE:
            if level:
                headings.append(Heading(level, content.strip(), first))
            if "[" in content or "<" in content:
                links.extend(extract_links(md, content, env, first))
                if "<!--" in content:
                    found = extract_comments(md, content, first)
                    comments.extend(Comment(text, at) for text, at in found)
        elif kind == FENCE:
            code.append(CodeBlock(first + 1, info.strip(), content, True))
        else:
            comments.extend(_inline_comments(content, first))
    return tuple(headings), tuple(links), tuple(code), tuple(comments)


def _parse_body_markdown_it(body: str, body_line: int) -> Body:
    """The reference implementation: markdown-it-py's block parse, every token."""
    from kbkit.links import extract_comments, extract_links

    md = markdown_parser()
    env: dict[str, Any] = {}
    tokens = md.parse(body, env)
    offset = body_line - 1
    headings: list[Heading] = []
    links: list[Link] = []
    code: list[CodeBlock] = []
    comments: list[Comment] = []
    pending_heading: int | None = None
    for token in tokens:
        kind = token.type
        if kind == "inline":
            first = (token.map[0] if token.map else 0) + 1 + offset
            if pending_heading is not None:
                headings.append(Heading(pending_heading, token.content.strip(), first))
                pending_heading = None
            links.extend(extract_links(md, token.content, env, first))
            if "<!--" in token.content:
                found = extract_comments(md, token.content, first)
                comments.extend(Comment(text, line) for text, line in found)
        elif kind == "heading_open":
            pending_heading = int(token.tag[1])
        elif kind in ("fence", "code_block"):
            start = (token.map[0] if token.map else 0) + offset + (2 if kind == "fence" else 1)
            code.append(CodeBlock(start, token.info.strip(), token.content, kind == "fence"))
        elif kind == "html_block" and "<!--" in token.content:
            first = (token.map[0] if token.map else 0) + 1 + offset
            comments.extend(_inline_comments(token.content, first))
    return tuple(headings), tuple(links), tuple(code), tuple(comments)


def _inline_comments(content: str, first_line: int) -> list[Comment]:
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


def page_to_plain(page: Page) -> tuple[Any, ...]:
    """A marshal-friendly copy of a page (plain tuples), for the parse cache."""
    fm = page.frontmatter
    return (
        page.path,
        page.size,
        page.text,
        page.error,
        page.bom,
        (
            fm.present,
            fm.data,
            tuple(fm.error) if fm.error else None,
            fm.start_line,
            fm.end_line,
            fm.body_offset,
            fm.raw,
            fm.duplicates,
        ),
        tuple(map(tuple, page.headings)),
        tuple(map(tuple, page.links)),
        tuple(map(tuple, page.code_blocks)),
        tuple(map(tuple, page.comments)),
        page.line_count,
        page.nonempty_lines,
    )


def page_from_plain(t: tuple[Any, ...]) -> Page:
    fm = t[5]
    error = FrontmatterError(*fm[2]) if fm[2] else None
    return Page(
        t[0],
        t[1],
        t[2],
        t[3],
        t[4],
        Frontmatter(fm[0], fm[1], error, fm[3], fm[4], fm[5], fm[6], fm[7]),
        tuple(Heading(*h) for h in t[6]),
        tuple(Link(*link) for link in t[7]),
        tuple(CodeBlock(*c) for c in t[8]),
        tuple(Comment(*c) for c in t[9]),
        t[10],
        t[11],
    )
