"""The page model: one parse of a markdown page, which the page-local checks, the page's
summary (what the cross-page checks read, `kbkit.pages.page_summary`) and the curator read.

`parse_page` is pure (path and bytes in, `Page` out). It decodes UTF-8 (a BOM is noted and
tolerated, CRLF is fine), splits the frontmatter, parses the body once as CommonMark with GFM
tables and footnotes, and keeps what consumers need: headings with lines, links with their
kind, code blocks (fenced of any length and marker, and indented), HTML comments, footnote
definitions and references, `[[wikilinks]]`, and line/byte counts. Lines are 1-based lines of
the whole file.

The parser is pulldown-cmark (`kbkit.pages.native`, the pyromark wheel); where that wheel cannot
be imported, markdown-it-py with mdit-py-plugins' footnote plugin parses instead
(`kbkit.pages.fallback`: slower, same results except the differences listed in NOTES.md).
markdown-it-py is also the tests' oracle.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

from kbkit.infra.content_digest import digest
from kbkit.pages.containers import has_containers, unindent_containers
from kbkit.pages.frontmatter import NO_FRONTMATTER, Frontmatter, FrontmatterError, split_frontmatter
from kbkit.pages.link import Footnote, Link
from kbkit.pages.math import blank_display_math, has_display_math
from kbkit.pages.mdx import is_mdx, markdown_lines
from kbkit.pages.page_parts import Body, CodeBlock, Comment, Heading, frozen_body
from kbkit.pages.repeated_bodies import RepeatedBodies

if TYPE_CHECKING:
    from collections.abc import Callable

BOM = "\ufeff"


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
    footnotes: tuple[Footnote, ...] = ()
    wikilinks: tuple[Link, ...] = ()  # `[[Page]]` (kind wikilink) and `![[f.png]]` (embed)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def meta(self) -> dict[Any, Any]:
        """The frontmatter mapping ({} when absent or invalid)."""
        return self.frontmatter.data or {}

    def anchors(self) -> tuple[str, ...]:
        """GitHub's anchor of each heading, in order (`page.md#anchor` links)."""
        from kbkit.pages.anchors import page_anchors

        return page_anchors(heading.plain for heading in self.headings)

    def code_line_numbers(self) -> frozenset[int]:
        return frozenset(n for block in self.code_blocks for n in block.line_numbers())


def _counts(text: str) -> tuple[int, int]:
    """(lines, non-empty lines): a line is empty when it is "" or white space alone (what
    `str.strip` strips: `str.isspace`), counted without stripping every line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return len(lines), len(lines) - lines.count("") - sum(map(str.isspace, lines))


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


def parse_page(path: str, data: bytes, repeated: RepeatedBodies | None = None) -> Page:
    """Parse one page's bytes; never raises for bad content (the error is on the page).
    With `repeated` (one memo per tree load), a page whose bytes were parsed before takes that
    parse's parts, and a body parsed before takes that body's."""
    text, bom, error = decode(data)
    if error is not None:
        return unreadable_page(path, len(data), error)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if repeated is None or not repeated.pages.on:
        return Page(path, len(data), text, None, bom, *_parse_text(path, text, repeated))
    # the same bytes read the same way (as MDX or not) make the same page but for its path
    key = (is_mdx(path), digest(data))
    parts = repeated.pages.recall(key, lambda: _parse_text(path, text, repeated))
    return Page(path, len(data), text, None, bom, *parts)


# A page's parts after its text: frontmatter, headings, links, code blocks, comments, line
# count, non-empty line count, footnotes, wikilinks (Page's order)
TextParts = tuple[Any, ...]


def _parse_text(path: str, text: str, repeated: RepeatedBodies | None) -> TextParts:
    front = split_frontmatter(text)
    body_line = 1 + text.count("\n", 0, front.body_offset)
    body_text = text[front.body_offset :]
    if is_mdx(path):  # MDX: its JavaScript lines left out (`kbkit.pages.mdx`)
        body_text = markdown_lines(body_text)
    if repeated is None:
        body = _parse_body(body_text, body_line)
    else:
        body = repeated.parse(body_text, body_line, _parse_body)
    headings, links, blocks, comments, footnotes, wikilinks = body
    line_count, nonempty = _counts(text)
    return (front, headings, links, blocks, comments, line_count, nonempty, footnotes, wikilinks)


def _parse_body(body: str, body_line: int) -> Body:
    """The native parser where its wheel imports, else markdown-it-py (either is imported on
    the first parse: a warm run that parses nothing never loads them). The content of
    MkDocs' admonitions and tabs is read as markdown (`kbkit.pages.containers`)."""
    if has_containers(body):
        body = unindent_containers(body)
    if has_display_math(body):
        body = blank_display_math(body)
    native = native_parser()
    if native is None:
        return _parse_body_markdown_it(body, body_line)
    try:
        parts = native(body, body_line)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: B036 - a Rust panic (pyo3's PanicException) is a BaseException
        # one page the native parser cannot read must not stop a check: markdown-it reads it
        return _parse_body_markdown_it(body, body_line)
    return frozen_body(*parts)


@functools.lru_cache(maxsize=1)
def native_parser() -> Callable[[str, int], Any] | None:
    """`kbkit.pages.native.parse`, or None when the pyromark wheel cannot be imported."""
    try:
        from kbkit.pages import native
    except ImportError:
        return None
    return native.parse


def _parse_body_markdown_it(body: str, body_line: int) -> Body:
    """The fallback parser's parts of one body (kbkit.pages.fallback, markdown-it-py)."""
    from kbkit.pages import fallback

    return fallback.parse(body, body_line)


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
        tuple(map(tuple, page.footnotes)),
        tuple(map(tuple, page.wikilinks)),
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
        tuple(Footnote(*f) for f in t[12]),
        tuple(Link(*link) for link in t[13]),
    )
