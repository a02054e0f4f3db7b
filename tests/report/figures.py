"""Reading the figures a report page marks with `data-from`, and what the owning command's
JSON output says each one is (`kbkit.report.html.fig`)."""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, NamedTuple

from tests.conftest import PROJECT


class Figure(NamedTuple):
    owner: str
    path: tuple[Any, ...]
    text: str


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[Figure] = []
        self.open: list[tuple[list[Any], list[str]] | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        where = dict(attrs).get("data-from")
        self.open.append((json.loads(where), []) if where else None)

    def handle_endtag(self, tag: str) -> None:
        top = self.open.pop() if self.open else None
        if top is not None:
            owner, *path = top[0]
            self.figures.append(Figure(owner, tuple(path), "".join(top[1]).strip()))

    def handle_data(self, data: str) -> None:
        for item in self.open:
            if item is not None:
                item[1].append(data)


VOID = re.compile(r"<(meta|br|hr|img|input|link)\b[^>]*>", re.I)


def figures(page: str) -> list[Figure]:
    """Every marked figure, in page order."""
    collector = _Collector()
    collector.feed(VOID.sub("", page))
    return collector.figures


def command_json(*argv: str) -> dict[str, Any]:
    """A kb command's JSON output, as a user gets it (a real process)."""
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", *argv], capture_output=True, text=True, cwd=PROJECT,
        timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


def expected(documents: dict[str, dict[str, Any]], figure: Figure) -> Any:
    """The value the owning command's JSON gives for the figure's path."""
    doc = documents[figure.owner]
    if figure.owner == "check" and figure.path[0] in ("rule", "folder"):
        kind, name = figure.path
        if kind == "rule":
            return sum(1 for f in doc["findings"] if f["rule"] == name)
        return sum(1 for f in doc["findings"] if (posixpath.dirname(f["path"]) or ".") == name)
    if figure.owner == "intake" and figure.path[0] == "counts" and figure.path[2] != "*":
        return doc["counts"][figure.path[1]].get(figure.path[2], 0)  # the command omits zeros
    value: Any = doc
    for step in figure.path:
        if step == "*":
            return sum(value.values())
        value = value[step]
    return value


def agrees(text: str, value: Any) -> bool:
    """Does the page's text show `value`: integers and strings exactly, other numbers to the
    precision printed (`16.7%` for 0.1667, `0.26` for 0.260009)?"""
    if value is None:
        return text == "n/a"  # no estimate (an arm without a denominator)
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        shown = text.replace("+", "")
        percent = shown.endswith("%")
        digits = shown.rstrip("%")
        try:
            number = float(digits)
        except ValueError:
            return False
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        scale = 100 if percent else 1
        return abs(number - value * scale) <= 0.5 * 10**-decimals + 1e-9
    return text == str(value)


def documents_for(repo: Path, intake_repo: Path, lessons_repo: Path) -> dict[str, dict[str, Any]]:
    return {
        "check": command_json("check", "--repo", str(repo), "--format", "json"),
        "intake": command_json("intake", "status", "--repo", str(intake_repo), "--format", "json"),
        "lessons": command_json(
            "lessons", "report", "--repo", str(lessons_repo), "--format", "json"
        ),
    }
