"""Example trees under tests/cases/<checker>/{ok,bad}/<case>/, discovered by one test.

A case holds `repo/` (a small repository with knowledge/), and for bad cases `expected.txt`:
one `path:line: rule-id` per expected finding (all of them, nothing else may be reported).
An optional `case.yaml` may give `args: [...]` (extra CLI options) and `git: true` (the copy
becomes a git repository with every file added, `local/` included, before the check).
Every case runs with `--today 2026-11-30` on a copy in a temp folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kbkit.__main__ import main
from kbkit.checks.rules import all_rules

CASES = Path(__file__).resolve().parents[1] / "cases"
COMMAND_BY_CHECKER = {"knowledge-tree": "check-knowledge-tree", "wiki-lint": "check-wiki-lint"}


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in CASES.glob(f"*/{kind}/*") if p.is_dir())


def _run_case(
    case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[dict]]:
    config = (
        yaml.safe_load((case / "case.yaml").read_text()) if (case / "case.yaml").exists() else {}
    )
    repo = tmp_path / "repo"
    shutil.copytree(case / "repo", repo, symlinks=True)
    if config.get("git"):
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "add", "-A", "-f"], check=True)
    checker = case.parent.parent.name
    argv = [
        COMMAND_BY_CHECKER[checker],
        "--repo",
        str(repo),
        "--format",
        "json",
        "--today",
        "2026-11-30",
        *config.get("args", []),
    ]
    capsys.readouterr()
    code = main(argv)
    report = json.loads(capsys.readouterr().out)
    return code, report["findings"]


@pytest.mark.parametrize("case", _cases("ok"), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_ok_case_has_no_findings(
    case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, findings = _run_case(case, tmp_path, capsys)
    assert findings == []
    assert code == 0


@pytest.mark.parametrize("case", _cases("bad"), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_bad_case_reports_exactly_the_expected_findings(
    case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = [
        line.strip()
        for line in (case / "expected.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    code, findings = _run_case(case, tmp_path, capsys)
    got = [f"{f['path']}:{f['line']}: {f['rule']}" for f in findings]
    assert sorted(got) == sorted(expected)
    has_error = any(f["severity"] == "error" for f in findings)
    assert code == (1 if has_error else 0)


def test_every_rule_has_a_bad_case() -> None:
    covered = set()
    for case in _cases("bad"):
        for line in (case / "expected.txt").read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                covered.add(line.rsplit(" ", 1)[-1])
    missing = sorted(set(all_rules()) - covered)
    assert missing == [], f"rules without a bad case in tests/cases: {missing}"
