"""MDX pages (Docusaurus' `.mdx`) read as markdown: what is JavaScript, not markdown, left out.

MDX is markdown with ES modules and JSX. Given to a CommonMark parser as it is, an `import`
line is a paragraph, a `<Tabs>` line opens an HTML block that hides the markdown after it (a
link inside a tab would never be read), a `{/* comment */}` may hold what looks like a link,
and content indented inside a JSX element reads as an indented code block (MDX has none).
`markdown_lines` blanks those lines and moves indented content left, outside fenced code:
no line is added or removed, so every line keeps its number. Nothing is ever run.

- `import` / `export` statements at the top level, up to the next blank line;
- lines that hold nothing but JSX or HTML tags (`<Tabs>`, `<TabItem value="a">`, `</div>`,
  `<Foo />`), and a tag opened on one line and closed on a later one (`<Tabs` ... `>`);
- lines that hold nothing but a `{...}` expression (a comment `{/* ... */}` too), braces
  balanced across lines;
- inline `{/* comments */}` inside a line are blanked to spaces.
A heading's `{#custom-id}` is kept (the anchors read it).
"""

from __future__ import annotations

import re

from kbkit.infra.closed_spans import closed_spans, replace_spans
from kbkit.infra.lazy_pattern import lazy

SUFFIX = ".mdx"
_FENCE = lazy(r"^[ \t]*(`{3,}|~{3,})")
_ESM = lazy(r"^(?:import|export)\b[\s{*'\"]")
# (`\s` and not `\s+` before the attributes, which take white space too: with both, a long
# run of blanks in a tag never closed split every way before failing, minutes on one line)
_TAG = r"</?[A-Za-z][\w.:-]*(?:\s(?:[^<>{}\"']|\"[^\"]*\"|'[^']*'|\{[^{}]*\})*)?/?>|<>|</>"
_TAGS_ONLY = lazy(rf"^\s*(?:(?:{_TAG})\s*)+$")
_TAG_START = lazy(r"^\s*<[A-Za-z][\w.:-]*(?:\s|$)")
_COMMENT_OPEN = lazy(r"\{/\*")  # to the next `*/}` (closed_spans)
_INDENT = 4
# The first characters of a line that the loop below may change outside every state (with
# white space, which `first.isspace()` tells as `str.strip` does, and a line holding `{/*`)
_MAY_START = frozenset("<{`~ie")
_FENCE_CHARS = frozenset("`~")
_ESM_FIRST = frozenset("ie")


def is_mdx(path: str) -> bool:
    return path.endswith(SUFFIX)


def markdown_lines(body: str) -> str:
    """The MDX body as markdown: its JavaScript lines blank, line numbers unchanged."""
    lines = body.split("\n")
    fence = ""  # the open code fence's marker
    esm = False  # inside an import/export statement
    tag = False  # inside a JSX tag opened on an earlier line
    depth = 0  # open braces of a `{...}` expression started on an earlier line
    for number, line in enumerate(lines):
        first = line[:1]
        if fence:
            if first != fence[0] and not first.isspace():
                continue  # not the closing fence: kept as it is
        elif (
            not (esm or tag or depth)
            and first not in _MAY_START
            and not first.isspace()
            and "{/*" not in line
        ):
            continue  # plain markdown outside every state: kept as it is
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped[len(fence) :].strip(fence[0]).strip():
                fence = ""
                lines[number] = stripped
            continue
        if esm:
            if not stripped:
                esm = False
            else:
                lines[number] = ""
            continue
        if depth:
            depth = max(depth + _braces(line), 0)
            lines[number] = ""
            continue
        if tag:
            lines[number] = ""
            tag = not _closes_tag(line)
            continue
        # each pattern below matches only where the stripped line starts as it tests first
        lead = stripped[:1]
        opened = _FENCE.match(line) if lead in _FENCE_CHARS else None
        if opened:
            fence = opened.group(1)
            lines[number] = line.lstrip(" \t")
            continue
        if first in _ESM_FIRST and _ESM.match(line):
            esm = True
            lines[number] = ""
            continue
        if stripped.startswith("{") and not stripped.startswith("{#"):
            depth = max(_braces(line), 0)
            lines[number] = ""
            continue
        if lead == "<" and _TAGS_ONLY.match(line):
            lines[number] = ""
            continue
        if lead == "<" and _TAG_START.match(line) and ">" not in line:
            tag = True
            lines[number] = ""
            continue
        if "{/*" in line:
            line = _blank_comments(line)
        # MDX has no indented code: content indented inside an element is markdown
        indent = len(line) - len(line.lstrip(" \t"))
        wide = len(line[:indent].expandtabs(_INDENT)) >= _INDENT  # a tab reaches column 4
        lines[number] = line.lstrip(" \t") if wide else line
    return "\n".join(lines)


def _blank_comments(line: str) -> str:
    """The line with each `{/* ... */}` blanked to spaces (one left open ends the search:
    no later comment can close)."""
    return replace_spans(line, closed_spans(line, _COMMENT_OPEN, "*/}"), None)


def _braces(line: str) -> int:
    return line.count("{") - line.count("}")


def _closes_tag(line: str) -> bool:
    """Whether a line ends a tag opened earlier (`>` or `/>` outside an attribute's quotes
    and braces)."""
    return bool(re.search(r">\s*$", line))
