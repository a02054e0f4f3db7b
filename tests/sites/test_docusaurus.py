"""Docusaurus as Docusaurus builds it: the configuration found at the top or in `website/`
(read as text, never run), `.mdx` pages read as markdown, file links from the file, URL
links from the page's URL (`/docs/a/b`, no trailing slash), slugs, ids and number prefixes,
static files and versions. The real Docusaurus (npm, installed by .ci/run) is the oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.checks.link_model import LinkModel, served_folder, served_path
from kbkit.pages.mdx import markdown_lines
from kbkit.pages.page import parse_page
from kbkit.sites import detect_site
from tests.sites.oracle import (
    DOCUSAURUS_BIN,
    disagreements,
    docusaurus_report,
    docusaurus_verdicts,
    init_copy,
    kbkit_flagged,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SITE = FIXTURES / "docusaurus-site"
FOLDER_PAGES = ("index.md", "index.mdx", "README.md", "README.mdx", "readme.md", "readme.mdx")


def url_model(**changes: Any) -> LinkModel:
    model = LinkModel(
        None,
        (),
        False,
        (),
        url_map=(("/docs/", ("",)),),
        from_url=True,
        folder_pages=FOLDER_PAGES,
        trailing_slash=False,
        url_key="slug",
        url_id_key="id",
        number_prefixes=True,
        folder_named=True,
    )
    return model._replace(**changes)


# --- detection -------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_config_at_the_top_gives_docs_served_under_docs(tmp_path: Path) -> None:
    write(tmp_path / "docusaurus.config.ts", "export default {presets: [['classic', {}]]};\n")
    write(tmp_path / "docs/intro.md", "# Intro\n")
    write(tmp_path / "static/img/logo.png", "png")
    write(tmp_path / "static/favicon.ico", "ico")
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "Docusaurus"
    assert (site.config, site.root, site.profile) == ("docusaurus.config.ts", "docs", "docusaurus")
    assert site.keys["pages"] == {"extensions": [".md", ".mdx"]}
    assert site.keys["links"] == {
        "url_map": {
            "/docs/": ".",
            "/favicon.ico/": "../static/favicon.ico",
            "/img/": "../static/img",
        },
        "site_files": ["../static"],
    }


def test_a_config_in_website_names_the_docs_path_and_route(tmp_path: Path) -> None:
    write(
        tmp_path / "website/docusaurus.config.js",
        """// path: 'commented-out'
module.exports = {
  themeConfig: {docs: {sidebar: {hideable: true}}},
  presets: [
    ['classic', {
      docs: {
        /* path: 'not-this', */
        path: "../guides",
        routeBasePath: '/',
        sidebarPath: require.resolve('./sidebars.js'),
        remarkPlugins: [{path: 'nested'}],
      },
      blog: {path: 'blog'},
    }],
  ],
  staticDirectories: ['public', 'static'],
};
""",
    )
    write(tmp_path / "guides/intro.mdx", "# Intro\n")
    write(tmp_path / "website/public/robots.txt", "")
    site = detect_site(tmp_path)
    assert site is not None and site.config == "website/docusaurus.config.js"
    assert site.root == "guides"
    assert site.keys["links"]["url_map"] == {
        "/": ".",
        "/robots.txt/": "../website/public/robots.txt",
    }


def test_the_preset_docs_options_are_found_after_the_theme_configs_docs(tmp_path: Path) -> None:
    write(
        tmp_path / "docusaurus.config.js",
        "module.exports = {themeConfig: {docs: {sidebar: {hideable: true}}},\n"
        "presets: [['classic', {docs: {path: 'manual', routeBasePath: 'guide'}}]]};\n",
    )
    write(tmp_path / "manual/a.md", "# A\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "manual"
    assert site.keys["links"]["url_map"] == {"/guide/": "."}


def test_versions_serve_the_latest_at_the_docs_url_and_the_current_at_next(
    tmp_path: Path,
) -> None:
    write(tmp_path / "website/docusaurus.config.js", "module.exports = {};\n")
    write(tmp_path / "website/docs/intro.md", "# Intro\n")
    write(tmp_path / "website/versions.json", '["2.0", "1.0", "0.9"]\n')
    write(tmp_path / "website/versioned_docs/version-2.0/intro.md", "# Intro\n")
    write(tmp_path / "website/versioned_docs/version-1.0/intro.md", "# Intro\n")
    site = detect_site(tmp_path)  # 0.9 has no folder: not a version of this tree
    assert site is not None and site.root == "website/docs"
    assert site.keys["links"]["url_map"] == {
        "/docs/": "../versioned_docs/version-2.0",
        "/docs/next/": ".",
        "/docs/1.0/": "../versioned_docs/version-1.0",
    }
    assert site.elsewhere == ("website/versioned_docs",)


def test_a_fifo_in_the_configs_place_is_one_readable_error(tmp_path: Path) -> None:
    write(tmp_path / "docs/intro.md", "# Intro\n")
    os.mkfifo(tmp_path / "docusaurus.config.js")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "docusaurus.config.js" in done.stderr and "Traceback" not in done.stderr
    said = done.stderr.strip().splitlines()[-1]  # (after init's note on the hook's version)
    assert said.endswith("docusaurus.config.js: cannot read it (a FIFO, not a regular file)")


# --- MDX -------------------------------------------------------------------------------

MDX = """import Tabs from '@theme/Tabs';
import {
  TabItem,
} from '@theme/TabItem';

