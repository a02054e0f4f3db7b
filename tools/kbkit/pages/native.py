"""A page body from pulldown-cmark's events (the `pyromark` wheel): the fast page parser.

pulldown-cmark parses CommonMark plus GFM tables and footnotes natively and reports a byte
range for every block and inline element, with reference links already resolved. This module
keeps what `page.py` needs, as markdown-it-py (the fallback and test oracle) would give it:
headings (the raw inline text and the line), links and images (destination, line, kind),
fenced and indented code blocks, HTML comments, footnote definitions and references, and
`[[wikilinks]]` (in the same pass where they cannot change the CommonMark reading, else from
a second pass with wikilinks on: `_wikilinks_apart`). Where the two parsers read
the spec differently the difference is listed in NOTES.md ("Native parsers compared") and
pinned by tests/pages/test_page_parsers.py.
"""

from __future__ import annotations

import re
from typing import Any, Final

import pyromark

from kbkit.pages.lines import LineCounter
from kbkit.pages.link import AUTOLINK, EMBED, INLINE, REFERENCE, WIKILINK, Footnote, Link, make_link
from kbkit.pages.page_parts import CodeBlock, Comment, Heading, inline_comments

_OPTIONS: Final = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_FOOTNOTES
_WIKI_OPTIONS: Final = _OPTIONS | pyromark.Options.ENABLE_WIKILINKS
_KINDS: Final = {
    "Inline": INLINE,
    "Reference": REFERENCE,
    "Collapsed": REFERENCE,
    "Shortcut": REFERENCE,
    "Autolink": AUTOLINK,
    "Email": AUTOLINK,
}
# The string-valued End events the loop acts on (every other one is skipped at once)
_ENDS: Final = frozenset(("Image", "CodeBlock", "HtmlBlock"))
_new: Final = tuple.__new__  # a NamedTuple without the Python-level __new__ call
_FENCE: Final = re.compile(r"(`{3,}|~{3,})(.*)")
# markdown-it's validateLink: a destination with one of these schemes is no link at all,
# unless it is a `data:` URL of a safe image type.
_BAD_PROTO: Final = re.compile(r"^(vbscript|javascript|file|data):")
_GOOD_DATA: Final = re.compile(r"^data:image\/(gif|png|jpeg|webp);")
_SCHEME: Final = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")

# (headings, links, code blocks, comments, footnotes, wikilinks), each a list of
# page.py's records
Parts = tuple[list[Any], list[Link], list[Any], list[Any], list[Footnote], list[Link]]


def _destination(url: str, email: bool) -> str | None:
    """The href markdown-it would give the destination (its normalizeLink), or None where
    its validateLink refuses the link."""
    if email:
        url = "mailto:" + url
    if _SCHEME.match(url):
        low = url.strip().lower()
        if _BAD_PROTO.match(low) and not _GOOD_DATA.match(low):
            return None
        # Beyond percent-encoding (which the Link's decoding undoes), markdown-it's
        # normalizeLink only changes a non-ASCII host name (to punycode): ask it only then,
        # which keeps markdown-it (60 ms to import, in each process) unimported on almost
        # every page. A web address whose host part is ASCII keeps its host.
        if not url.isascii() and not _ascii_host(url):
            from markdown_it.common.normalize_url import normalizeLink

            return normalizeLink(url)
    return url


# `http://` or `https://` and what follows up to the first `/`, `?`, `#` or `\`: the host
# with any user and port, and more than the host wherever markdown-it's URL parser (mdurl)
# ends the host sooner (at `%`, `;`, `'`, a blank...), never less
_WEB_AUTHORITY: Final = re.compile(r"(?i)https?://([^/?#\\]*)")


def _ascii_host(url: str) -> bool:
    """Whether `url` is a web address whose host is ASCII: nothing to punycode."""
    found = _WEB_AUTHORITY.match(url)
    return found is not None and found[1].isascii()


def atx_text(line: str) -> str:
    """The inline text of an ATX heading line, as markdown-it's heading rule cuts it: after
    the opening `#`s, without trailing blanks and without a closing `#` sequence that a
    blank precedes."""
    end = line.lstrip(" ").lstrip("#").rstrip(" \t")
    if end.endswith("#"):  # a closing sequence counts only after a blank
        unclosed = end.rstrip("#")
        if unclosed and unclosed[-1] in " \t":
            end = unclosed
    return end.strip()


