"""`make report-screenshot`: the demo's report, photographed by headless chromium for the
README at both widths it is read at: `report-1400.png` (a desktop's first screen) and
`report-400.png` (a phone's).

A checkout-only script (not part of the package: the report never imports the demo). Needs
Debian's chromium and Playwright (a dev dependency); run with `KBKIT_NOW` pinned so the
pictures only change when the report does. The browser tests use the same `browser` and
`photograph`.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync",
         "--font-render-hinting=none"]  # fmt: skip
# (width, height) of each picture: the first screen at that width
SIZES = {"1400": (1400, 900), "400": (400, 860)}


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """Headless chromium with a fresh profile (Playwright's launch)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@contextlib.contextmanager
def opened(chromium: Any, html: Path, width: int, height: int) -> Iterator[Any]:
    """`html` in a new page of that viewport, JavaScript off (the page must read without it)."""
    context = chromium.new_context(
        viewport={"width": width, "height": height}, java_script_enabled=False,
        device_scale_factor=1,
    )  # fmt: skip
    try:
        page = context.new_page()
        page.goto(html.as_uri(), wait_until="load")
        yield page
    finally:
        context.close()


def photograph(chromium: Any, html: Path, png: Path, width: int, height: int) -> None:
    """The first screen of `html` at `width` x `height`, written to `png`."""
    with opened(chromium, html, width, height) as page:
        png.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(png))


def main(argv: list[str] | None = None) -> int:
    """Run the demo in a temporary folder and photograph its report at both widths."""
    from kbkit import demo

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python tools/report_screenshot.py OUT_FOLDER", file=sys.stderr)
        return 2
    out = Path(args[0])
    folder = Path(tempfile.mkdtemp(prefix="kbkit-demo-shot-"))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = demo.main(["--dir", str(folder)])
        if code != 0:
            print("the demo failed; run `make demo` to see why", file=sys.stderr)
            return code
        with browser() as chromium:
            for name, (width, height) in SIZES.items():
                png = out / f"report-{name}.png"
                photograph(chromium, folder / "report.html", png, width, height)
                print(f"wrote {png} ({png.stat().st_size // 1024} KB)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
