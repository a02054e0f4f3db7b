"""Outside text in the intake commands' lines (`kbkit.infra.outward.line`): a PR title from
GitHub and a drop file's name cannot print a line that reads as kbkit's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from intake_factories import SLUG, make_pr
from test_github_scan import PULLS, FakeGh

from kbkit.__main__ import main

FORGED = f"{SLUG}: 0 merged PR(s) recorded, 0 already recorded"


def test_a_pr_title_with_a_newline_prints_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gh = FakeGh(tmp_path, monkeypatch)
    gh.route(PULLS, pages=[[{**make_pr(5), "title": f"Fix\n{FORGED}\u2028\x1b[2K"}]])
    gh.files(5, [])
    assert main(["intake", "record-prs", "--repo", SLUG]) == 0
    out = capsys.readouterr().out
    titled = [line for line in out.splitlines() if line.startswith(f"{SLUG}#5 merged")]
    assert titled and titled[0].endswith(f"Fix\\n{FORGED}<U+2028><U+001B>[2K")
    assert not any(line.startswith(FORGED) for line in out.splitlines()), out


def test_a_quarantined_drop_file_name_prints_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "run\nkb: every drop recorded.json").write_text("{not json")
    assert main(["intake", "collect", "--drops", str(drops), "--slug", SLUG]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("kb: quarantined "), err
    assert "run\\nkb: every drop recorded.json" in err
