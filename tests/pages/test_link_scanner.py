"""The link scanner (the fallback parser's) against markdown-it-py's full inline parse as the
oracle; tests/pages/test_page_parsers.py holds the native parser to the same oracle."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kbkit.pages.page import _parse_body_markdown_it, parse_page
from tests.conftest import CORPUS

ORACLE = MarkdownIt("commonmark").enable("table")


def oracle_links(body: str) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []

    def walk(tokens: list) -> None:
        for token in tokens:
            if token.type == "link_open":
                found.append((unquote(str(token.attrGet("href") or "")), False))
            elif token.type == "image":
                found.append((unquote(str(token.attrGet("src") or "")), True))
            if token.children:
                walk(token.children)

    walk(ORACLE.parse(body))
    return found


def scanned_links(body: str) -> list[tuple[str, bool]]:
    return [(link.target, link.image) for link in _parse_body_markdown_it(body, 1)[1]]


def test_examples_that_fooled_the_reference_validators() -> None:
    body = (
        "Code `[label](missing.md)` is text.\n\n"
        'A [titled](p.md "title") link and <x> a [pointy](<a b.md>) one.\n\n'
        "````\n```\n[in](fence.md)\n```\n````\n\n"
        "    [indented](code.md)\n\n"
        "[ref][r] and [r] and ![img](i.png)\n\n[r]: ./ref.md\n"
    )
    assert scanned_links(body) == oracle_links(body)
    assert [t for t, _ in scanned_links(body)] == [
        "p.md",
        "a b.md",
        "./ref.md",
        "./ref.md",
        "i.png",
    ]


def test_link_lines_are_file_lines() -> None:
    page = parse_page(
        "p.md",
        b"---\ntitle: x\n---\n# T\n\npara line\nsecond [a](a.md)\n\n| h |\n|---|\n| [b](b.md) |\n",
    )
    assert [(link.target, link.line) for link in page.links] == [("a.md", 7), ("b.md", 11)]


ALPHABET = st.sampled_from(
    list("ab ()[]<>!`\\\"'#:*_\n")
    + [
        "](",
        "![",
        "[x]",
        "`x`",
        "``",
        "<a>",
        "\n\n",
        "    ",
        "```\n",
        "~~~\n",
        "[r]: /u\n",
        "- ",
        "> ",
        "|a|\n|-|\n",
        "&amp;",
        "%20",
        "c.md",
    ]
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_scanner_matches_full_inline_parse_on_fuzzed_pages(body: str) -> None:
    assert scanned_links(body) == oracle_links(body)


@pytest.mark.slow
def test_scanner_matches_full_inline_parse_on_the_real_corpus() -> None:
    root = CORPUS / "infermatrix-knowledge" / "knowledge"
    if not root.exists():
        import pytest

        pytest.skip("corpus not present")
    pages = sorted(root.rglob("*.md"))
    assert len(pages) > 400
    for path in pages:
        page = parse_page(str(path), path.read_bytes())
        body = page.text[page.frontmatter.body_offset :]
        assert [(link.target, link.image) for link in page.links] == oracle_links(body), path


LABELS = st.sampled_from(
    [
        "[",
        "]",
        "](",
        ")",
        "![",
        "<",
        ">",
        "`",
        "``",
        "\\",
        "*",
        "_",
        "a",
        " ",
        "\n",
        "x.md",
        "<http://h.x>",
        "<a>",
        "&amp;",
        "[r]",
        '"t"',
        "[r]: /u\n\n",
    ]
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(LABELS, max_size=40).map("".join))
def test_link_texts_with_and_without_nested_constructs(body: str) -> None:
    """Link texts are tokenized only when they can hold a link or image (links._LinkTextParser)."""
    assert scanned_links(body) == oracle_links(body)


def test_encoded_hash_and_question_mark_stay_in_the_path() -> None:
    page = parse_page("p.md", b"[a](a%23b.md) [c](c%3Fd.md#frag) [e](e.md?x=1#y)\n")
    assert [(link.target, link.path_part) for link in page.links] == [
        ("a#b.md", "a#b.md"),
        ("c?d.md#frag", "c?d.md"),
        ("e.md?x=1#y", "e.md"),
    ]


def test_a_page_whose_name_holds_a_hash_is_found_by_the_validators(tmp_path: Path) -> None:
    from datetime import date

    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import load_policy

    root = tmp_path / "knowledge" / "general"
    root.mkdir(parents=True)
    (root / "_index.md").write_text("# G\n\n- [a](a%23b.md)\n")
    (root / "a#b.md").write_text("# A\n")
    findings, _ = run_validators(tmp_path, load_policy(tmp_path), ("tree",), date(2026, 11, 30))
    assert not [f for f in findings if f.rule_id in ("tree/link-broken", "tree/page-unregistered")]
