"""`kb check-wiki-lint`: frontmatter, tags, dates, staleness, orphans, adapter manifests."""

from __future__ import annotations

from collections.abc import Sequence

from kbkit.commands.check import run


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv, ("lint",), "kb check-wiki-lint", __doc__ or "")
