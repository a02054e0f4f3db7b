"""`kb report`: the numbers (json), the summary (markdown), the page (html), the window."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.commands import report as report_command
from tests.conftest import PROJECT
from tests.report.world import HOSTILE_FILE, build_world, load_json

TASK: dict[str, Any] = {
    "id": "T1",
    "status": "done",
    "company": "acme",
    "category": "web",
    "findings": [
        {"id": "F1", "status": "confirmed", "class": "sqli", "summary": "SQL injection in search"},
        {"id": "F2", "status": "false_positive", "class": "xss", "summary": "Reflected XSS"},
    ],
    "retests": [],
    "metrics": {"tokens": 1000, "tool_calls": 10},
}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return build_world(tmp_path / "repo", monkeypatch, TASK)


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kb report` as a user runs it: a real process."""
    return subprocess.run(
        [sys.executable, "-m", "kbkit", "report", "--repo", str(repo), *args],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )


def report_json(repo: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert report_command.main(["--repo", str(repo), "--format", "json", *args]) == 0
    return load_json(capsys.readouterr().out)


def test_json_has_every_section_with_its_numbers_and_sources(world: Path, capsys) -> None:
    data = report_json(world, capsys=capsys)
    assert data["version"] == 1
    assert data["window"]["since"] == "2026-11-01" and data["window"]["until"] == "2026-11-30"
    tree = data["tree"]
    assert tree["pages"] == 5
    assert tree["age"]["stale_pages"] == 1 and tree["age"]["buckets"][-1]["pages"] == 1
    assert tree["orphans"]["count"] == 1 and HOSTILE_FILE in tree["orphans"]["pages"][0]
    assert tree["links"]["broken"] == 1  # guides/_index.md links missing.md
    rules = {r["rule"]: r["count"] for r in tree["findings"]["by_rule"]}
    assert rules["lint/stale"] == 1 and rules["tree/link-broken"] == 1
    assert tree["largest"]["pages"][0]["path"] == "knowledge/general/guides/old.md"
    assert tree["baseline"] is None
    intake = data["intake"]
    assert intake["events"] == 4 and intake["recorded_in_window"] == 3  # #4 is from October
    per_day = {d["day"]: d["merged_pr"] for d in intake["per_day"]}
    assert per_day["2026-11-28"] == 2 and per_day["2026-11-29"] == 1
    assert intake["states"] == {"pending": 1, "published": 2, "shadowed": 0, "failed": 1}
    assert intake["oldest_pending"]["key"] == ["merged_pr", "kbkit-dev/kbkit#4"]
    assert intake["attempts"] == {"0": 1, "1": 2, "3": 1}
    assert intake["cursor"][0]["repo"] == "kbkit-dev/kbkit"
    curator = data["curator"]
    assert curator["totals"]["batches"] == 1
    batch = curator["batches"][0]
    assert (batch["accepted"], batch["rejected"], batch["pages_touched"]) == (1, 2, 1)
    assert batch["gate"] == "passed" and batch["state"] == "published"
    assert batch["pr"] == "https://github.com/kbkit-dev/kbkit/pull/99"
    lessons = data["lessons"]
    assert lessons["lessons"] >= 1 and sum(lessons["by_kind"].values()) == lessons["lessons"]
    assert lessons["usage_by_mode"] == {"inject": 1}
    assert lessons["comparison"]["tasks"] == 1
    # the lessons store's own helpful/harmful signal (kbkit.lessons.signal), never "not provided"
    assert isinstance(lessons["signals"], list)
    for section in ("tree", "intake", "curator", "lessons"):
        assert data[section]["source"], section  # every section names its files
    assert "intake/events.jsonl" in intake["source"]
    assert "state/artifacts/knowledge-intake" in curator["source"]


def test_window_limits_per_day_figures_and_batches(world: Path, capsys) -> None:
    data = report_json(world, "--since", "2026-11-29", "--until", "2026-11-29", capsys=capsys)
    assert [d["day"] for d in data["intake"]["per_day"]] == ["2026-11-29"]
    assert data["intake"]["recorded_in_window"] == 1
    assert data["curator"]["totals"]["batches"] == 0  # the batch is from the 30th
    data = report_json(world, "--since", "2026-09-01", capsys=capsys)
    assert data["intake"]["recorded_in_window"] == 4


def test_default_window_follows_the_pinned_clock(world: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("KBKIT_NOW", "2027-01-15T00:00:00Z")
    data = report_json(world, capsys=capsys)
    assert data["window"]["until"] == "2027-01-15" and data["window"]["since"] == "2026-12-17"
    assert data["intake"]["recorded_in_window"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ("--since", "2026-13-01"),
        ("--until", "yesterday"),
        ("--since", "2026-11-30", "--until", "2026-11-01"),
    ],
)
def test_a_bad_window_is_a_usage_error(world: Path, args: tuple[str, ...]) -> None:
    done = run(world, *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_markdown_has_headline_figures_and_inert_hostile_text(world: Path) -> None:
    done = run(world, "--format", "markdown")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "- **Tree**: 5 pages" in text and "2 published" in text
    assert (
        "| 2026-11-30T100000Z-abcdef12 | 1 | 2 | 1 | passed | https://github.com/kbkit-dev/kbkit/pull/99 |"
        in text
    )
    assert "<script>" not in text and "\x1b" not in text


def test_html_is_self_contained_and_escapes_hostile_names(world: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.html"
    done = run(world, "--out", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()  # no script at all: readable with JavaScript off
    assert "\x1b" not in page and "&lt;U+001B&gt;" in page  # ESC shown, never sent
    assert "&lt;script&gt;" in page  # the hostile page name and reason are shown, escaped
    # nothing is fetched: no external resource, stylesheet or font
    assert not re.search(r"""(src|href)\s*=|<link|@import|url\(""", page, re.I)
    assert page.count("<svg") == len(re.findall(r'<figure class="chart">', page)) == 14


def test_an_unwritable_out_file_is_an_environment_error(world: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run(world, "--out", str(blocker / "report.html"))
    assert done.returncode == 4
    assert "report.html" in done.stderr and "Traceback" not in done.stderr


def test_an_empty_repository_reports_zeros(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty" / "knowledge").mkdir(parents=True)
    data = report_json(tmp_path / "empty", capsys=capsys)
    assert data["tree"]["pages"] == 0 and data["intake"]["events"] == 0
    assert data["curator"]["totals"]["batches"] == 0 and data["lessons"]["lessons"] == 0


def test_an_unusable_outcome_card_leaves_the_rest_of_the_report(world: Path, capsys) -> None:
    from kbkit.infra.jsonl import append_rows

    log = world / "intake" / "lessons" / "outcomes.jsonl"
    append_rows(log, [{"task": "T9", "card": {"task": "T9"}, "at": "2026-11-30T00:00:00Z"}])
    data = report_json(world, capsys=capsys)
    comparison = data["lessons"]["comparison"]
    assert "outcomes.jsonl: unusable outcome card" in comparison["error"]
    assert comparison["rows"] == [] and data["lessons"]["lessons"] >= 1


def test_the_forked_reads_give_the_same_report_as_a_serial_run(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbkit.infra.paths import intake_root, state_root
    from kbkit.report import assemble
    from kbkit.report.window import make_window

    read_here: list[int] = []  # appends made in the child never reach this list
    read_logs = assemble._read_logs

    def counted(*args: Any) -> dict[str, Any]:
        read_here.append(1)
        return read_logs(*args)

    monkeypatch.setattr(assemble, "_read_logs", counted)
    sources = assemble.Sources(world, intake_root(world), state_root(world))
    window = make_window(None, None)
    forked = assemble.build(sources, window, fork=True)
    assert read_here == []  # the child's result was used (marshal took every value)
    assert forked == assemble.build(sources, window, fork=False)
    assert forked["lessons"]["lessons"] and forked["intake"]["events"] == 4
