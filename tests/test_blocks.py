"""The fast block scanner (kbkit.blocks) against markdown-it-py as the oracle.

`page._parse_body` takes the fast path whenever `blocks.scan` accepts a body; the result
must equal `page._parse_body_markdown_it` (the reference) exactly: headings, links, code
blocks, comments, lines included.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.gen_tree import generate
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit import blocks
from kbkit.page import _parse_body, _parse_body_markdown_it, parse_page
from tests.conftest import CORPUS


def _check(body: str, body_line: int = 1) -> bool:
    """Assert fast == reference for `body`; return whether the fast path took it."""
    fast = blocks.scan(body) is not None
    assert _parse_body(body, body_line) == _parse_body_markdown_it(body, body_line), body
    return fast


def _bodies(root: Path) -> list[tuple[str, int]]:
    out = []
    for path in sorted(root.rglob("*.md")):
        page = parse_page(str(path), path.read_bytes())
        offset = page.frontmatter.body_offset
        out.append((page.text[offset:], 1 + page.text.count("\n", 0, offset)))
    return out


def test_real_corpus_fast_equals_markdown_it() -> None:
    root = CORPUS / "infermatrix-knowledge" / "knowledge"
    if not root.exists():
        pytest.skip("corpus not present")
    bodies = _bodies(root)
    assert len(bodies) > 400
    fast = sum(_check(body, line) for body, line in bodies)
    print(f"corpus: {fast}/{len(bodies)} pages on the fast path ({fast / len(bodies):.1%})")
    assert fast / len(bodies) >= 0.9


def test_synthetic_tree_fast_equals_markdown_it(tmp_path: Path) -> None:
    generate(tmp_path, 600, seed=3)
    bodies = _bodies(tmp_path / "knowledge")
    fast = sum(_check(body, line) for body, line in bodies)
    print(f"synthetic: {fast}/{len(bodies)} pages on the fast path ({fast / len(bodies):.1%})")
    assert fast / len(bodies) >= 0.9


CASES = [
    "",
    "\n",
    "   ",
    "a\n  ",
    "# T\n\npara [a](a.md)\nnext <!-- c --> line\n",
    "# Heading ##  \n## [x](y) #\n###### six\n####### seven\n#no\n#\n",
    "- a [l](1.md)\n  - b [l](2.md)\n    - c\n\n  more [l](3.md)\n- d\n",
    "1. one\n2. two\n   ```bash\n   code [x](y)\n   ```\n3) other\n",
    "10. ten\n\n11. eleven\n",
    "para\n2. not a list\n1. a list\n",
    "para\n- \n- item\n",
    "- \n\n  foo\n",
    "-\n  foo\n",
    "````md\n```\n[in](fence.md)\n```\n````\nafter [a](a.md)\n",
    "  ~~~ info  x\n  in\n in\nin\n  ~~~\n",
    "```\nunclosed [a](b)\n",
    "- ```\n  in item\n outdented\n",
    "| a | b |\n|---|:-:|\n| [x](x.md) | `y` |\n| only |\n| 1 | 2 | 3 |\n\nafter\n",
    "para\n| a | b |\n| - | - |\n| c | d |\n",
    "| a \\| b | [c](c.md) |\n|---|---|\n| x \\| [y](y.md) | z |\n",
    "|a|\n|-|\n- item\n",
    "- | a |\n  |---|\n  | [b](b.md) |\n",
    "<!-- one -->\n<!--\nmulti\n-->\ntext\n",
    "- item\n  <!-- c\n\nstill -->\n",
    "***\n---\n___\n* * *\n- - -\n",
    "a\n***\nb\n",
    "text\n    lazy\n",
    "- a\nlazy [l](l.md)\n- b\n",
    "* a\n+ b\n- c\n",
    "- a\n\n\n- b\n",
    "1. a\n\n   1. b\n\n      - c\n",
]


@pytest.mark.parametrize("body", CASES)
def test_hand_written_cases(body: str) -> None:
    _check(body, 5)


FALLBACK_CASES = [
    "> quote",
    "    indented code",
    "Title\n=====",
    "Title\n---",
    "[r]: /u\n\n[r]",
    "<div>\nx\n</div>",
    "a\tb",
    "a\rb",
    "a\x00b",
    "- " * 11 + "deep",
]


@pytest.mark.parametrize("body", FALLBACK_CASES)
def test_constructs_outside_the_subset_fall_back(body: str) -> None:
    assert blocks.scan(body) is None
    _check(body)


PIECES = st.sampled_from(
    [
        "a",
        "b c",
        "#",
        "# ",
        "## h",
        "-",
        "- ",
        "*",
        "* ",
        "+ ",
        "1.",
        "1. ",
        "2) ",
        "10. ",
        "|",
        " | ",
        "|---|",
        "|:-:|",
        "---",
        "- - -",
        "***",
        ">",
        "> ",
        " ",
        "  ",
        "   ",
        "    ",
        "\t",
        "\n",
        "\n\n",
        "```",
        "````",
        "~~~",
        "```py",
        "~~~ x",
        "`",
        "<!--",
        "-->",
        "<!-- c -->",
        "<div>",
        "<",
        "[x](y)",
        "![i](p.png)",
        "[x]",
        "[r]: /u",
        "]:",
        "===",
        "\\",
        "\\|",
        "_",
    ]
)
# Line-shaped pieces make block structure likely (markers at line starts).
LINE = st.lists(PIECES, min_size=0, max_size=5).map("".join)
BODY = st.lists(LINE, min_size=0, max_size=14).map("\n".join) | st.lists(PIECES, max_size=40).map(
    "".join
)

_SEEN = {"fast": 0, "all": 0}


@settings(max_examples=1500, deadline=None)
@given(BODY)
def test_fuzzed_pages_fast_equals_markdown_it(body: str) -> None:
    _SEEN["all"] += 1
    _SEEN["fast"] += _check(body, 3)


INDENT = st.sampled_from(["", "", " ", "  ", "   ", "    ", "     ", "      ", "        "])
HEAD = st.sampled_from(
    [
        "- ",
        "* ",
        "+ ",
        "1. ",
        "2) ",
        "10. ",
        "-",
        "```",
        "````",
        "~~~",
        "```js",
        "<!--",
        "-->",
        "<!-- x -->",
        "| a | b |",
        "|---|---|",
        "|-|",
        "# ",
        "---",
        "***",
        "===",
        "> ",
        "",
        "text",
        "[a](b.md)",
        "x <!-- y --> z",
        "`c`",
    ]
)
TAIL = st.sampled_from(["", "a", "[l](l.md)", " |  c |", "```", "-->", " #", "  ", "|"])
# Pages of lines `indent + block start + rest`: nesting, lazy lines, fences and HTML in lists.
STRUCTURED = st.lists(st.tuples(INDENT, HEAD, TAIL).map("".join), min_size=1, max_size=16).map(
    "\n".join
)


@settings(max_examples=700, deadline=None)
@given(STRUCTURED, st.sampled_from(["", "\n", "\n\n", "\n  "]))
def test_fuzzed_nested_structures_fast_equals_markdown_it(body: str, end: str) -> None:
    _check(body + end, 4)


def test_fuzzing_exercises_the_fast_path() -> None:
    """Most fuzzed bodies must take the fast path, or the test above proves little."""
    if _SEEN["all"] < 1000:
        pytest.skip("run together with the fuzz test")
    share = _SEEN["fast"] / _SEEN["all"]
    print(f"fuzzed: {_SEEN['fast']}/{_SEEN['all']} on the fast path ({share:.1%})")
    assert share >= 0.3


def test_the_port_is_enabled_for_the_installed_markdown_it() -> None:
    """A markdown-it-py upgrade turns the fast path off until the port is re-verified."""
    assert blocks.ENABLED, (
        f"markdown-it-py is not {blocks.VERIFIED_MARKDOWN_IT}: re-run tests/test_blocks.py "
        "with kbkit.blocks enabled, update the port, then VERIFIED_MARKDOWN_IT"
    )
