"""The report in a real browser: Debian's chromium, headless, driven by Playwright."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kbkit.commands import report as report_command
from tests.report.test_report import TASK
from tests.report.world import build_world

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ENABLE = (
    "install it with `apt-get update && apt-get install -y chromium` (`.ci/run` does) "
    "and `make setup` for Playwright"
)
MIN_CONTRAST = 4.5  # WCAG AA for normal text

# For every element that shows text (HTML text nodes and SVG <text>), its text colour and
# the first opaque background behind it, from computed styles. Colours are rgb()/rgba().
CONTRAST_JS = """
() => {
  const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = el => { for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor); if (c && c[3] === 1) return c; } return [255, 255, 255, 1]; };
  const out = [];
  const els = document.querySelectorAll('body *');
  for (const el of els) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none' || +st.opacity === 0) continue;
    const r = el.getBoundingClientRect(); if (!r.width || !r.height) continue;
    const isSvg = el instanceof SVGElement;
    const fg = parse(isSvg ? st.fill : st.color); if (!fg) continue;
    const alpha = fg[3] * (isSvg ? +st.fillOpacity : 1) * +st.opacity;
    const bg = background(el);
    const mixed = [0, 1, 2].map(i => fg[i] * alpha + bg[i] * (1 - alpha));
    const [a, b] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    out.push({text: el.textContent.trim().slice(0, 40), ratio: (a + 0.05) / (b + 0.05)});
  }
  return out;
}
"""


def _playwright() -> Any:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed: {ENABLE}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(f"playwright is not installed: {ENABLE}")
    return sync_playwright


def test_report_in_headless_chromium(tmp_path: Path, monkeypatch, capsys) -> None:
    sync_playwright = _playwright()
    repo = build_world(tmp_path / "repo", monkeypatch, TASK)
    out = tmp_path / "report.html"
    assert report_command.main(["--repo", str(repo), "--out", str(out)]) == 0
    capsys.readouterr()
    messages: list[str] = []
    requests: list[str] = []
    profile = tmp_path / "profile"  # a fresh user-data dir
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            java_script_enabled=False,  # the page must read without it
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = context.new_page()
            page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(out.as_uri(), wait_until="load")
            charts = page.locator("figure.chart svg")
            assert charts.count() == 14
            for n in range(charts.count()):
                box = charts.nth(n).bounding_box()
                assert box is not None and box["width"] > 0 and box["height"] > 0, n
            assert page.locator("h2").all_inner_texts() == [
                "Tree health",
                "Intake funnel",
                "Curator and publication",
                "Lessons",
            ]
            assert "<script>" in page.locator("body").inner_text()  # hostile text, as text
            contrast = page.evaluate(CONTRAST_JS)
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
            # the measure itself can fail: grey on white, as HTML and as SVG text
            page.set_content(
                "<p style='color:#bbb'>low</p><svg><text x='5' y='20' fill='#ddd'>low</text></svg>"
            )
            control = page.evaluate(CONTRAST_JS)
        finally:
            context.close()
    assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
    assert requests == [out.as_uri()]  # nothing fetched but the page itself
    assert len(contrast) > 50
    low = [c for c in contrast if c["ratio"] < MIN_CONTRAST]
    assert not low, low[:5]
    assert [c["ratio"] < 2 for c in control] == [True, True]
    assert shot.stat().st_size > 10_000
    shutil.copy(shot, tmp_path / "kept.png")  # the screenshot stays in the test's tmp dir
