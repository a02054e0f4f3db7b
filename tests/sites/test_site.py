"""The helpers every site module shares."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kbkit.sites.site import lines_led_by

LITERALS = ("{{%", "--8<--", "::: ")


@given(
    st.lists(st.sampled_from((*LITERALS, " ", "\t", "\n", "x", "{", ":", "-", "%")), max_size=30)
)
def test_lines_led_by_finds_what_a_line_start_pattern_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    pattern = re.compile(r"(?m)^[ \t]*(?:" + "|".join(map(re.escape, LITERALS)) + ")")
    assert lines_led_by(text, *LITERALS) == [found.start() for found in pattern.finditer(text)]


def test_a_literal_after_other_text_on_its_line_is_not_a_lead() -> None:
    text = "{{% a %}}\n  {{% b %}}\nsee {{% c %}}\n\t{{%"
    assert lines_led_by(text, "{{%") == [0, 10, 36]
