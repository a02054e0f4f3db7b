"""The page's building blocks: escaped text, figures that name the command they come from,
links, tables that stack on a narrow screen, bar tables and folded one-line sections.

Every figure a kbkit command also prints carries `data-from`: the command (`check` for
`kb check --format json`, `intake` for `kb intake status --format json`, `lessons` for
`kb lessons report --format json`) and the path of the value in its JSON, so a test can
hold each figure on the page to the command's own output.
"""

from __future__ import annotations

import html
import json
import os
import urllib.parse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.charset import visible


def esc(value: object) -> str:
    """Untrusted text for HTML: invisible characters shown as `<U+XXXX>`, then escaped."""
    return html.escape(visible(str(value)), quote=True) if value is not None else "—"


def number(value: float | None, rate: bool = False, signed: bool = False) -> str:
    """A figure as the page prints it: counts (int) as they are; measures as
    `kb lessons report` prints them: rates in percent with one decimal, others with two."""
    if value is None:
        return "n/a"
    if isinstance(value, float) and value == 0:
        value = 0.0  # never "-0.0%"
    if rate:
        return f"{value:+.1%}" if signed else f"{value:.1%}"
    if isinstance(value, int):
        return f"{value:+d}" if signed else f"{value}"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def fig(value: object, owner: str | None = None, *path: object, shown: str | None = None) -> str:
    """A figure; with `owner`, marked with the command and JSON path it comes from."""
    text = esc(shown if shown is not None else value)
    if owner is None:
        return f"<b>{text}</b>"
    where = html.escape(json.dumps([owner, *path], ensure_ascii=False), quote=True)
    return f'<b data-from="{where}">{text}</b>'


def link(url: str | None, text: object) -> str:
    """A link to a web page kbkit recorded (already checked to be https), or the text."""
    if not url or not url.startswith("https://"):
        return esc(text)
    return f'<a href="{esc(url)}" rel="noreferrer">{esc(text)}</a>'


class FileLinks(NamedTuple):
    """Links from the page to files kbkit wrote beside it (a shadow artifact's PR body):
    `base` is the folder the report's paths are relative to, `page` the page's folder."""

    base: Path
    page: Path

    def href(self, shown: str, name: str) -> str | None:
        """A relative, percent-encoded address of `base/shown/name` when that file exists (a
        relative path with `:` encoded can never be read as a scheme)."""
        target = self.base / shown / name
        if not target.is_file():
            return None
        return urllib.parse.quote(os.path.relpath(target, self.page).replace(os.sep, "/"))


def file_link(href: str | None, text: object) -> str:
    """A link to a file beside the page (`FileLinks.href`), or the text as code."""
    if href is None:
        return code(text)
    return f'<a href="{esc(href)}"><code>{esc(text)}</code></a>'


def code(text: object) -> str:
    return f"<code>{esc(text)}</code>"


class Cell(NamedTuple):
    """Markup already escaped, for a table cell (numbers align right)."""

    markup: str
    numeric: bool = False


def cell(value: object) -> Cell:
    if isinstance(value, Cell):
        return value
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    return Cell(esc(number(value) if isinstance(value, float) else value), numeric)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], *, css: str = "") -> str:
    """A table; on a narrow screen each row stacks into labelled lines (`data-label`)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for header, value in zip(headers, row, strict=True):
            c = cell(value)
            cls = ' class="n"' if c.numeric else ""
            cells.append(f'<td{cls} data-label="{esc(header)}">{c.markup}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table class="stack {css}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


class Mark(NamedTuple):
    """A limit drawn across a bar table (`near 16384 bytes` at 16384); `style` is `near`
    (dashed) or `split` (solid)."""

    label: str
    value: float
    style: str = "split"


def bars(
    headers: tuple[str, str],
    rows: Sequence[tuple[str, float, str]],
    *,
    marks: Sequence[Mark] = (),
    caption: str = "",
) -> str:
    """A ranked list as a table whose count column carries a bar: rows are (label markup,
    value, value markup). Labels wrap, never cut. The scale runs from 0 to the largest value
    or the largest mark, so a limit is always on the scale."""
    top = max([v for _, v, _ in rows] + [m.value for m in marks] + [1])
    body = []
    for label, value, shown in rows:
        width = 100 * value / top if top else 0
        lines = "".join(
            f'<i class="limit {m.style}" style="left:{100 * m.value / top:.2f}%"></i>'
            for m in marks
        )
        body.append(
            f'<tr><td data-label="{esc(headers[0])}">{label}</td>'
            f'<td class="bar" data-label="{esc(headers[1])}"><span class="track">'
            f'<span class="fill" style="width:{max(width, 0.5) if value else 0:.2f}%"></span>'
            f'{lines}</span><span class="v">{shown}</span></td></tr>'
        )
    legend = ""
    if marks:
        legend = (
            '<p class="marks">'
            + " · ".join(f'<i class="key {m.style}"></i>{esc(m.label)}' for m in marks)
            + "</p>"
        )
    head = f"<thead><tr><th>{esc(headers[0])}</th><th>{esc(headers[1])}</th></tr></thead>"
    cap = f"<caption>{caption}</caption>" if caption else ""
    return f'{legend}<table class="bars">{cap}{head}<tbody>{"".join(body)}</tbody></table>'


def folded(title: str, text: str) -> str:
    """An empty part of the page: one line that says so and why."""
    return f'<p class="folded"><b>{esc(title)}:</b> {text}</p>'


def source(text: str) -> str:
    return f'<p class="source">From <code>{esc(text)}</code></p>'


def as_markup(parts: Iterable[str]) -> str:
    return "\n".join(part for part in parts if part)


def attr(value: Any) -> str:
    return html.escape(str(value), quote=True)
