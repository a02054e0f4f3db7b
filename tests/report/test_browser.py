"""The report in a real browser: Debian's chromium, headless, driven by Playwright, at a
desktop's 1400 px and a phone's 400 px, on the test world, the demo, a newcomer's tree and
an empty one. JavaScript is off: the page must read without it."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROJECT
from tests.report.conftest import Case

pytestmark = pytest.mark.slow  # make test-all: headless chromium

CHROMIUM = Path("/usr/bin/chromium")
ENABLE = (
    "install it with `apt-get update && apt-get install -y chromium` (`.ci/run` does) "
    "and `make setup` for Playwright"
)
MIN_CONTRAST = 4.5  # WCAG AA for normal text
WIDTHS = (400, 1400)
HEIGHT = {400: 860, 1400: 900}

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
# Every element wider than the viewport or reaching past its right edge, by tag and class.
OVERFLOW_JS = """
() => { const w = document.documentElement.clientWidth; const out = [];
  for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
    if (r.width && r.right > w + 0.5) out.push(el.tagName + '.' + (el.getAttribute('class') || '') + ' ' + Math.round(r.right)); }
  return out.slice(0, 10); }
"""


def _shots() -> Any:
    """tools/report_screenshot.py: the browser and camera `make report-screenshot` uses."""
    spec = importlib.util.spec_from_file_location(
        "report_screenshot", PROJECT / "tools" / "report_screenshot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed: {ENABLE}")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip(f"playwright is not installed: {ENABLE}")
    with _shots().browser() as launched:
        yield launched


def _look(chromium: Any, case: Case, width: int, shot: Path) -> dict[str, Any]:
    """Open the page at `width`, photograph its first screen, and measure it."""
    messages: list[str] = []
    requests: list[str] = []
    shots = _shots()
    with shots.opened(chromium, case.html, width, HEIGHT[width]) as page:
        page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
        page.on("request", lambda r: requests.append(r.url))
        page.reload(wait_until="load")  # the listeners see the whole load
        page.screenshot(path=str(shot))
        answers = page.locator("article.answer h2")
        return {
            "messages": messages,
            "requests": requests,
            "scroll": page.evaluate(
                "[document.documentElement.scrollWidth, document.body.scrollWidth]"
            ),
            "viewport": page.evaluate("document.documentElement.clientWidth"),
            "overflow": page.evaluate(OVERFLOW_JS),
            "answers": [
                (answers.nth(n).inner_text(), answers.nth(n).bounding_box())
                for n in range(answers.count())
            ],
            "sections": page.locator("section.part > h2").all_inner_texts(),
            "charts": [
                page.locator("figure.chart svg").nth(n).bounding_box()
                for n in range(page.locator("figure.chart svg").count())
            ],  # fmt: skip
            "folded": page.locator("p.folded").count(),
            "contrast": page.evaluate(CONTRAST_JS) if width == 1400 else [],
            "csp": page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute(
                "content"
            ),
        }


QUESTIONS = [
    "Is the loop healthy?",
    "What waits on you?",
    "What came in, and what was decided?",
    "Is the tree healthy, and getting better?",
    "Are lessons helping?",
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["world", "demo", "newcomer", "empty", "randomised"])
def test_the_page_reads_at_both_widths_without_scrolling_sideways(
    chromium: Any, report_cases: dict[str, Case], name: str, width: int, tmp_path: Path
) -> None:
    case = report_cases[name]
    shot = tmp_path / f"{name}-{width}.png"
    seen = _look(chromium, case, width, shot)
    assert not [m for m in seen["messages"] if m.startswith(("error", "pageerror"))], seen[
        "messages"
    ]
    assert seen["requests"] == [case.html.as_uri()]  # nothing fetched but the page itself
    assert seen["csp"] is not None and seen["csp"].startswith("default-src 'none'")
    assert seen["viewport"] == width
    assert max(seen["scroll"]) <= width, seen["overflow"]  # no horizontal scroll
    assert not seen["overflow"]
    for box in seen["charts"]:
        assert box is not None and box["width"] > 0 and box["x"] + box["width"] <= width
    assert seen["sections"] == ["Tree health", "Intake", "Curator and publication", "Lessons"]
    # the five questions, in order; all five on a desktop's first screen, the first on a phone's
    texts = [text for text, _ in seen["answers"]]
    assert len(texts) == 5 and all(t.startswith(q) for t, q in zip(texts, QUESTIONS, strict=True))
    visible = [box["y"] + box["height"] <= HEIGHT[width] for _, box in seen["answers"]]
    assert visible[0] and (all(visible) if width == 1400 else True), seen["answers"]
    assert shot.stat().st_size > 10_000
    if width == 1400:
        low = [c for c in seen["contrast"] if c["ratio"] < MIN_CONTRAST]
        assert len(seen["contrast"]) > 20 and not low, low[:5]


def test_an_empty_tree_folds_every_empty_part_to_one_line(
    chromium: Any, report_cases: dict[str, Case], tmp_path: Path
) -> None:
    seen = _look(chromium, report_cases["empty"], 1400, tmp_path / "empty.png")
    assert seen["charts"] == []  # no empty axes
    assert seen["folded"] == 4  # tree, intake, curator, lessons: one line each
    page = report_cases["empty"].page
    assert "No data" not in page and "<svg" not in page


def test_the_contrast_measure_can_fail(chromium: Any, tmp_path: Path) -> None:
    """Grey on white, as HTML and as SVG text: the measure itself reports it."""
    page_file = tmp_path / "grey.html"
    page_file.write_text(
        "<p style='color:#bbb'>low</p><svg><text x='5' y='20' fill='#ddd'>low</text></svg>"
    )
    with _shots().opened(chromium, page_file, 400, 300) as page:
        control = page.evaluate(CONTRAST_JS)
        assert [c["ratio"] < 2 for c in control] == [True, True]
        page.set_content("<div style='width:900px'>wide</div>")
        assert page.evaluate("document.documentElement.scrollWidth") > 400  # and overflow shows


@pytest.fixture(scope="module")
def loops(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The report pages of a sick loop and a healthy one (tests/report/loops.py)."""
    from kbkit.__main__ import main
    from tests.report.loops import NOW, clock, healthy_loop, sick_loop

    top = tmp_path_factory.mktemp("loops")
    pages = {}
    for name, build in (("sick", sick_loop), ("healthy", healthy_loop)):
        repo = build(top)
        pages[name] = top / f"{name}.html"
        with clock(NOW):
            assert main(["report", "--repo", str(repo), "--out", str(pages[name])]) == 0
    return pages


