"""`python -m benchmarks.run parse`: `parse_page` over a 10k-page synthetic tree, one process.

Prints, measured in the same run (best of `--repeat`), against the floor (decode every page
and parse its frontmatter with the C YAML loader):
- the fallback parse (markdown-it-py's block parser and link rules for every body),
- the default parse (pulldown-cmark through kbkit.pages.native),
on that tree and, when present, on the real corpus.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from benchmarks.gen_tree import generate
from kbkit.pages import page
from kbkit.pages.frontmatter import split_frontmatter

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.pages)
        files = _load(Path(tmp) / "knowledge")
    trees = {"synthetic tree": files}
    if CORPUS.exists():
        trees["corpus"] = _load(CORPUS)
    if page.native_parser() is None:
        print("the native parser (pyromark) is not importable: only the fallback runs")
    for name, pages in trees.items():
        size = sum(len(data) for _, data in pages) / 1e6
        floor = _best(functools.partial(_floor, pages), args.repeat)
        reference = _best(functools.partial(_reference, pages), args.repeat)
        fast = _best(functools.partial(_parse_all, pages), args.repeat)
        print(
            f"{name}: {len(pages)} pages, {size:.1f} MB, best of {args.repeat}, CPU time of one process"
        )
        print(f"  floor (decode + frontmatter)   {floor:6.2f} s")
        print(
            f"  parse_page, markdown-it        {reference:6.2f} s  {reference / floor:5.1f}x floor"
        )
        print(f"  parse_page, native             {fast:6.2f} s  {fast / floor:5.1f}x floor")
        print(f"  speed-up                       {reference / fast:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