def parse(body: str, body_line: int) -> Parts:
    """The parts of one page body; `body_line` is the file line of the body's first line.
    A body with `[[` is read once with wikilinks on where they cannot change what the
    CommonMark reading finds (`_wikilinks_apart`), else a second time for its wikilinks."""
    wiki = "[[" in body
    together = wiki and not _wikilinks_apart(body)
    parts = _parse(body, body_line, _WIKI_OPTIONS if together else _OPTIONS)
    if wiki and not together and not _only_in_code(body, body_line, parts[2]):
        parts[5].extend(_wikilinks(body, _offsets_of(body), body_line))
    return parts


def _only_in_code(body: str, body_line: int, code: list[Any]) -> bool:
    """Whether every `[[` of the body is inside a code block (PowerShell's syntax blocks,
    `[[-Name] <String>]`), where no wikilink can be."""
    if not code:
        return False
    inside: set[int] = set()
    for block in code:
        inside.update(block.line_numbers())
    line_at = LineCounter(body, body_line).line_at
    at = body.find("[[")
    while at >= 0:
        if line_at(at) not in inside:
            return False
        at = body.find("[[", at + 2)
    return True


# What a wikilink may change in the CommonMark reading of its page, were both read in one
# pass: a heading's text (`## See [[x]]` is the literal `[[x]]` to CommonMark), a link
# around it or right after it (`[see [[x]]](u)`, `[[x]](u)`: a link cannot hold a link), a
# reference definition (`[x]: u` makes `[[x]]` a link to u), and a wikilink that holds what
# CommonMark reads apart (`[[a <!-- c --> b]]`, `<https://x>`) or goes on to the next line.
# Without `](`, `][` and a definition (`]:`, footnotes' too), CommonMark finds no link in a
# paragraph at all, whatever its brackets; with `](`, a link that neither holds a wikilink
# nor follows one right after its `]]` leaves it alone. So a body is read in one pass only
# when it has no `]:` but a wikilink's `]]:`, and every paragraph (lines up to a blank one)
# holding `[[` has no `][`, no `[[` inside or right before a link (`_in_or_before_a_link`)
# and no setext underline, and no line with `[[` is a heading (after any `>`, list marker
# or number) or holds `<` or more `[[` than `]]`. (A heading line without `[[` is read
# alike either way: a note's `## Section` right above a line of wikilinks needs no second
# pass.)
# Tested against two passes on generated pages and on every page with `[[` of 40 exported
# public trees (tests/pages/test_page_parsers.py).
# (any indent: a list item's or a quote's setext heading is indented with it). A line that
# looks like an underline, as the paragraph's first line or after a line break: searched
# for after `\n` (found in C by the literal), not with `(?m)^`, which re tries at every
# offset.
_UNDERLINE_FIRST: Final = re.compile(r"(?m)[ \t>]*(?:=+|-+)[ \t]*$")
_UNDERLINE_LATER: Final = re.compile(r"(?m)\n[ \t>]*(?:=+|-+)[ \t]*$")
_CONTAINERS: Final = " \t>-*+0123456789.)"


def _wikilinks_apart(body: str) -> bool:
    """Whether the body's wikilinks must be read in a pass of their own (see above)."""
    if _definition_end(body):
        return True
    for paragraph in body.split("\n\n"):
        if "[[" not in paragraph:
            continue
        if "][" in paragraph or _has_underline(paragraph):
            return True
        if "](" in paragraph and _in_or_before_a_link(paragraph):
            return True
        for line in paragraph.split("\n"):
            if "[[" not in line:
                continue  # a heading without `[[` keeps its text, whatever follows it
            if line.lstrip(_CONTAINERS).startswith("#"):
                return True
            if "<" in line or line.count("[[") > line.count("]]"):
                return True  # a wikilink may hold HTML or an autolink, or go on below
    return False


def _definition_end(body: str) -> bool:
    """Whether the body holds the end of a reference or footnote definition's label: `]:`,
    but not a wikilink's `]]:` (`see [[Properties|properties]]:`), as a label holds no
    bracket."""
    at = body.find("]:")
    while at >= 0:
        if at == 0 or body[at - 1] != "]":
            return True
        at = body.find("]:", at + 2)
    return False


