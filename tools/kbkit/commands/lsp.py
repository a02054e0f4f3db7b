"""`kb lsp`: a language server for editors, over stdin and stdout (as `ruff server`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Serve kbkit's diagnostics, fixes and rule docs to an editor until it shuts down."""
    parser = argparse.ArgumentParser(
        prog="kb lsp",
        description="Run kbkit's language server over stdin and stdout: an editor starts it "
        "and gets the findings of every open page as diagnostics (on open, change and "
        "save; cross-page findings from the tree's cache), the mechanical fixes as code "
        "actions and each rule's docs on hover. The repository is the editor's workspace.",
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="talk over stdin and stdout (the default; accepted because editors pass it)",
    )
    parser.parse_args(argv)
    from kbkit.editor.server import serve

    serve()
    return 0
