"""A fast block scanner for the common subset of CommonMark + GFM tables, exact to markdown-it-py.

markdown-it-py's block tokenizer tries up to eleven rules on every line, builds `Token`
objects for every block and logs a debug call per rule; on a knowledge tree that is most of
a validator's parse time. This module re-runs the same algorithm (same rules, same order,
same terminator lists, same line arithmetic: `tShift`/`sCount`, list-item first lines,
`getLines`) for the constructs kbkit's pages use, and emits only what `page.py` consumes:

- paragraphs and ATX headings (their inline text and first line),
- GFM tables (one inline span per cell; a backslash-escaped pipe stays in its cell, split
  by markdown-it-py's own `escapedSplit`),
- fenced code blocks (either marker, any length, info string), also inside list items,
- thematic breaks, bullet and ordered lists (nested, loose or tight, lazy continuations),
- HTML comment blocks (`<!-- ... -->`).

Anything else makes `scan` return None and the caller parses the page with markdown-it-py,
which stays the reference: indented code, block quotes, setext headings, reference
definitions (a block starting with `[` on a page containing `]:`), other raw HTML blocks,
tabs, NUL or CR characters, nesting deeper than markdown-it's limit. Whenever one of those
rules *could* apply (even as a paragraph terminator) the whole page falls back, so the
fast path never has to reproduce them. tests/test_blocks.py checks the result against
markdown-it-py on the real corpus, a synthetic tree and fuzzed pages.

The port follows the markdown-it-py release it was verified against (`VERIFIED_MARKDOWN_IT`,
the version requirements/constraints.txt pins); with any other release installed every page
goes to markdown-it-py until the differential tests have been run and the port updated.
"""

from __future__ import annotations

import re
from typing import Final

import markdown_it
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.rules_block.table import escapedSplit, headerLineRe

# What page.py turns into headings, links, code blocks and comments, in markdown-it's token
# order: (kind, line, level, content, info) with `line` the 0-based line of the block in the
# body (of the opening fence for FENCE), `level` a heading's level (else 0) and `info` a
# fence's info string (else "").
INLINE: Final = 0  # an inline span: a heading's, a paragraph's or a table cell's text
FENCE: Final = 1  # a fenced code block
HTML: Final = 2  # an HTML comment block
Event = tuple[int, int, int, str, str]

VERIFIED_MARKDOWN_IT: Final = "4.3.0"
ENABLED: Final = markdown_it.__version__ == VERIFIED_MARKDOWN_IT

MAX_NESTING: Final = 20  # markdown-it's commonmark preset `maxNesting`
MAX_AUTOCOMPLETED_CELLS: Final = 0x10000  # markdown-it-py's table rule limit
_COMMENT_SEQUENCE = 1  # index of the `<!--` sequence in HTML_SEQUENCES
_STARTERS: Final = frozenset("`~>*-_+<#0123456789")  # first characters of terminator rules
_DIGITS: Final = frozenset("0123456789")
# The character checks of the table rule on its second line (the delimiter row).
_DELIM_ROW: Final = re.compile(r"(?:[|:][-|: \t]|-[-|:])[-|: \t]*$")
# The hr rule: three or more of one marker, spaces or tabs between and after.
_HR: Final = re.compile(r"([*_-])(?:[ \t]*\1){2,}[ \t]*$")
# lheading's underline: a run of `=` or of `-`, then only spaces or tabs.
_UNDERLINE: Final = re.compile(r"(?:=+|-+)[ \t]*$")
# skipOrderedListMarker / skipBulletListMarker: the marker, then a space, a tab or the end
# (group 1: the number of an ordered item).
_MARKER: Final = re.compile(r"(?:([0-9]{1,9})[.)]|[*+-])(?![^ \t])")


def _split_cells(row: str) -> list[str]:
    """markdown-it's `escapedSplit` (a backslash keeps a pipe in the cell), with the ends
    dropped when empty, as the table rule does."""
    cells = row.split("|") if "\\" not in row else escapedSplit(row)
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


class Fallback(Exception):
    """The page uses a construct outside the fast subset; parse it with markdown-it-py."""