def _has_underline(paragraph: str) -> bool:
    """Whether a line of the paragraph may be a setext heading's underline."""
    return (
        _UNDERLINE_FIRST.match(paragraph) is not None
        or _UNDERLINE_LATER.search(paragraph) is not None
    )


def _in_or_before_a_link(paragraph: str) -> bool:
    """Whether a `[[` of a paragraph that holds a link may meet a link's brackets: an open
    `[` before it (`[see [[x]]](u)`), a `]` with no `[` of its own after it, which may close
    the wikilink's (`![[x]]y](u)`), or a destination or label right after its `]]`
    (`[[x]](u)`). Brackets are counted as written, so a paragraph with what may hide one
    from the count (a code span, a backslash escape, HTML or an autolink, three in a row)
    is answered yes unread."""
    if "`" in paragraph or "\\" in paragraph or "<" in paragraph:
        return True
    if "[[[" in paragraph or "]]]" in paragraph:
        return True
    depth = 0  # `[` less `]` outside wikilinks
    inside = False  # after a `[[`, before its `]]`
    for found in _BRACKETS.finditer(paragraph):
        bracket = found[0]
        if inside:
            if bracket != "]]":
                return True  # a bracket inside the wikilink
            inside = False
            if paragraph.startswith(("(", "["), found.end()):
                return True
        elif bracket == "[[":
            if depth:
                return True
            inside = True
        elif bracket == "]]":
            return True  # a `]]` of no wikilink
        else:
            depth += 1 if bracket == "[" else -1
            if depth < 0:
                return True
    return inside


_BRACKETS: Final = re.compile(r"\[\[|\]\]|\[|\]")


def _parse(body: str, body_line: int, options: Any) -> Parts:
    """One pass of pulldown-cmark; with `_WIKI_OPTIONS`, its wikilinks are kept too."""
    data = _offsets_of(body)
    lines = LineCounter(data, body_line)
    line_at = lines.line_at
    headings: list[Heading] = []
    links: list[Link] = []
    code: list[CodeBlock] = []
    comments: list[Comment] = []
    footnotes: list[Footnote] = []
    wikilinks: list[Link] = []
    heading: list[Any] | None = None  # [level, line, start, end, plain text, in image]
    block: list[Any] | None = None  # [first line, info, text, fenced]
    html: list[Any] | None = None  # [first line, text]
    image_depth = 0
    # pyromark's stubs type each event exactly; the dispatch below checks shapes itself
    events: Any = pyromark.events_with_range(body, options=options)
    # Ordered by how often each event comes (text, then the ends and starts of cells, rows,
    # paragraphs, emphasis...); the rarer shapes are looked at only after the common ones.
    # A string event (SoftBreak, HardBreak, Rule) is not type-checked: none of the keys
    # tested below is a substring of one, so it falls through every test (cheaper than
    # one more test on each of the other 99% of events).
    for event, span in events:
        if "Text" in event:
            if block is not None:
                block[2] += event["Text"]
            elif heading is not None and not image_depth:
                heading[4] += event["Text"]
            continue
        if "End" in event:
            end = event["End"]
            if end.__class__ is str:
                if end not in _ENDS:
                    continue
                if end == "Image":
                    image_depth -= 1
                elif end == "CodeBlock":
                    if block is not None:
                        text = block[2]
                        if not block[3] and not text.endswith("\n"):
                            text += "\n"  # markdown-it ends an indented block's text with one
                        code.append(_new(CodeBlock, (block[0], block[1], text, block[3])))
                        block = None
                elif html is not None:  # HtmlBlock
                    if "<!--" in html[1]:
                        comments.extend(inline_comments(html[1], html[0]))
                    html = None
            elif heading is not None and type(end) is dict and "Heading" in end:
                headings.append(_heading(data, heading))
                heading = None
            continue
        if "Start" in event:
            start = event["Start"]
            if start.__class__ is str:
                if start == "HtmlBlock":
                    html = [line_at(span["start"]), ""]
                continue
            if "Link" in start or "Image" in start:
                is_image = "Image" in start
                info = start["Image"] if is_image else start["Link"]
                kind = info["link_type"]
                image_depth += is_image
                if type(kind) is not str:  # a wikilink (read with the wikilink option on)
                    wikilinks.append(
                        make_link(
                            info["dest_url"],
                            line_at(span["start"]),
                            is_image,
                            EMBED if is_image else WIKILINK,
                        )
                    )
                    continue
                target = info["dest_url"]
                if ":" in target or kind == "Email":  # only these can need normalizing
                    target = _destination(target, kind == "Email")
                    if target is None:
                        continue
                line = line_at(span["start"])
                if "%" in target or "#" in target or "?" in target:
                    links.append(make_link(target, line, is_image, _KINDS.get(kind, INLINE)))
                else:  # make_link's common case, without two Python calls per link
                    links.append(
                        _new(Link, (target, line, is_image, target, _KINDS.get(kind, INLINE)))
                    )
            elif "Heading" in start:
                level = int(start["Heading"]["level"][1])
                heading = [level, line_at(span["start"]), span["start"], span["end"], ""]
            elif "CodeBlock" in start:
                kind = start["CodeBlock"]
                first = line_at(span["start"])
                if kind == "Indented":
                    block = [first, "", "", False]
                else:
                    opening = _line_from(data, span["start"])
                    found = _FENCE.search(opening)
                    block = [first + 1, found[2].strip() if found else "", "", True]
            elif "FootnoteDefinition" in start:
                label = start["FootnoteDefinition"]
                footnotes.append(Footnote(label, line_at(span["start"]), True))
        elif "Code" in event:
            if heading is not None and not image_depth:
                heading[4] += event["Code"]
        elif "Html" in event:
            if html is not None:
                html[1] += event["Html"]
        elif "InlineHtml" in event:
            raw = event["InlineHtml"]
            if raw.startswith("<!--"):
                text = raw[4:].rsplit("-->", 1)[0].strip()
                comments.append(Comment(text, line_at(span["start"])))
        elif "FootnoteReference" in event:
            label = event["FootnoteReference"]
            footnotes.append(Footnote(label, line_at(span["start"]), False))
    return headings, links, code, comments, footnotes, wikilinks


