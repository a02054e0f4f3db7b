"""mdBook as mdBook builds it: `[book] src` of `book.toml`, pages linked as the `.html` they
build; an `.html` link that climbs out of the book names a page the host publishes beside
it (mdBook checks no link and builds nothing outside `src`). mdBook is not installed here
(Debian has no package): no oracle test."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.sites import detect_site
from tests.sites.oracle import init_copy, kbkit_flagged


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def book(top: Path) -> Path:
    write(top / "book.toml", '[book]\ntitle = "B"\n')
    write(top / "src/SUMMARY.md", "# Summary\n\n- [One](one.md)\n- [Vec](vec/vec.md)\n")
    write(
        top / "src/one.md",
        "# One\n\n[std](../std/ptr/fn.copy.html#x) [vec](vec/vec.html) [gone](gone.html)\n",
    )
    write(
        top / "src/vec/vec.md",
        "# Vec\n\n[alloc](../../alloc/alloc/index.html) [one](../one.html#nope)\n",
    )
    return top


def test_the_book_is_its_src_folder(tmp_path: Path) -> None:
    site = detect_site(book(tmp_path / "book"))
    assert site is not None and (site.root, site.profile) == ("src", "mdbook")


@pytest.mark.slow
def test_kb_init_alone_flags_links_in_the_book_only(tmp_path: Path) -> None:
    repo = init_copy(book(tmp_path / "book"), tmp_path, says="mdBook, book.toml")
    assert kbkit_flagged(repo) == {
        ("src/one.md", "gone.html"),
        ("src/vec/vec.md", "../one.html#nope"),
    }