class _Scanner:
    """The state of markdown-it's `StateBlock` that matters for the subset, per line."""

    def __init__(self, body: str) -> None:
        lines = body.split("\n")
        # StateBlock makes no line for the text after a final "\n", nor for a final line of
        # only spaces without "\n".
        self.last_lf = True
        if lines[-1].strip(" ") == "":
            lines.pop()
        else:
            self.last_lf = False
        self.lines = lines
        self.line_max = len(lines)
        shift = [len(line) - len(line.lstrip(" ")) for line in lines]
        shift.append(0)  # markdown-it's fake last line
        self.t_shift = shift  # offset of the first non-space (the content of a list item)
        self.s_count = list(shift)  # indentation in columns (no tabs on the fast path)
        self.blk_indent = 0
        self.list_indent = -1
        self.parent = "root"
        self.level = 0
        self.line = 0
        self.may_have_references = "]:" in body
        self.events: list[Event] = []

    # -- helpers of StateBlock ------------------------------------------------------------

    def is_empty(self, n: int) -> bool:
        return n >= self.line_max or self.t_shift[n] >= len(self.lines[n])

    def is_code(self, n: int) -> bool:
        return self.s_count[n] - self.blk_indent >= 4

    def get_lines(self, begin: int, end: int, indent: int, keep_last_lf: bool) -> str:
        """StateBlock.getLines without tabs: drop up to `indent` leading columns per line."""
        if begin >= end:
            return ""
        lines = self.lines
        if end == begin + 1:
            text = lines[begin][min(indent, self.t_shift[begin]) :]
        elif indent == 0:
            text = "\n".join(lines[begin:end])
        else:
            shift = self.t_shift
            text = "\n".join(lines[n][min(indent, shift[n]) :] for n in range(begin, end))
        if keep_last_lf and (end < self.line_max or self.last_lf):
            text += "\n"
        return text

    # -- the block tokenizer --------------------------------------------------------------

    def tokenize(self, start: int, end: int) -> None:
        line = start
        line_max = self.line_max
        lines, shift = self.lines, self.t_shift
        while line < end:
            while line < line_max and shift[line] >= len(lines[line]):
                line += 1
            self.line = line
            if line >= end:
                break
            if self.s_count[line] < self.blk_indent:
                break
            if self.level >= MAX_NESTING:
                raise Fallback("nesting limit")
            self.block(line, end)
            line = self.line
            if line < end and (line >= line_max or shift[line] >= len(lines[line])):
                line += 1
                self.line = line

    def block(self, line: int, end: int) -> None:
        """Try markdown-it's block rules in order: table, code, fence, blockquote, hr,
        list, reference, html_block, heading, lheading, paragraph."""
        lines, shift = self.lines, self.t_shift
        nxt = line + 1
        if nxt < end and _DELIM_ROW.match(lines[nxt], shift[nxt]) and self.table(line, end, False):
            return
        if self.is_code(line):
            raise Fallback("indented code")
        char = lines[line][shift[line]]
        if char in _STARTERS:
            if char in "`~" and self.fence(line, end, False):
                return
            if char == ">":
                raise Fallback("block quote")
            if char in "*-_" and self.hr(line):
                self.line = line + 1
                return
            if (char in "*-+" or char in _DIGITS) and self.list(line, end, False):
                return
            if char == "<" and self.html(line, end, False):
                return
            if char == "#" and self.heading(line, False):
                return
        elif char == "[" and self.may_have_references:
            raise Fallback("possible reference definition")
        self.paragraph(line)

    def terminates(self, kind: str, n: int, end: int) -> bool:
        """Whether a rule of markdown-it's terminator list `kind` matches line `n`."""
        text = self.lines[n]
        pos = self.t_shift[n]
        if pos >= len(text):
            return False
        after = n + 1
        if (
            kind == "paragraph"
            and after < end
            and _DELIM_ROW.match(self.lines[after], self.t_shift[after])
            and self.table(n, end, True)
        ):
            return True
        char = text[pos]
        if char not in _STARTERS:
            return False
        if char in "`~" and self.fence(n, end, True):
            return True
        if char == ">" and not self.is_code(n):
            raise Fallback("block quote")
        if char in "*-_" and self.hr(n):
            return True
        if kind == "list":
            return False
        if (char in "*-+" or char in _DIGITS) and self.list(n, end, True):
            return True
        if char == "<" and self.html(n, end, True):
            return True
        return char == "#" and self.heading(n, True)

    # -- rules ----------------------------------------------------------------------------

    def table(self, start: int, end: int, silent: bool) -> bool:
        if start + 2 > end:
            return False
        lines, shift = self.lines, self.t_shift
        nxt = start + 1
        delim = lines[nxt]
        pos = shift[nxt]
        if self.s_count[nxt] < self.blk_indent or self.is_code(nxt):
            return False
        if not _DELIM_ROW.match(delim, pos):
            return False
        columns = delim[pos:].split("|")
        aligns = 0
        last = len(columns) - 1
        for i, column in enumerate(columns):
            cell = mdTrim(column)
            if not cell:
                if i == 0 or i == last:
                    continue
                return False
            if not headerLineRe.search(cell):
                return False
            aligns += 1
        head = mdTrim(lines[start][shift[start] :])
        if "|" not in head or self.is_code(start):
            return False
        cells = _split_cells(head)
        count = len(cells)
        if count == 0 or count != aligns:
            return False
        if silent:
            return True
        old_parent = self.parent
        self.parent = "table"
        events = self.events
        for cell in cells:
            if "[" in cell or "<" in cell:
                events.append((INLINE, start, 0, mdTrim(cell), ""))
        autocompleted = 0
        nxt = start + 2
        while nxt < end:
            if self.s_count[nxt] < self.blk_indent:
                break
            if self.terminates("blockquote", nxt, end):
                break
            row = mdTrim(lines[nxt][shift[nxt] :])
            if not row or self.is_code(nxt):
                break
            cells = _split_cells(row)
            autocompleted += count - len(cells)
            if autocompleted > MAX_AUTOCOMPLETED_CELLS:
                break
            for cell in cells[:count]:
                if "[" in cell or "<" in cell:
                    events.append((INLINE, nxt, 0, mdTrim(cell), ""))
            nxt += 1
        self.parent = old_parent
        self.line = nxt
        return True

    def fence(self, start: int, end: int, silent: bool) -> bool:
        if self.is_code(start):
            return False
        lines, shift = self.lines, self.t_shift
        text = lines[start]
        pos = shift[start]
        if pos + 3 > len(text):
            return False
        marker = text[pos]
        if marker not in "`~":
            return False
        length = len(text) - pos - len(text[pos:].lstrip(marker))
        if length < 3:
            return False
        params = text[pos + length :]
        if marker == "`" and "`" in params:
            return False
        if silent:
            return True
        closed = False
        nxt = start
        while True:
            nxt += 1
            if nxt >= end:
                break
            line = lines[nxt]
            pos = shift[nxt]
            if pos < len(line) and self.s_count[nxt] < self.blk_indent:
                break
            if pos >= len(line) or line[pos] != marker or self.is_code(nxt):
                continue
            rest = line[pos:].lstrip(marker)
            if len(line) - pos - len(rest) < length or rest.strip(" \t"):
                continue
            closed = True
            break
        content = self.get_lines(start + 1, nxt, self.s_count[start], True)
        self.line = nxt + 1 if closed else nxt
        self.events.append((FENCE, start, 0, content, params))
        return True

    def hr(self, n: int) -> bool:
        return not self.is_code(n) and _HR.match(self.lines[n], self.t_shift[n]) is not None

    def list(self, start: int, end: int, silent: bool) -> bool:
        s_count, shift, lines = self.s_count, self.t_shift, self.lines
        count = s_count[start]
        if count - self.blk_indent >= 4:
            return False
        if self.list_indent >= 0 and count - self.list_indent >= 4 and count < self.blk_indent:
            return False
        found = _MARKER.match(lines[start], shift[start])
        if found is None:
            return False
        after = found.end()
        ordered = found.group(1) is not None
        if silent and self.parent == "paragraph" and count >= self.blk_indent:
            # A list interrupting a paragraph starts at 1 and its first item is not empty.
            if ordered and int(found.group(1)) != 1:
                return False
            if not lines[start][after:].strip(" \t"):
                return False
        marker = lines[start][after - 1]
        if silent:
            return True
        old_parent = self.parent
        self.parent = "list"
        self.level += 1
        nxt = start
        while nxt < end:
            text = lines[start]
            initial = s_count[start] + after - shift[start]
            content = len(text) - len(text[after:].lstrip(" "))
            offset = initial + content - after
            after_marker = 1 if content >= len(text) else offset - initial
            if after_marker > 4:
                after_marker = 1
            indent = initial + after_marker
            self.level += 1
            old_shift, old_count = shift[start], s_count[start]
            old_list_indent = self.list_indent
            self.list_indent = self.blk_indent
            self.blk_indent = indent
            shift[start] = content
            s_count[start] = offset
            if content >= len(text) and self.is_empty(start + 1):
                self.line = min(self.line + 2, end)
            else:
                self.tokenize(start, end)
            self.blk_indent = self.list_indent
            self.list_indent = old_list_indent
            shift[start] = old_shift
            s_count[start] = old_count
            self.level -= 1
            nxt = start = self.line
            if nxt >= end:
                break
            if s_count[nxt] < self.blk_indent or self.is_code(nxt):
                break
            if self.terminates("list", nxt, end):
                break
            found = _MARKER.match(lines[nxt], shift[nxt])
            if found is None or (found.group(1) is not None) != ordered:
                break
            after = found.end()
            if lines[nxt][after - 1] != marker:
                break
        self.level -= 1
        self.line = nxt
        self.parent = old_parent
        return True

    def html(self, start: int, end: int, silent: bool) -> bool:
        if self.is_code(start):
            return False
        text = self.lines[start][self.t_shift[start] :]
        if not text.startswith("<!--"):
            for number, (opening, _, _) in enumerate(HTML_SEQUENCES):
                if number != _COMMENT_SEQUENCE and opening.search(text):
                    raise Fallback("raw HTML block")
            return False
        if silent:
            return True
        nxt = start + 1
        if "-->" not in text:
            lines, shift = self.lines, self.t_shift
            while nxt < end:
                if self.s_count[nxt] < self.blk_indent and not self.is_empty(nxt):
                    break
                rest = lines[nxt][shift[nxt] :]
                if "-->" in rest:
                    if rest:
                        nxt += 1
                    break
                nxt += 1
        self.line = nxt
        self.events.append((HTML, start, 0, self.get_lines(start, nxt, self.blk_indent, True), ""))
        return True

    def heading(self, n: int, silent: bool) -> bool:
        if self.is_code(n):
            return False
        text = self.lines[n]
        pos = self.t_shift[n]
        end = len(text)
        if pos >= end or text[pos] != "#":
            return False
        level = 1
        pos += 1
        while pos < end and text[pos] == "#" and level <= 6:
            level += 1
            pos += 1
        if level > 6 or (pos < end and text[pos] not in " \t"):
            return False
        if silent:
            return True
        while end > pos and text[end - 1] in " \t":
            end -= 1
        tmp = end
        while tmp > pos and text[tmp - 1] == "#":
            tmp -= 1
        if tmp > pos and text[tmp - 1] in " \t":
            end = tmp
        self.line = n + 1
        self.events.append((INLINE, n, level, mdTrim(text[pos:end]), ""))
        return True

    def paragraph(self, start: int) -> None:
        """The paragraph rule, after lheading's scan of the same lines for an underline."""
        lines, shift, s_count = self.lines, self.t_shift, self.s_count
        end = self.line_max
        blk = self.blk_indent
        old_parent = self.parent
        self.parent = "paragraph"
        nxt = start + 1
        while nxt < end:
            text = lines[nxt]
            pos = shift[nxt]
            if pos >= len(text):
                break
            if s_count[nxt] - blk > 3:
                nxt += 1
                continue
            char = text[pos]
            if char in "-=" and s_count[nxt] >= blk and _UNDERLINE.match(text, pos):
                raise Fallback("setext heading")
            # Only a line starting with a terminator's character, or a table header (the
            # next line starts with `|`, `-` or `:`), can end the paragraph.
            after = nxt + 1
            if (
                char in _STARTERS or (after < end and _DELIM_ROW.match(lines[after], shift[after]))
            ) and self.terminates("paragraph", nxt, end):
                break
            nxt += 1
        self.parent = old_parent
        self.line = nxt
        content = self.get_lines(start, nxt, blk, False)
        # Only a span that can hold a link or a comment matters (trimming keeps `[` and `<`).
        if "[" in content or "<" in content:
            self.events.append((INLINE, start, 0, mdTrim(content), ""))


def scan(body: str) -> list[Event] | None:
    """Events of `body` in markdown-it's token order, or None when markdown-it must parse it."""
    if not ENABLED or "\t" in body or "\r" in body or "\x00" in body:
        return None
    if not body:
        return []
    scanner = _Scanner(body)
    try:
        scanner.tokenize(0, scanner.line_max)
    except Fallback:
        return None
    return scanner.events
