"""MkDocs (and Material) as MkDocs reads it: links in an admonition's, a collapsible
block's or a content tab's second paragraph are read too. `mkdocs build --strict` is the
oracle."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kbkit.pages.containers import unindent_containers
from kbkit.pages.page import parse_page
from tests.sites.oracle import init_copy, kbkit_flagged, mkdocs_broken

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_a_blocks_second_paragraph_is_markdown_not_code() -> None:
    body = (
        '!!! note "Title"\n    First [a](a.md).\n\n    Second [b](b.md).\n\n'
        "Outside.\n\n    real code [c](c.md)\n"
    )
    page = parse_page("docs/x.md", body.encode())
    assert [(link.target, link.line) for link in page.links] == [("a.md", 2), ("b.md", 4)]
    assert [block.text for block in page.code_blocks] == ["real code [c](c.md)\n"]


def test_nested_blocks_and_tabs_keep_every_line_number() -> None:
    body = (
        '=== "Linux"\n\n    Tab [a](a.md).\n\n    !!! danger "Inner"\n        One.\n\n'
        "        Two [b](b.md).\n\n    ```sh\n    rm -rf build\n    ```\n"
    )
    moved = unindent_containers(body)
    assert moved.count("\n") == body.count("\n")
    page = parse_page("docs/x.md", body.encode())
    assert [(link.target, link.line) for link in page.links] == [("a.md", 3), ("b.md", 8)]
    assert [(block.info, block.text) for block in page.code_blocks] == [("sh", "rm -rf build\n")]


def test_text_that_only_looks_like_an_opener_is_left_alone() -> None:
    body = "!!! Do not run this:\n\n    rm -rf /\n"
    assert unindent_containers(body) == body
    assert parse_page("docs/x.md", body.encode()).code_blocks[0].text == "rm -rf /\n"


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (make setup)"
)
def test_kbkit_flags_exactly_the_links_mkdocs_strict_reports(tmp_path: Path) -> None:
    site = FIXTURES / "mkdocs-material"
    broken = mkdocs_broken(site, tmp_path)
    assert ("docs/index.md", "guide/missing.md") in broken  # an admonition's 2nd paragraph
    assert ("docs/guide/install.md", "nothing.md") in broken  # a content tab's
    assert ("docs/guide/install.md", "../gone.md") in broken  # a nested admonition's
    assert len(broken) == 5
    assert kbkit_flagged(init_copy(site, tmp_path)) == broken
