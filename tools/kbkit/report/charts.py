"""Static SVG charts drawn by pygal (pure Python, ~1 MB, no JavaScript needed).

Every chart is rendered to an element tree, stripped of pygal's tooltip `<script>` and its
comments (they carry the render date), and serialized: the SVG is inert, deterministic and
shows the same with JavaScript off. Labels are untrusted text: invisible characters become
`<U+XXXX>` tokens and the XML serializer escapes the rest.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from kbkit.infra.charset import visible

WIDTH, HEIGHT = 480, 260  # drawn small: at 400 px the page shows them at 3/4 size


def _style() -> Any:
    from pygal.style import Style

    # Dark text on white: contrast well above WCAG AA (checked in the browser test).
    return Style(
        background="#ffffff",
        plot_background="#ffffff",
        foreground="#1f2328",
        foreground_strong="#1f2328",
        foreground_subtle="#57606a",
        font_family="system-ui, 'DejaVu Sans', sans-serif",
        label_font_size=13,
        major_label_font_size=13,
        legend_font_size=13,
        title_font_size=14,
        no_data_font_size=14,
        opacity="0.9",
        colors=("#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#bc4c00", "#57606a"),
    )


def _config(**extra: Any) -> dict[str, Any]:
    return {
        "style": _style(),
        "width": WIDTH,
        "height": HEIGHT,
        "js": [],
        "disable_xml_declaration": True,
        "explicit_size": True,
        "print_values": False,
        "show_legend": False,
        "truncate_label": -1,
        "truncate_legend": -1,
        "margin": 8,
        **extra,
    }


def label(text: object) -> str:
    """An axis or legend label from untrusted text: visible, one line."""
    return visible(" ".join(str(text).split()))


def _svg(chart: Any, name: str) -> str:
    chart.uuid = name  # a stable element id instead of a random one
    root = chart.render_tree()
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag in ("script", "{http://www.w3.org/2000/svg}script") or not isinstance(
                child.tag, str
            ):
                parent.remove(child)
    ET.register_namespace("", "http://www.w3.org/2000/svg")
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    return ET.tostring(root, encoding="unicode")


def integer_ticks(largest: float, most: int = 5) -> list[int]:
    """Axis ticks for counts: whole numbers from 0 in steps of 1, 2 or 5 times a power of 10,
    at most `most` + 1 of them, the last at or above `largest`."""
    if largest <= 0:
        return [0, 1]
    step = 1
    while math.ceil(largest / step) > most:
        step = _next_step(step)
    return list(range(0, math.ceil(largest / step) * step + 1, step))


def _next_step(step: int) -> int:
    digits = str(step)
    lead = int(digits[0])
    return step * 5 // 2 if lead == 2 else step * 2  # 1, 2, 5, 10, 20, 50, ...


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Evenly spaced round ticks (steps of 1, 2 or 5 times a power of 10) covering
    [low, high]: never 0, 0.2, 0.4, 0.7."""
    if high <= low:
        high = low + 1
    raw = (high - low) / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(f * power for f in (1, 2, 5, 10) if f * power >= raw)
    first = math.floor(low / step) * step
    ticks: list[float] = []
    n = 0
    while first + n * step <= high + step * 1e-9 or not ticks or ticks[-1] < high:
        ticks.append(round(first + n * step, 10))
        n += 1
    return ticks


def stacked_days(name: str, days: Sequence[str], series: dict[str, Sequence[int]]) -> str:
    """Counts per day, one stacked series per key, whole-number ticks."""
    import pygal

    totals = [sum(values) for values in zip(*series.values(), strict=True)] or [0]
    ticks = integer_ticks(max(totals))
    chart = pygal.StackedBar(
        **_config(
            show_legend=len(series) > 1,
            legend_at_bottom=True,
            legend_at_bottom_columns=min(len(series), 3),
            x_labels_major_every=7 if len(days) > 10 else None,
            show_minor_x_labels=len(days) <= 10,
            range=(0, ticks[-1]),
        )
    )
    chart.x_labels = [label(d) for d in days]
    chart.y_labels = ticks
    for key, values in series.items():
        chart.add(label(key), list(values))
    return _svg(chart, name)


def lines(name: str, days: Sequence[str], series: dict[str, Sequence[int]]) -> str:
    """Counts over sample days, one line per key, whole-number ticks."""
    import pygal

    ticks = integer_ticks(max([max(v) for v in series.values() if v] + [0]))
    chart = pygal.Line(
        **_config(
            show_legend=True,
            legend_at_bottom=True,
            legend_at_bottom_columns=min(len(series), 3),
            range=(0, ticks[-1]),
            dots_size=4,
            stroke_style={"width": 3},
        )
    )
    chart.x_labels = [label(d) for d in days]
    chart.y_labels = ticks
    for key, values in series.items():
        chart.add(label(key), list(values))
    return _svg(chart, name)


def forest(name: str, rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> str:
    """A forest plot: each row's point estimate (dot) with its 95% interval (line); the rows
    are labelled by `keys` (short letters a legend table spells out), so no two labels can
    look the same. Blue rows saw lessons, red rows did not."""
    import pygal

    n = len(rows)
    values = [v for r in rows for v in (r["value"], r["low"], r["high"]) if v is not None]
    ticks = nice_ticks(min([0.0, *values]), max([1e-9, *values]))
    intervals = [
        (n - i, row)
        for i, row in enumerate(rows)
        if row["value"] is not None and row["low"] is not None and row["high"] is not None
    ]
    style = _style()
    # pygal colours series by position: one colour per interval line, then the dots
    palette = [style.colors[0 if row["arm"] == "with_lessons" else 1] for _, row in intervals]
    style.colors = (*palette, "#1f2328")
    chart = pygal.XY(
        **_config(
            style=style,
            height=max(160, 34 * n + 70),
            show_y_guides=False,
            show_x_guides=True,
            xrange=(ticks[0], ticks[-1]),
            range=(0, n + 1),
            value_formatter=lambda v: f"{v:g}",
            x_value_formatter=lambda v: f"{v:g}",
            dots_size=5,
        )
    )
    chart.x_labels = ticks
    chart.y_labels = [{"label": label(keys[i]), "value": n - i} for i in range(n)]
    for y, row in intervals:
        chart.add(
            label(f"{row['group']} {row['arm']}"),
            [(row["low"], y), (row["high"], y)],
            show_dots=False,
            stroke_style={"width": 4},
        )
    estimates = [(row["value"], n - i) for i, row in enumerate(rows) if row["value"] is not None]
    chart.add("estimate", estimates, stroke=False)
    return _svg(chart, name)
