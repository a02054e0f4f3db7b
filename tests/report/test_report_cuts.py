"""`kb report`: every cut list says how many it leaves out, and `--all` lists them all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from tests.intake.intake_factories import make_pr, write_pages


@pytest.fixture
def busy(tmp_path: Path) -> Path:
    """A repository whose ledger got 60 merged PRs in the window, through the CLI."""
    repo = tmp_path / "repo"
    (repo / "knowledge").mkdir(parents=True)
    pulls = [make_pr(n) for n in range(1, 61)]
    write_pages(tmp_path / "pulls.json", [pulls])
    argv = ["intake", "record-prs", "--repo", str(repo), "--from", str(tmp_path / "pulls.json")]
    assert main(argv) == 0
    return repo


def test_the_event_lists_say_how_many_they_leave_out(
    busy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    capsys.readouterr()
    assert main(["report", "--repo", str(busy), "--format", "json"]) == 0
    cut = json.loads(capsys.readouterr().out)["intake"]
    assert cut["recorded_in_window"] == 60 and len(cut["arrived"]) == 50
    assert main(["report", "--repo", str(busy), "--format", "json", "--all"]) == 0
    whole = json.loads(capsys.readouterr().out)["intake"]
    assert len(whole["arrived"]) == 60
    assert main(["report", "--repo", str(busy), "--format", "markdown"]) == 0
    summary = capsys.readouterr().out
    assert "... and 40 more events not listed here; kb report --all lists every one." in summary
    page = tmp_path / "report.html"
    assert main(["report", "--repo", str(busy), "--out", str(page)]) == 0
    assert "... and 10 more events not listed here; kb report --all lists every one." in (
        page.read_text()
    )
    assert main(["report", "--repo", str(busy), "--out", str(page), "--all"]) == 0
    assert "more events not listed" not in page.read_text()


def test_a_whole_list_says_nothing_more() -> None:
    from kbkit.report import words

    assert words.left_out(50, 50, "event") == ""
    assert words.left_out(10, 11, "batch", "batches") == (
        "... and 1 more batch not listed here; kb report --all lists every one."
    )
    assert words.left_out(10, 12, "batch", "batches").startswith("... and 2 more batches")
