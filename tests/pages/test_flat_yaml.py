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
    assert _shape(fast) == _shape(value or {}), raw
    return True


def _shape(value: Any) -> Any:
    """A value with its type and key order at every depth (`True == 1`, `{a, b} == {b, a}`)."""
    if isinstance(value, dict):
        return ("dict", [(key, _shape(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_shape(item) for item in value])
    return (type(value).__name__, value)


def _agrees_or_declines(raw: str) -> None:
    """The fast path answers as PyYAML does, or not at all; never where PyYAML refuses."""
    try:
        _oracle(raw)
    except Exception:  # noqa: BLE001 - PyYAML refuses it: the fast path must not answer
        assert load_flat(raw) is None, raw
        return
    _agrees(raw)


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
    # nested mappings: keys and lists indented under a key, at depths that fit or do not
    st.builds(
        lambda i, k, v: f"{i}{k}: {v}",
        st.sampled_from((" ", "  ", "   ", "    ", "      ")),
        st.sampled_from(KEYS),
        st.sampled_from(VALUES),
    ),
    st.builds(lambda i, k: f"{i}{k}:", st.sampled_from(("  ", "    ")), st.sampled_from(KEYS)),
    st.builds(
        lambda i, v: f"{i}- {v}", st.sampled_from((" ", "   ", "      ")), st.sampled_from(VALUES)
    ),
)


@pytest.mark.slow
@given(st.lists(LINE, max_size=8), st.booleans())
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_path_agrees_with_pyyaml_on_fuzzed_front_matter(lines: list[str], end: bool) -> None:
    _agrees_or_declines("\n".join(lines) + ("\n" if end and lines else ""))


# Mostly what the fast path reads (else nearly every draw is declined at its first line)
_READ_KEYS = st.sampled_from(("label", "order", "ms.date", "a-b", "_k", "tags"))
NESTED_KEYS = st.one_of(_READ_KEYS, _READ_KEYS, _READ_KEYS, st.sampled_from(KEYS))
_READ_VALUES = st.sampled_from(
    ("x", "a b", "2026-08-01", "10", "false", "0x1f", "'q'", '"d e"', "[a, 1]", "~")
)
NESTED_VALUES = st.one_of(_READ_VALUES, _READ_VALUES, _READ_VALUES, st.sampled_from(VALUES))


def _nested_lines(draw: Any, width: int, depth: int) -> list[str]:
    """The lines of a block mapping at `width`: scalars, flow and block lists and, above
    the last depth, mappings nested two or four spaces deeper."""
    lines = []
    for key in draw(st.lists(NESTED_KEYS, min_size=1, max_size=4, unique=True)):
        kind = draw(st.sampled_from(("scalar", "list", "map") if depth else ("scalar", "list")))
        pad = " " * width
        if kind == "scalar":
            lines.append(f"{pad}{key}: {draw(NESTED_VALUES)}")
        elif kind == "list":
            lines.append(f"{pad}{key}:")
            item = " " * (width + draw(st.sampled_from((0, 2))))
            values = draw(st.lists(NESTED_VALUES, min_size=1, max_size=3))
            lines.extend(f"{item}- {value}" for value in values)
        else:
            lines.append(f"{pad}{key}:")
            lines.extend(_nested_lines(draw, width + draw(st.sampled_from((2, 4))), depth - 1))
    return lines


@st.composite
def _nested_front_matter(draw: Any) -> str:
    lines = _nested_lines(draw, 0, 2)
    # now and then one line moved in or out by a space or two, or a blank line put in
    for _ in range(draw(st.sampled_from((0, 0, 1, 2)))):
        at = draw(st.integers(0, len(lines) - 1))
        change = draw(st.sampled_from(("in", "out", "blank")))
        if change == "in":
            lines[at] = " " * draw(st.integers(1, 2)) + lines[at]
        elif change == "out" and lines[at].startswith(" "):
            lines[at] = lines[at][1:]
        else:
            lines.insert(at, "")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@given(_nested_front_matter())
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_path_agrees_with_pyyaml_on_fuzzed_nested_front_matter(raw: str) -> None:
    _agrees_or_declines(raw)


def test_fast_path_declines_what_it_cannot_be_sure_of() -> None:
    for raw in ("on: x\n", "1: x\n", "a: x\na: y\n", "a: x # c\n", "a: *x\n"):
        assert load_flat(raw) is None, raw
    # nested: a repeated key, a line more indented than its siblings (a scalar's second
    # line), one between two depths, a list of mappings, a block scalar
    for raw in (
        "a:\n  b: c\n  b: d\n",
        "a:\n  b: c\n    d\n",
        "a:\n    b: c\n  d: e\n",
        "a:\n  - b: c\n",
        "a:\n  b: |\n    c\n",
    ):
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
    raw = "title: T\nsidebar:\n  label: L\n  order: 2\nmenu:\n  main:\n    tags:\n    - a\nx: y\n"
    assert _agrees(raw)
    assert load_flat(raw) == {
        "title": "T",
        "sidebar": {"label": "L", "order": 2},
        "menu": {"main": {"tags": ["a"]}},
        "x": "y",
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
