"""Static SVG charts drawn by pygal (pure Python, ~1 MB, no JavaScript needed).

Every chart is rendered to an element tree, stripped of pygal's tooltip `<script>` and its
comments (they carry the render date), and serialized: the SVG is inert, deterministic and
shows the same with JavaScript off. Labels are untrusted text: invisible characters become
`<U+XXXX>` tokens and the XML serializer escapes the rest.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from kbkit.infra.charset import visible

LABEL_CAP = 48  # characters of a label on an axis; the tables beside carry the full text
WIDTH, HEIGHT = 640, 300


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
        label_font_size=11,
        major_label_font_size=11,
        legend_font_size=12,
        title_font_size=14,
        no_data_font_size=20,
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
        **extra,
    }


def label(text: object) -> str:
    """An axis or legend label from untrusted text: visible, one line, capped."""
    shown = visible(" ".join(str(text).split()))
    return shown if len(shown) <= LABEL_CAP else shown[: LABEL_CAP - 1] + "…"


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


def bars(
    name: str,
    title: str,
    labels: Sequence[object],
    series: dict[str, Sequence[float]],
    *,
    horizontal: bool = False,
    stacked: bool = False,
) -> str:
    """A bar chart: one bar (or stack) per label, one series per key of `series`."""
    import pygal

    kind = {
        (False, False): pygal.Bar,
        (True, False): pygal.HorizontalBar,
        (False, True): pygal.StackedBar,
        (True, True): pygal.HorizontalStackedBar,
    }[(horizontal, stacked)]
    shown = [label(x) for x in labels]
    if horizontal:
        # pygal draws the first label at the bottom; reverse so the table order reads down
        shown, series = shown[::-1], {k: list(v)[::-1] for k, v in series.items()}
    chart = kind(
        **_config(
            title=title,
            show_legend=len(series) > 1,
            legend_at_bottom=True,
            x_label_rotation=40 if len(shown) > 10 and not horizontal else 0,
            # a month of days: label every 7th, so the labels never overlap
            x_labels_major_every=7 if len(shown) > 15 and not horizontal else None,
            show_minor_x_labels=len(shown) <= 15 or horizontal,
            height=max(HEIGHT, 26 * len(shown) + 90) if horizontal else HEIGHT,
        )
    )
    chart.x_labels = shown
    for key, values in series.items():
        chart.add(label(key), list(values))
    return _svg(chart, name)


def forest(name: str, title: str, rows: Sequence[dict[str, Any]]) -> str:
    """A forest plot: each row's point estimate (dot) with its 95% interval (line); blue
    rows saw lessons, red rows did not."""
    import pygal

    n = len(rows)
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
            title=title,
            style=style,
            height=max(HEIGHT, 30 * n + 110),
            show_y_guides=False,
            show_x_guides=True,
            show_minor_x_labels=False,
            x_labels_major_count=6,
            value_formatter=lambda v: f"{v:.3g}",
            dots_size=4,
        )
    )
    chart.y_labels = [
        {"label": label(f"{r['group']} {r['arm'].replace('_', ' ')}"), "value": n - i}
        for i, r in enumerate(rows)
    ]
    chart.range = (0, n + 1)
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
