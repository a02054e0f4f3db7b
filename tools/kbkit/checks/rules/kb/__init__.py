"""kbkit's own rules, reported by every run: what cannot be read or followed, and suppression
comments. The walk (`kbkit.tree.walk`) and the engine (`kbkit.checks`) report them.
"""

from __future__ import annotations

from kbkit.rulebook.findings import ERROR, WARNING
from kbkit.rulebook.rule import Rule

SUPPRESSION_UNUSED = Rule(
    "kb/suppression-unused",
    ERROR,
    "a kb-disable-next-line or kb-disable-file comment suppresses nothing",
    why="a stale suppression would silently hide the next real finding on that line",
    fix="delete the comment, or move it to the line before the finding it is meant for",
    example="<!-- kb-disable-next-line tree/link-broken: moved -->\nA line with no broken link.",
    fixable=True,
)
SUPPRESSION_INVALID = Rule(
    "kb/suppression-invalid",
    ERROR,
    "a kb-disable-next-line or kb-disable-file comment without a rule id or reason",
    why="a suppression must say which rule it silences and why, or reviewers cannot judge it",
    fix="write `<!-- kb-disable-next-line RULE-ID: reason -->` with both parts",
    example="<!-- kb-disable-next-line tree/link-broken -->  (no reason given)",
)

UNREADABLE = Rule(
    "kb/unreadable",
    ERROR,
    "a page or folder cannot be read as UTF-8 markdown (reported by every run)",
    why="a page no one can parse is a page no check (and no reader) sees",
    fix="save the page as UTF-8 text, fix the broken symlink, or rename a folder named like a page",
    example="a page saved as Latin-1, a broken symlink, or a folder named `notes.md/`",
)

SYMLINK_FOLDER = Rule(
    "kb/symlink-folder",
    WARNING,
    "a symlinked folder inside the tree is not followed (it could loop)",
    why="a link to a folder can lead in a circle or out of the repository; its pages are not checked",
    fix="move the folder into the tree, or suppress the finding in the parent folder's _index.md "
    "if leaving it unchecked is intended",
    example="knowledge/shared -> ../../other-repo/docs  (a symlinked folder)",
)

RULES = (SUPPRESSION_UNUSED, SUPPRESSION_INVALID, UNREADABLE, SYMLINK_FOLDER)
