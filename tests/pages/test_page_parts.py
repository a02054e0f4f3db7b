"""The records a page's parse keeps (`kbkit.pages.page_parts`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbkit.pages.page_parts import CodeBlock


@given(
    first=st.integers(min_value=1, max_value=10_000),
    text=st.text(alphabet="ab \n\r", max_size=40),
)
def test_a_code_blocks_line_numbers_are_those_of_its_lines(first: int, text: str) -> None:
    """Counted without splitting the text, whether or not it ends with a line break."""
    block = CodeBlock(first, "", text, True)
    assert list(block.line_numbers()) == [number for number, _ in block.lines()]
