"""Blocks whose content is indented markdown, not code: MkDocs' admonitions (`!!! note`),
collapsible details (`??? note`, `???+ note`) and content tabs (`=== "Tab"`).

CommonMark reads the second paragraph of such a block (after a blank line, indented four
spaces) as an indented code block, so its links and headings would never be read, while
MkDocs renders them as markdown and `mkdocs build --strict` fails on a broken one. The body
is given to the parser with each block's content moved left by four spaces per level: no
line is added or removed, so every line keeps its number. An opener must be the whole line
(`!!! type`, an optional quoted title; `=== "Title"`), which nothing but these blocks writes.
"""

from __future__ import annotations

from kbkit.infra.lazy_pattern import lazy

OPENER = lazy(
    r'^[ ]*(?:(?:!!!|\?\?\?\+?)[ \t]+[A-Za-z][\w-]*(?:[ \t]+"[^"\n]*")?|===[!+]?[ \t]+"[^"\n]*")[ \t]*$'
)
HINTS = ("!!!", "???", '=== "', '===! "', '===+ "')
STEP = 4


def has_containers(body: str) -> bool:
    """Whether the body may hold such a block (a cheap test before the line pass)."""
    # Spelled out: a generator over HINTS costs more than the five searches (every page
    # asks). Each hint's first character is looked for first: CPython finds one character
    # with memchr, ten times faster than a three-character search, and most pages have none.
    return (
        ("!" in body and "!!!" in body)
        or ("?" in body and "???" in body)
        or ("=" in body and "===" in body and any(h in body for h in HINTS[2:]))
    )


def unindent_containers(body: str) -> str:
    """The body with each block's indented content moved left to where the block opens,
    nested blocks too; lines outside blocks, and their numbers, unchanged."""
    lines = body.split("\n")
    depths: list[int] = []  # the content indent of each open block, outermost first
    changed = False
    for number, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped.strip():
            continue  # a blank line keeps every block open
        indent = len(line) - len(stripped)
        while depths and indent < depths[-1]:
            depths.pop()
        shift = STEP * len(depths)
        if shift:
            lines[number] = line[shift:]
            changed = True
        if OPENER.match(lines[number]):
            depths.append(indent + STEP)
    return "\n".join(lines) if changed else body
