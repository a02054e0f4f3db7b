"""The report lists what agents are told now (#40 point 6): the demo's lessons, each with
its support, on the demo's own report; built by `make demo`'s code path."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import PROJECT
from tests.report.conftest import Case

pytestmark = pytest.mark.slow  # the demo runs the whole pipeline


def test_the_demos_report_lists_every_lesson_agents_are_told(report_cases: dict[str, Case]) -> None:
    demo = report_cases["demo"]
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "lessons", "list", "--format", "json",
         "--repo", str(demo.lessons_repo)],
        capture_output=True, text=True, cwd=PROJECT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    told = {t["id"]: t for t in json.loads(done.stdout)["lessons"]}
    usage = demo.lessons_repo / "intake" / "lessons" / "usage.jsonl"
    [injected] = [r["lessons"] for r in map(json.loads, usage.open()) if r["mode"] == "inject"]
    # the demo's inject bundle showed T-200-b five lines: six lessons (one line holds a
    # finding's confirmed and reproduced lessons together)
    assert len(injected) == 6
    assert f'id="told">What agents are told now ({len(told)} lessons' in demo.page
    assert "6 lessons were injected into 1 task" in demo.page
    rows = demo.page.split('id="told"')[1].split("</table>")[0].split("<tr>")[2:]
    for lesson in injected:
        [row] = [r for r in rows if lesson in r]
        assert f"support {told[lesson]['support']}]" in row and ">1 task" in row
    assert sum(">1 task" in r for r in rows) == 6
