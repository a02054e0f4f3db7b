"""kbkit.pages.flat_yaml (the front matter fast path) against PyYAML (FrontmatterLoader) as the
oracle: wherever the fast path answers, its mapping is PyYAML's, key order and types
included; everything else falls back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.pages.flat_yaml import load_flat
from kbkit.pages.frontmatter import FrontmatterLoader, split_frontmatter
from kbkit.pages.page import decode
from tests.conftest import CORPUS, PROJECT


def _oracle(raw: str) -> Any:
    loader = FrontmatterLoader(raw)
    try:
        return loader.get_single_data(), loader.duplicates
    finally:
        loader.dispose()


def _agrees(raw: str) -> bool:
    """True when the fast path answered; fails the test when its answer differs."""
    fast = load_flat(raw)
    if fast is None:
        return False
    value, duplicates = _oracle(raw)
    assert duplicates == [], raw
    assert fast == (value or {}), raw
    assert list(fast) == list(value or {}), raw
    assert [type(v) for v in fast.values()] == [type(v) for v in (value or {}).values()], raw
    return True


def _raw_blocks(root: Path) -> list[str]:
    blocks = []
    for path in sorted(root.rglob("*.md")):
        if not path.is_file() or path.is_symlink():
            continue
        text, _, error = decode(path.read_bytes())
        if error is None:
            front = split_frontmatter(text.replace("\r\n", "\n"))
            if front.present and front.end_line:
                blocks.append(front.raw)
    return blocks


def test_fast_path_agrees_with_pyyaml_on_the_case_folders_and_sample_tree() -> None:
    blocks = _raw_blocks(PROJECT / "tests" / "cases") + _raw_blocks(PROJECT / "knowledge")
    assert len(blocks) > 50
    answered = sum(_agrees(raw) for raw in blocks)
    assert answered > len(blocks) // 2  # the fast path is the common path, not a rarity


@pytest.mark.corpus
def test_fast_path_agrees_with_pyyaml_on_the_corpus() -> None:
    root = CORPUS / "infermatrix-knowledge"
    if not root.exists():
        pytest.skip("corpus absent")
    blocks = _raw_blocks(root)
    answered = sum(_agrees(raw) for raw in blocks)
    assert answered > len(blocks) // 2


KEYS = ("title", "type", "on", "yes", "null", "1", "ms.date", "a-b", "_k", "tags", "title")
VALUES = (
    "x",
    "a b",
    "a  b",
    "guide-11.md",
    "2026-08-01",
    "2026-13-45",
    "2026-08-01 10:00:00",
    "11/10/2026",
    "1",
    "012",
    "0x1f",
    "1:20",
    "1_000",
    "1.5",
    ".inf",
    ".5",
    "~",
    "null",
    "on",
    "Off",
    "yes",
    "y",
    "=",
    '"PR #1"',
    '"a\\"b"',
    "'it''s'",
    "'x'",
    '""',
    "[]",
    "[a, b]",
    '["PR #841", "docs/layer.md"]',
    '["data members [C++], in __asm blocks", "x"]',
    "['a, b', c d, \"e,f\"]",
    '["a, b"c, d]',
    '["a", b, ]',
    '[ "a, b" ]',
    '["a, b",c]',
    '["a,  b", "]", "[x"]',
    "['it''s, x']",
    "[a,b]",
    "[a, 1]",
    "[on, x]",
    "a #c",
    "a: b",
    "*a",
    "&a x",
    "!!str 1",
    "|",
    ">",
    "-",
    "- a",
    "x ",
    "./x",
    "//x",
    "(x)",
    "a-",
    "...",
    "清理 thinking",
    "a\u00a0",
    "a\u2028b",
    "a\x85b",
    "a\ufeffb",
    "a\tb",
    "",
)
LINE = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.builds(lambda k: f"{k}:", st.sampled_from(KEYS)),
    st.builds(
        lambda i, v: f"{i}- {v}", st.sampled_from(("", "  ", "    ")), st.sampled_from(VALUES)
    ),
    st.sampled_from(("", "", "  sub: x", "# c", "  ", "---", "%YAML 1.1", "? a")),
)


@pytest.mark.slow
@given(st.lists(LINE, max_size=8), st.booleans())
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_path_agrees_with_pyyaml_on_fuzzed_front_matter(lines: list[str], end: bool) -> None:
    raw = "\n".join(lines) + ("\n" if end and lines else "")
    try:
        _oracle(raw)
    except Exception:  # noqa: BLE001 - PyYAML refuses it: the fast path must not answer
        assert load_flat(raw) is None, raw
        return
    _agrees(raw)


def test_fast_path_declines_what_it_cannot_be_sure_of() -> None:
    for raw in ("on: x\n", "1: x\n", "a: x\na: y\n", "a: x # c\n", "a:\n  b: c\n", "a: *x\n"):
        assert load_flat(raw) is None, raw
    # a NaN equals nothing, a merge key and a number past the bounded loader's limit are
    # PyYAML's to read
    for raw in ("a: .nan\n", "<<: x\n", "a: =\n", f"a: {'9' * 65}\n"):
        assert load_flat(raw) is None, raw
    assert load_flat('k: ["a, b", "[C++], c", d e]\n') == {"k": ["a, b", "[C++], c", "d e"]}
    assert load_flat("a: x\nb: [c, 'd']\nc:\n  - e\nd:\n") == {
        "a": "x",
        "b": ["c", "d"],
        "c": ["e"],
        "d": None,
    }


def test_plain_booleans_numbers_and_nulls_are_read_as_pyyaml_builds_them() -> None:
    # Dataview vaults and Hugo sites carry `draft: false`, `weight: 10` on every page: the
    # fast path reads them (PyYAML took 1.2 s of a 4,900-page vault's check for them)
    raw = "Name: Pidgeotite\nOneUse: false\nweight: 10\nratio: 1.5\nhex: 0x1f\ntime: 1:20\n"
    raw += "none: ~\nswitch: on\nitems: [1, yes, x]\nlist:\n  - 2\n  - null\n"
    assert _agrees(raw)
    assert load_flat(raw) == {
        "Name": "Pidgeotite",
        "OneUse": False,
        "weight": 10,
        "ratio": 1.5,
        "hex": 31,
        "time": 80,
        "none": None,
        "switch": True,
        "items": [1, True, "x"],
        "list": [2, None],
    }


def test_remembered_lines_read_as_the_first_time() -> None:
    # load_flat remembers one-line entries: a second read of the same blocks (every line a
    # remembered one) must agree with PyYAML as the first did, and a list it handed out
    # must be the caller's own
    blocks = _raw_blocks(PROJECT / "tests" / "cases") + _raw_blocks(PROJECT / "knowledge")
    first = [load_flat(raw) for raw in blocks]
    second = [load_flat(raw) for raw in blocks]
    assert first == second
    assert sum(_agrees(raw) for raw in blocks) > len(blocks) // 2
    raw = "tags: [a, b]\ntitle: x\n"
    load_flat(raw)["tags"].append("c")  # type: ignore[index]
    assert load_flat(raw) == {"tags": ["a", "b"], "title": "x"}
    # a remembered line repeated in one block is a duplicate key: PyYAML's reading applies
    assert load_flat("title: x\ntitle: x\n") is None
