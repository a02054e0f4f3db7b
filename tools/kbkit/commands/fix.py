"""`kb fix [PATH...]`: apply the mechanical fixes, re-check, keep them only if they hold."""

from __future__ import annotations

from collections.abc import Sequence

from kbkit.commands.check import add_fix_options, build_parser, fix


def main(argv: Sequence[str] | None = None) -> int:
    """Fix what is mechanical; print what is left (or, with --diff, the fixes)."""
    parser = build_parser(
        "kb fix",
        "Apply the mechanical fixes (quote a title, stub frontmatter keys git or the page "
        "can fill, link an unregistered page from its index, drop an unused suppression, "
        "bump `updated:` on a page with uncommitted changes), re-check the tree and keep "
        "a file's fixes only if its fixed findings are gone and none is new; else that file "
        "is put back (every file, when a problem cannot be pinned to one, or on Ctrl-C). "
        "Then the findings left are reported as `kb check` does.",
    )
    add_fix_options(parser, standalone=True)
    return fix(parser.parse_args(argv))