GREEN = "rgb(26, 127, 55)"  # .answer.good's border
CARDS_JS = """
() => [...document.querySelectorAll('article.answer')].map(a => { const r = a.getBoundingClientRect();
  return {question: a.querySelector('h2').innerText, verdict: a.querySelector('.verdict').innerText,
          border: getComputedStyle(a).borderLeftColor, top: r.top, height: r.height,
          verdictTop: a.querySelector('.verdict').getBoundingClientRect().top}; })
"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["sick", "healthy"])
def test_the_first_screen_leads_with_the_loops_health(
    chromium: Any, loops: dict[str, Path], name: str, width: int, tmp_path: Path
) -> None:
    """#40 point 3 in a real browser: the loop's health is the first thing on the screen at
    both widths; a sick loop shows no green card, a healthy one says so in one line."""
    with _shots().opened(chromium, loops[name], width, HEIGHT[width]) as page:
        page.screenshot(path=str(tmp_path / f"{name}-{width}.png"))
        cards = page.evaluate(CARDS_JS)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        overflow = page.evaluate(OVERFLOW_JS)
    assert scroll <= width and not overflow, overflow
    assert [c["question"] for c in cards] == [q.rstrip() for q in QUESTIONS]
    health, waiting = cards[0], cards[1]
    assert health["verdictTop"] < HEIGHT[width] / 2  # read before anything else
    if width == 1400:
        assert all(c["top"] + 40 <= HEIGHT[width] for c in cards), cards  # every answer shows
    if name == "sick":
        assert health["verdict"].startswith("Sick: 2 failed events")
        assert "87 days" in health["verdict"]
        assert waiting["verdict"] == "Waiting on you: 1 refused batch, 2 failed events"
        assert waiting["top"] < HEIGHT[width]  # on the first screen of a phone too
        assert [c["question"] for c in cards if c["border"] == GREEN] == []
    else:
        assert health["verdict"].startswith("Healthy: nothing failed")
        assert health["border"] == GREEN
        line = 60 if width == 1400 else 200  # one line across a desktop; a few on a phone
        assert health["height"] < line, health
        assert waiting["verdict"] == "Nothing waits on you"
