"""Astro Starlight (withastro/docs, not seen before: init chose `i18n-guides/`, 11 pages,
beside 2,569 `.mdx` pages in `src/content/docs/`): the docs folder, `.mdx` read, pages served
at their path with a trailing slash, a language's missing page served from the default
language's, `public/` served at the site's root. No Astro build runs here: the fixture's
verdicts are Starlight's documented routing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.sites import detect_site

CONFIG = """import { defineConfig } from 'astro/config';
import starlight from '@astrojs/starlight';
export default defineConfig({
  integrations: [starlight({ title: 'Docs', defaultLocale: 'en', locales: {} })],
});
"""


def starlight_site(repo: Path) -> Path:
    docs = repo / "src" / "content" / "docs"
    for rel, text in {
        "en/index.mdx": "---\ntitle: Home\n---\n\n[Guide](/en/guides/start/) and [a part](/en/guides/start/#first-steps)\n",
        "en/guides/start.mdx": "---\ntitle: Start\n---\nimport { Tabs, TabItem } from '@astrojs/starlight/components';\n\n"
        '<Tabs>\n  <TabItem label="a">\n  \t```sh\n    npm create astro\n  ```\n  </TabItem>\n</Tabs>\n\n'
        "## First steps\n\n[home](../../) [shot](/img/shot.png) [gone](/en/guides/gone/) [nope](#nope)\n",
        "de/index.mdx": "---\ntitle: Start\n---\n\n[Anleitung](/de/guides/start/)\n",
        "en/guides/extra.md": "---\ntitle: Extra\n---\n\n[Start](../start/)\n",
    }.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    (repo / "public" / "img").mkdir(parents=True)
    (repo / "public" / "img" / "shot.png").write_bytes(b"png")
    (repo / "i18n-guides").mkdir()
    for name in ("a", "b", "c"):
        (repo / "i18n-guides" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    (repo / "astro.config.mjs").write_text(CONFIG, encoding="utf-8")
    return repo


def test_a_starlight_site_is_its_docs_folder(tmp_path: Path) -> None:
    site = detect_site(starlight_site(tmp_path))
    assert site is not None and site.generator == "Astro Starlight"
    assert site.root == "src/content/docs"
    assert site.keys["links"]["url_map"] == {"/de/": ["de", "en"], "/en/": "en"}


@pytest.mark.slow
def test_init_alone_reads_it_as_starlight_serves_it(tmp_path: Path) -> None:
    repo = starlight_site(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    done = subprocess.run([*kb, "init"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Astro Starlight" in done.stdout and "4 page(s)" in done.stdout
    checked = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=repo, capture_output=True, text=True
    )
    found = {(r["path"], r["rule"], r["line"]) for r in json.loads(checked.stdout)["findings"]}
    # the German start page falls back to the English one; the tab's fence (a tab indent)
    # closes, so the heading after it is an anchor; only the missing page and id remain
    page = "src/content/docs/en/guides/start.mdx"
    assert found == {(page, "tree/link-broken", 16), (page, "tree/link-anchor", 16)}
