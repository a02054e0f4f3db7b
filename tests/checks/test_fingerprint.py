"""The page fingerprint of tree/duplicate-page: `body_fingerprint` (whitespace deleted, one C
pass) against the exact one it stands for (`exact_fingerprint`: whitespace runs collapsed)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import CORPUS
from tests.pages.test_page_fuzz import markdownish

from kbkit.checks.rules.tree.repo import body_fingerprint, page_exact_fingerprint
from kbkit.checks.runner import run_validators
from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy

DEFAULT = builtin_policy("default")
TODAY = date(2026, 11, 30)
CASES = Path(__file__).resolve().parent.parent / "cases"
WHITESPACE = st.text(alphabet=" \t\n\r\x0b\x0c\u3000\xa0", min_size=1, max_size=4)
words = st.lists(st.text(alphabet="ab中 -", min_size=1, max_size=3), max_size=40)


def _agree(page_text: str, min_chars: int) -> None:
    """Short exactly when the exact fingerprint says so; equal exact ones hash equal."""
    page = parse_page("knowledge/general/x.md", page_text.encode("utf-8", "surrogatepass"))
    if page.error is not None:
        return
    fast, exact = body_fingerprint(page, min_chars), page_exact_fingerprint(page, min_chars)
    assert (fast is None) == (exact is None), page_text


@pytest.mark.slow
@settings(max_examples=300, derandomize=True, deadline=None)
@given(markdownish, st.sampled_from([1, 5, 20, 200]))
def test_too_short_exactly_when_the_exact_fingerprint_says_so(text: str, min_chars: int) -> None:
    _agree(text, min_chars)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(words, st.data(), st.sampled_from([1, 5, 20]))
def test_bodies_equal_up_to_whitespace_runs_hash_equal(
    parts: list[str], data: st.DataObject, min_chars: int
) -> None:
    gaps = [data.draw(WHITESPACE) for _ in parts]
    one = "".join(p + g for p, g in zip(parts, gaps, strict=True))
    other = " ".join(parts)
    _agree(one, min_chars)
    first = parse_page("a.md", one.encode())
    second = parse_page("b.md", other.encode())
    if page_exact_fingerprint(first, min_chars) == page_exact_fingerprint(second, min_chars):
        assert body_fingerprint(first, min_chars) == body_fingerprint(second, min_chars)


def test_case_folders_and_corpus_pages_agree() -> None:
    # the corpus when it is here (a clone without it still checks the case folders)
    pages = [p for p in [*CASES.rglob("*.md"), *CORPUS.rglob("*.md")] if p.is_file()]
    assert pages
    for path in pages:
        text = path.read_bytes().decode("utf-8", "replace")
        for min_chars in (1, 200):
            _agree(text, min_chars)


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_bodies_that_differ_only_in_where_whitespace_is_are_no_duplicates(
    tmp_path: Path,
) -> None:
    # equal without their whitespace, so equal body_fingerprints: the exact comparison
    # (the pages read again) must keep them apart, and still find the real copy
    words = " ".join(f"word{i}" for i in range(80))
    glued = words.replace("word1 word2", "word1word2")
    index = "# General\n\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n"
    _write(
        tmp_path,
        {
            "knowledge/repos/_index.md": "# Repos\n",
            "knowledge/general/_index.md": index,
            "knowledge/general/a.md": f"# A\n\n{words}\n",
            "knowledge/general/b.md": f"# A\n\n{glued}\n",
            "knowledge/general/c.md": f"# A\n\n\n{words.replace(' ', '   ')}\n",
        },
    )
    findings, _ = run_validators(tmp_path, DEFAULT, ("tree",), TODAY)
    duplicates = [(f.path, f.message) for f in findings if f.rule_id == "tree/duplicate-page"]
    assert duplicates == [
        (
            "knowledge/general/c.md",
            "same text as knowledge/general/a.md: keep one page and link to it",
        )
    ]