def _offsets_of(body: str) -> str | bytes:
    """What pulldown-cmark's ranges index: UTF-8 byte offsets, which are an ASCII body's own
    character offsets (`isascii` reads a flag CPython keeps), so only other bodies are
    encoded."""
    return body if body.isascii() else body.encode("utf-8")


def _line_from(data: str | bytes, start: int) -> str:
    """The text from offset `start` to the end of its line."""
    if isinstance(data, str):
        eol = data.find("\n", start)
        return data[start : eol if eol >= 0 else len(data)]
    eol = data.find(b"\n", start)
    return data[start : eol if eol >= 0 else len(data)].decode()


def _heading(data: str | bytes, heading: list[Any]) -> Any:
    """A Heading record: markdown-it's raw inline text (ATX or setext) and the GitHub slug
    source (the heading's text and code spans, without image alt text)."""
    level, line, start, end, plain = heading
    raw = data[start:end]
    source = (raw if isinstance(raw, str) else raw.decode()).rstrip("\n")
    # setext: the text lines above the underline
    text = source.rsplit("\n", 1)[0].strip() if "\n" in source else atx_text(source)
    return _new(Heading, (level, text, line, plain.strip()))


def _wikilinks(body: str, data: str | bytes, body_line: int) -> list[Link]:
    """`[[Page]]`, `[[Page|alias]]`, `[[Page#heading]]` and `![[embed.png]]`, with lines."""
    line_at = LineCounter(data, body_line).line_at
    out: list[Link] = []
    events: Any = pyromark.events_with_range(body, options=_WIKI_OPTIONS)
    for event, span in events:
        if type(event) is str or "Start" not in event or type(event["Start"]) is str:
            continue
        start = event["Start"]
        is_image = "Image" in start
        info = start.get("Image") if is_image else start.get("Link")
        if info is None or type(info["link_type"]) is str:
            continue
        line = line_at(span["start"])
        out.append(make_link(info["dest_url"], line, is_image, EMBED if is_image else WIKILINK))
    return out
