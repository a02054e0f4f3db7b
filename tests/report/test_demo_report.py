"""The README's screenshot of the demo's report (the report itself: tests/distill/test_demo.py)."""

from __future__ import annotations

from tests.conftest import PROJECT


def test_the_readme_screenshot_is_small_and_present() -> None:
    shot = PROJECT / "docs" / "report.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size < 300_000
    assert "(docs/report.png)" in (PROJECT / "README.md").read_text(encoding="utf-8")
