"""kbkit.pages.frontmatter against python-frontmatter as the oracle, plus what the oracle gets wrong."""

from __future__ import annotations

from pathlib import Path

import frontmatter as oracle
import pytest

from kbkit.pages.frontmatter import split_frontmatter
from tests.conftest import CORPUS, PROJECT


def _pages() -> list[Path]:
    pages = sorted((PROJECT / "knowledge").rglob("*.md"))
    corpus = CORPUS / "infermatrix-knowledge" / "knowledge"
    if corpus.exists():
        pages += sorted(corpus.rglob("*.md"))
    return pages


def _as_text(value: object) -> object:
    """python-frontmatter turns unquoted dates into date objects; kbkit keeps the text."""
    if isinstance(value, dict):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    return value.isoformat() if hasattr(value, "isoformat") else value


def test_metadata_and_body_agree_with_python_frontmatter_on_real_pages() -> None:
    pages = _pages()
    assert len(pages) >= 29
    checked = 0
    for path in pages:
        text = path.read_text("utf-8-sig")
        ours = split_frontmatter(text)
        if not ours.present or ours.error is not None:
            continue
        post = oracle.loads(text)
        assert _as_text(post.metadata) == ours.data, path
        assert post.content.strip() == text[ours.body_offset :].strip(), path
        checked += 1
    assert checked >= 29


@pytest.mark.parametrize(
    ("text", "data", "line"),
    [
        ("---\ntitle: a\n---\nbody\n", {"title": "a"}, None),
        ('---\ntitle: "x --- y"\n---\n', {"title": "x --- y"}, None),  # `---` inside a value
        ("---\nupdated: 2026-13-45\n---\n", {"updated": "2026-13-45"}, None),  # kept as text
        ("---\non: push\n---\n", {True: "push"}, None),  # the oracle raises TypeError here
        ("---\ntitle: a\n  bad: : x\n---\n", None, 3),  # the YAML error's file line
        ("---\ntitle: a\n", None, 1),  # never closed
    ],
)
def test_edge_cases(text: str, data: object, line: int | None) -> None:
    front = split_frontmatter(text)
    assert front.data == data
    assert (front.error.line if front.error else None) == line


def test_repeated_keys_are_noted_with_their_file_lines() -> None:
    text = (
        "---\n"
        "title: a\n"  # line 2
        "type: guide\n"
        "title: b\n"  # line 4: repeats line 2
        "owner: {team: x, team: y}\n"  # line 5: a repeat on the same line
        "base: &b {k: 1}\n"
        "m:\n"
        "  <<: *b\n"
        "  k: 2\n"  # a merge override, not a repeat
        '"type": z\n'  # line 10: quoted, still the same key as line 3
        "---\n"
        "# Body\n"
    )
    front = split_frontmatter(text)
    assert front.data is not None and front.data["title"] == "b"
    assert sorted(front.duplicates) == [("team", 5, 5), ("title", 4, 2), ("type", 10, 3)]
    assert split_frontmatter("---\ntitle: a\n---\n").duplicates == ()