# Title

## Options {#my-id}

<Tabs groupId="os">
  <TabItem value="a" label="A">

    [indented inside a tab](./a.md)

  </TabItem>
  <TabItem
    value="b"
  >

[in the second tab](./b)

  </TabItem>
</Tabs>

{/* a comment: [not a link](./commented) */}

{
  [1, 2].map((n) => <span>{n}</span>)
}

export const Hint = () => <span>[not a link either](./x)</span>;

```js
import x from 'y';
<Tabs>
```

Text with {/* an inline comment [not](./inline) */} and [a link](./c#d).
"""


def test_mdx_javascript_lines_are_blank_and_every_line_keeps_its_number() -> None:
    text = markdown_lines(MDX)
    assert text.count("\n") == MDX.count("\n")
    page = parse_page("docs/x.mdx", MDX.encode())
    assert [(link.target, link.line) for link in page.links] == [
        ("./a.md", 13),
        ("./b", 20),
        ("./c#d", 38),
    ]
    assert [(h.plain, h.line) for h in page.headings] == [
        ("Title", 6),
        ("Options {#my-id}", 8),
    ]
    assert [block.info for block in page.code_blocks] == ["js"]  # the fence is kept whole


def test_a_md_page_is_read_as_commonmark() -> None:
    page = parse_page("docs/x.md", MDX.encode())
    assert "./commented" in [link.target for link in page.links]


# --- URLs ------------------------------------------------------------------------------


def test_a_page_is_served_at_its_path_without_a_trailing_slash() -> None:
    model = url_model()
    assert served_path("guide/install.md", model) == "guide/install"
    assert served_folder("guide/install.md", model) == "/docs/guide/"
    assert served_path("guide/index.md", model) == "guide/"
    assert served_folder("guide/index.md", model) == "/docs/guide/"
    assert served_path("guide/README.mdx", model) == "guide/"
    assert served_path("guide/guide.md", model) == "guide/"  # named as its folder
    assert served_path("index.md", model) == ""
    assert served_folder("index.md", model) == "/docs/"
    assert served_path("01-guide/02-install.md", model) == "guide/install"
    assert served_path("2024-01-02-notes.md", model) == "2024-01-02-notes"  # a date
    assert served_path("a/b.md", model, {"slug": "/x/y"}) == "x/y"
    assert served_path("a/b.md", model, {"slug": "z"}) == "a/z"
    assert served_path("a/b.md", model, {"slug": "/"}) == ""  # the docs' home
    assert served_folder("a/b.md", model, meta={"slug": "/"}) == "/docs/"
    assert served_path("a/b.md", model, {"id": "api"}) == "a/api"
    assert served_path("a/b.md", model, {"id": 3}) == "a/b"  # not a name
    assert served_path("01-a/b.md", url_model(number_prefixes=False)) == "01-a/b"


def test_the_broken_link_report_is_read_page_by_page() -> None:
    output = """[WARNING] Docusaurus found broken links!
Exhaustive list of all broken links found:
- Broken link on source page path = /docs/guide/:
   -> linking to guide/install (resolved as: /docs/guide/guide/install)
   -> linking to /img/nope.png
- Broken link on source page path = /docs/intro:
   -> linking to ./missing.md (resolved as: /docs/missing.md)

[WARNING] Markdown link with URL `./missing.md` in source file "docs/intro.md" (15:3) couldn't be resolved.
"""
    by_url, by_file = docusaurus_report(output)
    assert by_url == {
        ("/docs/guide/", "guide/install"),
        ("/docs/guide/", "/img/nope.png"),
        ("/docs/intro", "./missing.md"),
    }
    assert by_file == {("docs/intro.md", "./missing.md")}


# --- kb init, then kb check ------------------------------------------------------------


def init(site: Path, work: Path) -> Path:
    return init_copy(site, work, says="Docusaurus, website/docusaurus.config.js: 8 page(s)")


FLAGGED = {
    ("website/docs/03-numbered/04-page.md", "./04-page"),  # served as numbered/page
    ("website/docs/guide/configure.mdx", "../nowhere"),
    ("website/docs/guide/configure.mdx", "./install#step-two"),  # inside a tab of an .mdx
    ("website/docs/guide/configure.mdx", "./nothere"),
    ("website/docs/guide/index.md", "guide/install"),  # from /docs/next/guide/
    ("website/docs/guide/install.md", "./configure.md#step-one"),  # it is configure.mdx
    ("website/docs/guide/other.md", "./install"),  # from its slug's URL, /docs/next/
    ("website/docs/intro.md", "#nowhere"),
    ("website/docs/intro.md", "./guide/nope"),
    ("website/docs/intro.md", "./missing.md"),
    ("website/docs/intro.md", "/docs/1.0/install"),  # 1.0 is the latest: served at /docs/
    ("website/docs/intro.md", "/docs/1.0/intro"),
    ("website/docs/intro.md", "/img/nope.png"),
    ("website/docs/intro.md", "/docs/assets/gone.png"),  # static/docs/assets/ lacks it
    ("website/docs/intro.md", "guide/configure#options"),  # its id is my-id
    ("website/docs/intro.md", "guide/configure#from-nowhere"),  # nor its partial's
    ("website/docs/intro.md", "guide/install#nope"),
    ("website/docs/intro.md", "reference/ref"),  # served at its id, reference/api-ref
    ("website/docs/intro.md", "/docs/reference/ref"),  # so is 1.0's copy
}


@pytest.mark.slow
def test_kb_init_alone_flags_what_docusaurus_reports(tmp_path: Path) -> None:
    """The oracle's verdicts on the fixture, written down (the oracle test below checks them
    against the real build): kbkit flags these links and no other."""
    repo = init(SITE, tmp_path)
    assert kbkit_flagged(repo) == FLAGGED


@pytest.mark.slow
def test_injected_defects_are_caught(tmp_path: Path) -> None:
    repo = init(SITE, tmp_path)
    docs = repo / "website/docs"
    with (docs / "guide/configure.mdx").open("a", encoding="utf-8") as page:
        page.write(
            "\n<Tabs>\n  <TabItem value='c'>\n\n[injected](./instal)\n\n  </TabItem>\n</Tabs>\n"
        )
    with (docs / "intro.md").open("a", encoding="utf-8") as page:
        page.write(
            "\n[injected anchor](guide/configure#step-one)\n[injected static](/img/logo.svg)\n"
        )
    with (docs / "reference/ref.md").open("a", encoding="utf-8") as page:
        page.write("\n[injected file](../guide/install.mdx)\n")
    with (docs / "_partials/_note.mdx").open("a", encoding="utf-8") as page:
        page.write("\n[injected in a partial](../intro.mdx)\n")
    flagged = kbkit_flagged(repo) - FLAGGED
    assert flagged == {
        ("website/docs/guide/configure.mdx", "./instal"),
        ("website/docs/intro.md", "guide/configure#step-one"),
        ("website/docs/intro.md", "/img/logo.svg"),
        ("website/docs/reference/ref.md", "../guide/install.mdx"),
        ("website/docs/_partials/_note.mdx", "../intro.mdx"),
    }
    said = subprocess.run(
        [sys.executable, "-m", "kbkit", "check"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert "'/img/logo.svg': nothing at website/static/img/logo.svg;" in said  # said plainly


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("node") is None or not DOCUSAURUS_BIN.is_file(),
    reason="Docusaurus is not installed in .venv/node/docusaurus (.ci/run installs it)",
)
def test_kbkit_flags_exactly_the_links_docusaurus_reports(tmp_path: Path) -> None:
    verdicts = docusaurus_verdicts(SITE / "website", tmp_path / "build", "website/")
    broken = {key for key, served in verdicts.items() if not served}
    # the oracle saw the cases the fixture is made of (it cannot pass on an empty build)
    assert broken == FLAGGED
    assert len(verdicts) >= 45
    repo = init(SITE, tmp_path)
    assert disagreements(verdicts, kbkit_flagged(repo)) == []


@pytest.mark.slow
def test_the_staged_check_reads_staged_mdx_pages_only(tmp_path: Path) -> None:
    repo = init(SITE, tmp_path)
    docs = repo / "website/docs"
    write(docs / "staged.mdx", "# Staged\n\n<Tabs>\n\n[staged, broken](./gone)\n\n</Tabs>\n")
    write(docs / "draft.mdx", "# Draft\n\n[untracked, broken](./gone)\n")
    subprocess.run(["git", "add", "website", "kbkit.yaml"], cwd=repo, check=True)
    (docs / "draft.mdx").write_text("# Draft\n\n[untracked, broken](./gone)\n")
    subprocess.run(["git", "rm", "-q", "--cached", "website/docs/draft.mdx"], cwd=repo, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--staged"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert "website/docs/staged.mdx:5:" in done.stdout
    assert "draft.mdx" not in done.stdout


@pytest.mark.slow
def test_a_static_file_removed_after_a_cached_run_is_reported(tmp_path: Path) -> None:
    repo = init(SITE, tmp_path)
    assert ("website/docs/intro.md", "/img/logo.png") not in kbkit_flagged(repo)
    assert ("website/docs/intro.md", "/docs/intro") not in kbkit_flagged(repo)  # (cached)
    (repo / "website/static/img/logo.png").unlink()
    (repo / "website/versioned_docs/version-1.0/intro.md").unlink()
    flagged = kbkit_flagged(repo)
    assert ("website/docs/intro.md", "/img/logo.png") in flagged
    assert ("website/docs/intro.md", "/docs/intro") in flagged


# --- navigation: the sidebars file -------------------------------------------------------

SIDEBARS = """// read as text: object keys name sidebars and categories, strings are doc ids
import type {SidebarsConfig} from '@docusaurus/plugin-content-docs';
const sidebars: SidebarsConfig = {
  docs: {
    'intro': ['intro', 'guide/install'],  // a category named like a doc lists nothing
    Guides: [{type: 'doc', id: 'guide/my-id', label: 'Configure'}, 'numbered/page'],
  },
  api: [{type: 'autogenerated', dirName: 'reference'}, 'intro'],
};
export default sidebars;
"""


def sidebar_site(tmp_path: Path, sidebar_path: str | None) -> Path:
    option = f"sidebarPath: {sidebar_path}, " if sidebar_path else ""
    config = f"export default {{presets: [['classic', {{docs: {{{option}path: 'docs'}}}}]]}};\n"
    site = tmp_path / "site"
    write(site / "docusaurus.config.ts", config)
    write(site / "sidebars.ts", SIDEBARS)
    write(site / "docs/intro.md", "# Intro\n")
    write(site / "docs/guide/install.md", "# Install\n")
    write(site / "docs/guide/configure.md", "---\nid: my-id\n---\n# Configure\n")
    write(site / "docs/03-numbered/04-page.md", "# Page\n")
    write(site / "docs/reference/api.md", "# API\n")
    write(site / "docs/_partial.md", "A partial: no doc, in no sidebar.\n")
    write(site / "docs/left-out.md", "# Left out\n\nNo sidebar lists it.\n")
    write(site / "docs/guide/also-left-out.md", "# Also left out\n")
    return site


def unregistered(repo: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    rows = json.loads(done.stdout)["findings"]
    return sorted(row["path"] for row in rows if row["rule"] == "tree/page-unregistered")


@pytest.mark.slow
@pytest.mark.parametrize(
    "written",
    [
        "'./sidebars.ts'",
        "require.resolve('./sidebars')",
        "path.resolve(__dirname, './sidebars.ts')",
    ],
)
def test_a_doc_no_sidebar_lists_is_reported(tmp_path: Path, written: str) -> None:
    """Docusaurus shows a doc in the sidebar where its id (folder, file name less number
    prefixes, `id:` front matter) is written in the sidebars file or an autogenerated item
    covers its folder; partials are no docs; a doc listed twice is allowed."""
    repo = init_copy(sidebar_site(tmp_path, written), tmp_path)
    assert unregistered(repo) == ["docs/guide/also-left-out.md", "docs/left-out.md"]


@pytest.mark.slow
def test_without_a_sidebar_path_docusaurus_lists_every_doc(tmp_path: Path) -> None:
    repo = init_copy(sidebar_site(tmp_path, None), tmp_path)
    assert unregistered(repo) == []


def test_static_folders_named_as_a_route_serve_beside_it(tmp_path: Path) -> None:
    """`static/docs/assets/x.png` is served at `/docs/assets/x.png`, tried after the docs;
    `static/blog/` is under the blog's route, which is not this tree's (links there are not
    checked); with `blog: false` it is a static folder like any other."""
    config = "export default {presets: [['classic', {docs: {path: 'docs'}}]]};\n"
    write(tmp_path / "docusaurus.config.ts", config)
    write(tmp_path / "docs/intro.md", "# Intro\n")
    write(tmp_path / "static/docs/assets/shot.png", "png")
    write(tmp_path / "static/blog/2017/cover.png", "png")
    site = detect_site(tmp_path)
    assert site is not None
    assert site.keys["links"]["url_map"] == {"/docs/": [".", "../static/docs"]}
    write(tmp_path / "docusaurus.config.ts", config.replace("docs: {", "blog: false, docs: {"))
    site = detect_site(tmp_path)
    assert site is not None
    assert site.keys["links"]["url_map"] == {
        "/docs/": [".", "../static/docs"],
        "/blog/": "../static/blog",
    }


def test_the_docs_plugin_publishes_markdown_alone(tmp_path: Path) -> None:
    """A component module beside the docs (`docs/_parts.js`, `docs/Chart.jsx`) is no page:
    the docs plugin builds `.md` and `.mdx` (its default `include`); `src/pages` builds React
    pages too, which init counts as published there and not read."""
    from kbkit.sites.coverage import coverage

    write(tmp_path / "docusaurus.config.ts", "export default {presets: [['classic', {}]]};\n")
    write(tmp_path / "docs/intro.md", "# Intro\n")
    write(tmp_path / "docs/Chart.jsx", "export default () => null;\n")
    write(tmp_path / "src/pages/index.js", "export default () => null;\n")
    site = detect_site(tmp_path)
    assert site is not None
    found = coverage(tmp_path, site)
    assert (found.read, found.unread, found.other) == (1, {}, {".js": 1})
