"""The pictures (README, docs/report.md) of the demo's report, at both widths (the report itself:
tests/distill/test_demo.py and tests/report/test_browser.py)."""

from __future__ import annotations

import struct

import pytest

from tests.conftest import PROJECT


@pytest.mark.parametrize(
    ("name", "size"), [("report-1400.png", (1400, 900)), ("report-400.png", (400, 860))]
)
def test_the_readme_shows_a_small_picture_at_each_width(name: str, size: tuple[int, int]) -> None:
    shot = PROJECT / "docs" / name
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == size  # the IHDR chunk: width, height
    assert len(data) < 300_000
    shown = (PROJECT / "README.md").read_text(encoding="utf-8")
    shown += (PROJECT / "docs" / "report.md").read_text(encoding="utf-8")
    assert f"(docs/{name})" in shown or f"({name})" in shown


def test_the_make_target_writes_both_pictures() -> None:
    makefile = (PROJECT / "Makefile").read_text(encoding="utf-8")
    assert "tools/report_screenshot.py docs" in makefile
    script = (PROJECT / "tools" / "report_screenshot.py").read_text(encoding="utf-8")
    assert 'SIZES = {"1400": (1400, 900), "400": (400, 860)}' in script
