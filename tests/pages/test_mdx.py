"""MDX bodies read as markdown: `markdown_lines` skips the lines it cannot change and gives
what looking at every line gives (the plain loop below, kept as its reference)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.pages.mdx import markdown_lines

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ESM = re.compile(r"^(?:import|export)\b[\s{*'\"]")
_TAG = r"</?[A-Za-z][\w.:-]*(?:\s+(?:[^<>{}\"']|\"[^\"]*\"|'[^']*'|\{[^{}]*\})*)?/?>|<>|</>"
_TAGS_ONLY = re.compile(rf"^\s*(?:(?:{_TAG})\s*)+$")
_TAG_START = re.compile(r"^\s*<[A-Za-z][\w.:-]*(?:\s|$)")
_COMMENT = re.compile(r"\{/\*.*?\*/\}")


def every_line(body: str) -> str:
    """The reference: each line looked at in turn, every test made on it."""
    lines = body.split("\n")
    fence, esm, tag, depth = "", False, False, 0
    for number, line in enumerate(lines):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped[len(fence) :].strip(fence[0]).strip():
                fence = ""
                lines[number] = stripped
        elif esm:
            esm = bool(stripped)
            lines[number] = "" if esm else line
        elif depth:
            depth = max(depth + line.count("{") - line.count("}"), 0)
            lines[number] = ""
        elif tag:
            lines[number] = ""
            tag = re.search(r">\s*$", line) is None
        elif opened := _FENCE.match(line):
            fence = opened.group(1)
            lines[number] = line.lstrip(" \t")
        elif _ESM.match(line):
            esm = True
            lines[number] = ""
        elif stripped.startswith("{") and not stripped.startswith("{#"):
            depth = max(line.count("{") - line.count("}"), 0)
            lines[number] = ""
        elif _TAGS_ONLY.match(line):
            lines[number] = ""
        elif _TAG_START.match(line) and ">" not in line:
            tag = True
            lines[number] = ""
        else:
            line = _COMMENT.sub(lambda found: " " * len(found.group(0)), line)
            indent = len(line) - len(line.lstrip(" \t"))
            wide = len(line[:indent].expandtabs(4)) >= 4
            lines[number] = line.lstrip(" \t") if wide else line
    return "\n".join(lines)


# Pieces that steer the loop into each of its states and out again, with the white space
# `str.strip` strips but a `[ \t]` does not (no-break space, form feed, an ideographic space)
PIECES = (
    "\n",
    "\n\n",
    " ",
    "    ",
    "\t",
    "\u00a0",
    "\x0c",
    "\u3000",
    "```",
    "````",
    "~~~",
    "```js",
    "import x from 'y';",
    "export const a = {",
    "important",
    "exports",
    "<Tabs>",
    "</Tabs>",
    '<TabItem value="a">',
    "<Foo />",
    "<Tabs",
    'label="x"',
    ">",
    "/>",
    "<>",
    "{",
    "}",
    "{/* c */}",
    "{/*",
    "*/}",
    "{#id}",
    "## Title",
    "[a](./b.md)",
    "text",
    "e",
    "i",
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_skipping_lines_gives_what_looking_at_every_line_gives(pieces: list[str]) -> None:
    body = "".join(pieces)
    assert markdown_lines(body) == every_line(body)


def test_lines_after_white_space_that_only_str_strip_strips_are_read() -> None:
    body = "\u00a0<Tabs>\ntext\n\u3000{value}\n```\ncode\n\u00a0```\n[a](./b.md)\n"
    assert markdown_lines(body) == "\ntext\n\n```\ncode\n```\n[a](./b.md)\n"


def test_an_inline_comment_in_a_plain_line_is_blanked() -> None:
    assert markdown_lines("See {/* [x](./y) */} here") == "See " + " " * 16 + " here"


def test_words_that_start_like_import_and_export_stay() -> None:
    body = "important things\nexports of data\nimport x from 'y'\nstill the import\n\nafter"
    assert markdown_lines(body) == "important things\nexports of data\n\n\n\nafter"
