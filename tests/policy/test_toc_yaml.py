"""The fast table-of-contents reader answers exactly as PyYAML with `TocLoader` does (values,
types and each string's line), or not at all."""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from kbkit.policy.toc_yaml import load_toc
from kbkit.sites.config import TocLoader


def _shape(value: Any) -> Any:
    """The value with every string's type and line made visible (== ignores them)."""
    if isinstance(value, dict):
        return [(_shape(k), _shape(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return (type(value).__name__, value, getattr(value, "line", None))


def _pyyaml(text: str) -> tuple[bool, Any]:
    try:
        return True, yaml.load(text, Loader=TocLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return False, None


def _agrees(text: str) -> bool:
    """Whether the fast reader answered; when it did, its answer is PyYAML's."""
    read, value = load_toc(text)
    if read:
        loaded, expected = _pyyaml(text)
        assert loaded, f"the fast reader read YAML that PyYAML refuses:\n{text}"
        assert _shape(value) == _shape(expected), text
    return read


DOCFX = """\
items:{blank}
- name: MFC desktop applications
  href: mfc-desktop-applications.md
- name: MFC concepts
  expanded: false
  items:{blank}
    - name: "CWnd::accHitTest"
      href: reference/cwnd-class.md#acchittest
    - name: /forceInterlockedFunctions (Generate and link with out-of-line atomic
        functions)
      href: ./reference/force-interlocked-functions.md
    - name: C# interop & <templates>
      displayName: 'operator new, delete'
      href: ../build/reference/arch-x86.md?view=msvc-170
      items:
      - name: Nested
        href: nested.md
        topicHref: nested.md
- name: Empty
  href:
  expanded: True
- name: No
  href: null
""".format(blank=" ")  # blanks after `items:`, as cpp-docs writes them


def test_a_docfx_table_of_contents_reads_as_pyyaml_reads_it() -> None:
    assert _agrees(DOCFX)
    _, value = load_toc(DOCFX)
    entry = value["items"][1]["items"][1]
    assert entry["name"].endswith("out-of-line atomic functions)")
    assert entry["name"].line == 9 and entry["href"].line == 11
    assert value["items"][2]["href"] is None and value["items"][2]["expanded"] is True


def test_a_top_level_sequence_and_nested_mappings_read_as_pyyaml_reads_them() -> None:
    assert _agrees("- name: A\n  href: a.md\n  items:\n    - name: B\n      href: b.md\n")
    assert _agrees("root:\n  inner:\n    href: x.md\n  other: y\n")


@pytest.mark.parametrize(
    "text",
    [
        "items:\n- name: A # a comment\n",
        "# a comment\nitems:\n- name: A\n",
        "items: [a, b]\n",
        "items:\n- &first\n  name: A\n",
        "items:\n- name: *first\n",
        "items:\n- name: !tag A\n",
        "items:\n- name: 1.5\n",
        "items:\n- name: 2024-01-01\n",
        "items:\n- name: A\n  name: B\n",  # a repeated key: PyYAML keeps the last
        "items:\n- name: A\n\thref: a.md\n",
        "items:\n- name: |\n    block\n",
        "items:\n- name: first\n\n    second\n",  # a blank line folds to a line break
        "items:\n- just a scalar\n",
        "items:\n- name: A\n href: a.md\n",  # bad indentation: PyYAML's error
        "items:\n  - name: A\n - name: B\n",
        "name: a: b\n",
        'name: "escaped \\" quote"\n',
        "---\nitems:\n- name: A\n",
        "",
        "true: x\n",
        "items:\n- name: A\r\n",
    ],
)
def test_text_outside_the_subset_is_left_to_pyyaml(text: str) -> None:
    assert not _agrees(text)


_KEYS = ["name", "href", "items", "expanded", "topicHref", "null", "on", "displayName"]
_VALUES = [
    "a.md",
    "../b/c.md#x",
    '"quoted: text"',
    "'single # quoted'",
    "true",
    "False",
    "~",
    "null",
    "12",
    "1.5",
    "2024-01-01",
    "C++ & C# <T>",
    "a: b",
    "x #c",
    "trailing:",
    "-dash",
    "[a]",
    "{a: 1}",
    "*alias",
    "&anchor x",
    "'it''s'",
    "",
]


def _random_toc(rng: random.Random) -> str:
    lines = []
    indent = 0
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.1:
            indent = max(0, indent + rng.choice((-4, -2, -2, 2, 4)))
        elif roll < 0.25:
            lines.append("")
            continue
        elif roll < 0.3:
            lines.append(" " * (indent + rng.choice((1, 2, 4))) + rng.choice(_VALUES))
            continue
        dash = "- " if rng.random() < 0.4 else ""
        value = rng.choice(_VALUES if rng.random() < 0.3 else _VALUES[:8])
        lines.append(" " * indent + dash + rng.choice(_KEYS) + ":" + (" " + value if value else ""))
        if dash:
            indent += 2
    return "\n".join(lines) + "\n"


def test_random_tables_of_contents_read_as_pyyaml_reads_them_or_not_at_all() -> None:
    rng = random.Random(28)
    answered = 0
    for _ in range(8000):
        answered += _agrees(_random_toc(rng))
    assert answered > 300  # the comparison is not vacuous


@pytest.mark.slow
def test_the_bench_proxy_tables_of_contents_take_the_fast_path(tmp_path: Any) -> None:
    from benchmarks.gen_reference_docset import generate_reference_docset

    generate_reference_docset(tmp_path, 300)
    tocs = sorted(tmp_path.rglob("toc.yml"))
    assert tocs
    for toc in tocs:
        assert _agrees(toc.read_text("utf-8")), toc
