"""`make report-screenshot`: the demo's report, photographed by headless chromium for the README.

A checkout-only script (not part of the package: the report never imports the demo). Needs
Debian's chromium and Playwright (a dev dependency); run with `KBKIT_NOW` pinned so the
picture only changes when the report does.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync"]  # fmt: skip
WIDTH, HEIGHT = 1200, 1500  # the top of the page: headline figures and the first charts


def photograph(html: Path, png: Path) -> None:
    """A viewport screenshot of `html` (JavaScript off, fresh profile) written to `png`."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kbkit-shot-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            java_script_enabled=False,
            viewport={"width": WIDTH, "height": HEIGHT},
        )
        try:
            page = context.new_page()
            page.goto(html.as_uri(), wait_until="load")
            png.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(png))
        finally:
            context.close()


def main(argv: list[str] | None = None) -> int:
    """Run the demo in a temporary folder and photograph its report."""
    from kbkit import demo

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python tools/report_screenshot.py OUT.png", file=sys.stderr)
        return 2
    # a fixed folder, so the path the report shows (and so the picture) does not change
    folder = Path(tempfile.gettempdir()) / "kbkit-demo"
    shutil.rmtree(folder, ignore_errors=True)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = demo.main(["--dir", str(folder)])
        if code != 0:
            print("the demo failed; run `make demo` to see why", file=sys.stderr)
            return code
        photograph(folder / "report.html", Path(args[0]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    size = Path(args[0]).stat().st_size
    print(f"wrote {args[0]} ({size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
