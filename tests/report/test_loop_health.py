"""The first screen leads with problems (#40 point 3): loop health, then what waits on the
lead, then what came in and was decided, then the tree and lessons. A healthy loop says so
in one line; nothing is green while an event is failed or pending past the limit. The
loops are built by the commands (tests/report/loops.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kbkit.__main__ import main
from tests.report.loops import NOW, clock, healthy_loop, sick_loop

pytestmark = pytest.mark.slow  # two distill runs against real git repositories


def report(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    with clock(NOW):
        assert main(["report", "--repo", str(repo), *argv]) == 0
    return capsys.readouterr().out


def first_screen(page: str) -> str:
    return page.split('<section class="answers"', 1)[1].split("</section>", 1)[0]


def test_a_sick_loop_leads_with_its_problems_and_nothing_is_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = sick_loop(tmp_path)
    loop = json.loads(report(repo, capsys, "--format", "json"))["loop"]
    assert loop["level"] == "bad"
    assert (loop["failed_events"], loop["failed_at_cap"], loop["refused_batches"]) == (2, 2, 1)
    assert loop["oldest_pending_days"] == 87 and loop["last_success"] is None
    [refused] = loop["waiting"]["refused_batches"]
    assert refused["reasons"] and refused["day"] == "2026-11-30"
    screen = first_screen(report(repo, capsys, "--format", "html"))
    questions = re.findall(r"<h2>(.*?)</h2>", screen)
    assert questions[:3] == ["Is the loop healthy?", "What waits on you?",
                             "What came in, and what was decided?"]  # fmt: skip
    assert "Healthy: no findings on 2 pages" in screen  # the tree is clean ...
    assert 'class="answer good' not in screen  # ... and still not green
    assert "Sick: 2 failed events (2 at the attempt cap); the oldest pending event has waited 87 days" in screen  # fmt: skip
    assert "Waiting on you: 1 refused batch, 2 failed events" in screen
    summary = report(repo, capsys)
    assert summary.splitlines()[2].startswith("- **Loop**: Sick: 2 failed events")
    assert "1 refused batch(es)" in summary.splitlines()[3]


def test_a_healthy_loop_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = healthy_loop(tmp_path)
    loop = json.loads(report(repo, capsys, "--format", "json"))["loop"]
    assert loop["level"] == "good" and loop["last_success"].startswith("2026-11-30")
    screen = first_screen(report(repo, capsys, "--format", "html"))
    health = screen.split("</article>")[0]
    assert 'class="answer good wide"' in health and "<ul>" not in health
    assert re.search(r'<p class="verdict">Healthy: nothing failed, nothing refused, nothing '
                     r"pending over 7 days; last successful run 2026-11-30</p>", health)  # fmt: skip
    assert "Nothing waits on you" in screen
