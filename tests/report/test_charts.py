"""`kbkit.report.charts`: counts get whole-number ticks, intervals round ones, and no two
labels of a chart read the same."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kbkit.report import charts


def tick_labels(svg: str, axis: str) -> list[str]:
    """The text of pygal's tick labels on one axis (`x` or `y`)."""
    block = re.search(rf'<g class="axis {axis}[^"]*">(.*?)</g>\s*</g>', svg, re.S)
    assert block is not None, axis
    return re.findall(r"<text[^>]*>([^<]*)</text>", block.group(1))


@given(st.integers(min_value=0, max_value=10**7))
def test_integer_ticks_are_whole_round_and_cover_the_largest_count(largest: int) -> None:
    ticks = charts.integer_ticks(largest)
    assert ticks[0] == 0 and ticks[-1] >= largest and len(ticks) <= 6 + 1
    steps = {b - a for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1
    step = steps.pop()
    assert int(str(step)[0]) in (1, 2, 5) and set(str(step)[1:]) <= {"0"}


@given(
    st.floats(min_value=-50, max_value=50, allow_subnormal=False),
    st.floats(min_value=0.001, max_value=100),
)
def test_nice_ticks_are_evenly_spaced_round_numbers(low: float, span: float) -> None:
    ticks = charts.nice_ticks(low, low + span)
    assert ticks[0] <= low and ticks[-1] >= low + span - 1e-9 and len(ticks) <= 9
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1  # never 0, 0.2, 0.4, 0.7


def test_a_count_chart_ticks_whole_numbers_only() -> None:
    svg = charts.stacked_days(
        "d", ["11-01", "11-02", "11-03"], {"merged": [0, 1, 0], "bugfix": [0, 0, 1]}
    )
    assert tick_labels(svg, "y") == ["0", "1"]  # never 0.1 ... 1
    svg = charts.lines("t", ["11-02", "now"], {"errors": [3, 0], "warnings": [7, 6]})
    assert tick_labels(svg, "y") == ["0", "2", "4", "6", "8"]
    assert "<script" not in svg and "<!--" not in svg


def test_forest_rows_are_labelled_by_distinct_keys() -> None:
    """Two comparisons whose names share a long prefix used to be cut to the same text."""
    long = "inject_shown vs history (observational, not causal) for company acme"
    rows = [
        {
            "group": long + " web",
            "arm": arm,
            "tasks": 3,
            "value": v,
            "low": v - 0.1,
            "high": v + 0.1,
        }
        for arm, v in (("with_lessons", 0.5), ("without_lessons", 0.3))
    ] + [
        {
            "group": long + " api",
            "arm": "with_lessons",
            "tasks": 1,
            "value": 0.7,
            "low": None,
            "high": None,
        }
    ]
    svg = charts.forest("f", rows, ["A", "B", "C"])
    assert tick_labels(svg, "y") == ["A", "B", "C"]  # top to bottom, as the legend table lists them
    x = [float(t) for t in tick_labels(svg, "x")]
    assert len({round(b - a, 9) for a, b in zip(x, x[1:], strict=False)}) == 1
