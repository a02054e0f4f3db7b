"""`kb check-knowledge-tree`: structure, indexes, links, sizes, sensitive and dangerous text."""

from __future__ import annotations

from collections.abc import Sequence

from kbkit.commands.check import run


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv, ("tree",), "kb check-knowledge-tree", __doc__ or "")
