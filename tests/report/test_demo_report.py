"""`make demo` ends by writing the demo run's report and printing its path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import PROJECT


def test_demo_writes_its_report_and_prints_the_path(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-m", "kbkit.demo", "--dir", str(work)],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-2]  # before "done in N s"
    assert last.startswith("== report: ")
    path = Path(last.split()[2])
    assert path == work / "report.html"
    page = path.read_text(encoding="utf-8")
    assert "2026-11-30T" in page and "Curator and publication" in page
    assert "rule-id-taken" in page  # the demo's rejected proposal, by reason
    assert page.count('<figure class="chart">') == 14


def test_the_readme_screenshot_is_small_and_present() -> None:
    shot = PROJECT / "docs" / "report.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size < 300_000
    assert "(docs/report.png)" in (PROJECT / "README.md").read_text(encoding="utf-8")
