"""`python -m benchmarks.run parse`: `parse_page` over a 10k-page synthetic tree, one process.

Prints, measured in the same run (best of `--repeat`), against the floor (decode every page
and parse its frontmatter with the C YAML loader):
- the reference parse (markdown-it-py's block parser for every body),
- the default parse (the fast block scanner of kbkit.blocks, markdown-it-py as fallback),
and the share of pages the fast path takes on that tree and on the real corpus when present.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from benchmarks.gen_tree import generate
from kbkit import blocks, page
from kbkit.frontmatter import split_frontmatter

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "infermatrix-knowledge"


def _load(root: Path) -> list[tuple[str, bytes]]:
    return [(str(path), path.read_bytes()) for path in sorted(root.rglob("*.md"))]


def _best(run: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _floor(files: list[tuple[str, bytes]]) -> None:
    for _, data in files:
        split_frontmatter(data.decode("utf-8"))


def _parse_all(files: list[tuple[str, bytes]]) -> None:
    for path, data in files:
        page.parse_page(path, data)


def _reference(files: list[tuple[str, bytes]]) -> None:
    with mock.patch.object(page, "_parse_body", page._parse_body_markdown_it):
        _parse_all(files)


def fast_share(files: list[tuple[str, bytes]]) -> tuple[int, int]:
    """(pages the fast scanner takes, pages)."""
    fast = 0
    for path, data in files:
        parsed = page.parse_page(path, data)
        fast += blocks.scan(parsed.text[parsed.frontmatter.body_offset :]) is not None
    return fast, len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.pages)
        files = _load(Path(tmp) / "knowledge")
    size = sum(len(data) for _, data in files) / 1e6
    floor = _best(lambda: _floor(files), args.repeat)
    reference = _best(lambda: _reference(files), args.repeat)
    fast = _best(lambda: _parse_all(files), args.repeat)
    print(
        f"synthetic tree: {len(files)} pages, {size:.1f} MB, best of {args.repeat}, CPU time of one process"
    )
    print(f"  floor (decode + frontmatter)   {floor:6.2f} s")
    print(f"  parse_page, markdown-it blocks {reference:6.2f} s  {reference / floor:5.1f}x floor")
    print(f"  parse_page, fast path          {fast:6.2f} s  {fast / floor:5.1f}x floor")
    print(f"  speed-up                       {reference / fast:6.2f}x")
    taken, total = fast_share(files)
    print(f"  fast path share                {taken}/{total} pages ({taken / total:.1%})")
    if CORPUS.exists():
        taken, total = fast_share(_load(CORPUS / "knowledge"))
        print(f"corpus fast path share           {taken}/{total} pages ({taken / total:.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
