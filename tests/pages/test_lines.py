"""Incremental line numbers agree with counting from the start, in any order of offsets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbkit.pages.lines import LineCounter


@given(
    st.text(alphabet="ab\n", max_size=200),
    st.lists(st.integers(0, 200), max_size=30),
    st.integers(1, 5),
)
def test_line_at_matches_a_count_from_the_start(text: str, offsets: list[int], first: int) -> None:
    counter = LineCounter(text, first)
    for offset in offsets:
        offset = min(offset, len(text))
        assert counter.line_at(offset) == first + text.count("\n", 0, offset)


def test_a_page_with_many_matches_reports_each_line() -> None:
    from kbkit.checks.rules.tree.secrets import secret_findings
    from kbkit.policy.model import builtin_policy

    text = "".join(f"host 93.{i % 250}.{i // 250}.{i % 200 + 1}\n" for i in range(5000))
    found = secret_findings("knowledge/general/x.md", text, builtin_policy("default"))
    assert [f.line for f in found] == list(range(1, 5001))
