"""The baseline: known findings stay quiet, new ones fail, fixed ones are listed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.checks.baseline import fingerprints
from kbkit.rulebook.findings import ERROR, Finding

CASE = Path(__file__).resolve().parents[1] / "cases/knowledge-tree/bad/secret-ip/repo"
PAGE = "knowledge/general/page.md"
TREE = "check-knowledge-tree"  # the case tree has no frontmatter: lint would add its own


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo)
    return repo


def kb(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> tuple[int, dict]:
    code, out, _ = kb(capsys, TREE, "--repo", str(repo), "--format", "json", *extra)
    return code, json.loads(out)


def test_fingerprints_ignore_line_moves_but_not_the_offending_text(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# P\n\nhost 10.1.2.3\n")
    finding = Finding("p.md", 3, "tree/secret-ip", ERROR, "10.1.2.3 on line 3")
    before = fingerprints([finding], tmp_path)
    page.write_text("# P\n\nnew paragraph\n\nmore\n\nhost 10.1.2.3\n")
    moved = finding._replace(line=7, message="10.1.2.3 on line 7")
    assert fingerprints([moved], tmp_path) == before
    page.write_text("# P\n\nhost 10.1.2.4\n")
    assert fingerprints([finding], tmp_path) != before
    # two identical problems are two entries (an occurrence index tells them apart)
    twice = fingerprints([finding, finding], tmp_path)
    assert len(set(twice)) == 2 and twice[0] == fingerprints([finding], tmp_path)[0]


def test_only_new_findings_fail_and_fixed_ones_are_removable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path)
    code, report = check_json(capsys, repo)
    assert code == 1 and len(report["findings"]) == 3
    code, _, err = kb(capsys, TREE, "--repo", str(repo), "--write-baseline")
    assert code == 0 and "recorded 3 finding(s)" in err
    written = repo / "knowledge/baseline.json"  # beside the (built-in) policy's root
    assert {row["rule"] for row in json.loads(written.read_text())["findings"]} == {
        "tree/secret-ip"
    }
    code, report = check_json(capsys, repo)
    assert (code, report["findings"], report["baseline"]["known"]) == (0, [], 3)
    # lines inserted above the known findings: still known
    page = repo / PAGE
    text = page.read_text()
    page.write_text(text.replace("# Page\n", "# Page\n\nIntro.\n\nMore intro.\n", 1))
    code, report = check_json(capsys, repo)
    assert (code, report["findings"]) == (0, [])
    # a new secret fails alone; a fixed one is listed as removable
    page.write_text(
        page.read_text().replace("ssh root@10.20.30.40", "ssh root@example.org")
        + "\nBackup at 10.9.8.7.\n"
    )
    code, report = check_json(capsys, repo)
    assert code == 1
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [(PAGE, "tree/secret-ip")]
    assert "10.9.8.7" in report["findings"][0]["message"]
    assert [row["rule"] for row in report["baseline"]["fixed"]] == ["tree/secret-ip"]
    assert report["baseline"]["known"] == 2
    code, out, _ = kb(capsys, TREE, "--repo", str(repo))
    assert "2 known finding(s) not shown, 1 fixed" in out


def test_a_chosen_baseline_file_and_a_broken_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path)
    chosen = tmp_path / "elsewhere.json"
    assert (
        kb(capsys, TREE, "--repo", str(repo), "--write-baseline", "--baseline", str(chosen))[0] == 0
    )
    assert not (repo / "knowledge/baseline.json").exists()
    assert check_json(capsys, repo, "--baseline", str(chosen))[0] == 0
    assert check_json(capsys, repo)[0] == 1  # no baseline beside the policy
    chosen.write_text('{"version": 1, "findings": [{"rule": 1}]}')
    code, _, err = kb(capsys, TREE, "--repo", str(repo), "--baseline", str(chosen))
    assert code == 2 and "elsewhere.json: findings[0]" in err
    code, _, err = kb(
        capsys, "check", "--repo", str(repo), "--baseline", str(tmp_path / "none.json")
    )
    assert code == 2 and "none.json: cannot read the baseline" in err


def test_one_validator_rewrites_only_its_own_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path)
    assert kb(capsys, "check", "--repo", str(repo), "--write-baseline")[0] == 0
    assert kb(capsys, "check-wiki-lint", "--repo", str(repo), "--write-baseline")[0] == 0
    rows = json.loads((repo / "knowledge/baseline.json").read_text())["findings"]
    assert sum(row["rule"] == "tree/secret-ip" for row in rows) == 3
    code, out, _ = kb(capsys, "check", "--repo", str(repo), "--format", "json")
    report = json.loads(out)
    assert (code, report["findings"], report["baseline"]["fixed"]) == (0, [], [])
