"""Trees of each site generator's shape, read as the site builds them (issue #28): the
navigation as the index model, links through redirects, URL maps and backslashes, anchors
as the generator makes them, the knowledge root as a root, versions for duplicates."""

from __future__ import annotations

import json
import os
import time
from datetime import date
from pathlib import Path

import pytest

from kbkit.checks.runner import run_validators
from kbkit.pages.anchors import definition_terms, heading_ids, page_anchors, slug, tab_ids
from kbkit.policy.model import load_policy
from kbkit.policy.scaffold import initialize

TODAY = date(2026, 11, 30)
LONG = "\n\nThe same long paragraph, copied word for word, " * 12


def write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(repo: Path, use_cache: bool = False) -> list[tuple[str, int, str]]:
    findings, _ = run_validators(repo, load_policy(repo), ("tree", "lint"), TODAY, use_cache)
    return sorted((f.path, f.line, f.rule_id) for f in findings)


def mkdocs_site(repo: Path, nav: str = "") -> None:
    write(
        repo,
        {
            "kbkit.yaml": "extends: mkdocs\n",
            "mkdocs.yml": "site_name: Site\nnot_in_nav: |\n  /drafts/*.md\n"
            "plugins:\n  - search\n  - blog\n  - redirects:\n      redirect_maps:\n"
            "        old.md: guide.md\n" + nav,
            "docs/index.md": "# Home\n\n[Guide](guide.md#caret-mark-tilde) [old](old.md) "
            "[pip](guide.md#with-pip) [tab](guide.md#setup-with-pip) [n](guide.md#fn:1)\n",
            "docs/guide.md": "# Guide\n\n## Caret, Mark & Tilde\n\n## Setup\n\n"
            '=== "with pip"\n\n    text\n\n### with pip { #with-pip }\n\nA note[^1].\n\n'
            "[^1]: The note.\n\n[top](#guide)\n",
            "docs/drafts/wip.md": "# WIP\n\n[home](../index.md)\n",
            "docs/blog/posts/hello.md": "# Hello\n\n[home](../../index.md)\n",
        },
    )


def test_mkdocs_reads_nav_redirect_maps_and_python_markdown_ids(tmp_path: Path) -> None:
    nav = (
        "nav:\n  - Home: index.md\n  - Guide: guide.md\n  - Gone: gone.md\n  - https://x.example\n"
    )
    mkdocs_site(tmp_path, nav)
    assert found(tmp_path) == [
        ("docs/drafts/wip.md", 0, "lint/orphan"),  # not_in_nav: unlisted, still unlinked
        ("mkdocs.yml", 13, "tree/link-broken"),  # gone.md
    ]
    write(tmp_path, {"docs/extra.md": "# Extra\n\n[home](index.md)\n"})
    assert ("docs/extra.md", 0, "tree/page-unregistered") in found(tmp_path)
    assert ("docs/extra.md", 0, "lint/orphan") in found(tmp_path)


def test_mkdocs_without_nav_lists_every_page(tmp_path: Path) -> None:
    mkdocs_site(tmp_path)
    write(tmp_path, {"docs/extra.md": "# Extra\n"})  # linked from nowhere, yet in the nav
    assert found(tmp_path) == []


def test_mkdocs_literate_nav_files_list_their_folders(tmp_path: Path) -> None:
    """mkdocs-literate-nav: a nav entry naming a folder takes that folder's nav file, whose
    links list its pages (and sub-folders, one level down each); a page none lists is
    unregistered. With no `nav`, the docs folder's own nav file lists the pages."""
    write(
        tmp_path,
        {
            "kbkit.yaml": "extends: mkdocs\n",
            "mkdocs.yml": "site_name: S\nnav:\n  - Home: index.md\n  - Guide: guide/\n"
            "plugins:\n  - literate-nav:\n      nav_file: README.md\n",
            "docs/index.md": "# Home\n",
            "docs/guide/README.md": "# Guide\n\n- [A](a.md)\n- [Deep](deep/)\n",
            "docs/guide/a.md": "# A\n",
            "docs/guide/deep/README.md": "# Deep\n\n- [C](c.md)\n",
            "docs/guide/deep/c.md": "# C\n",
        },
    )
    assert found(tmp_path) == []
    write(tmp_path, {"docs/guide/b.md": "# B\n"})
    assert found(tmp_path) == [
        ("docs/guide/b.md", 0, "lint/orphan"),
        ("docs/guide/b.md", 0, "tree/page-unregistered"),
    ]
    write(
        tmp_path,
        {
            "mkdocs.yml": "site_name: S\nplugins:\n  - literate-nav\n",
            "docs/SUMMARY.md": "- [Home](index.md)\n- [Guide](guide/README.md)\n",
        },
    )
    unregistered = {path for path, _, rule in found(tmp_path) if rule == "tree/page-unregistered"}
    assert unregistered == {"docs/guide/a.md", "docs/guide/b.md", "docs/guide/deep/README.md",
                            "docs/guide/deep/c.md"}  # fmt: skip


def test_mkdocs_pages_that_pull_in_text_have_fragments_kbkit_cannot_check(
    tmp_path: Path,
) -> None:
    """A page with a pymdownx.snippets line or an autodoc block (`::: x`) has headings from
    text kbkit does not read: a fragment that names it is not reported. `;--8<--` is text."""
    write(
        tmp_path,
        {
            "kbkit.yaml": "extends: mkdocs\n",
            "mkdocs.yml": "site_name: S\n",
            "docs/index.md": "# Home\n\n[a](contributing.md#setup) [b](cli.md#serve) "
            "[c](plain.md#gone) [d](escaped.md#gone)\n",
            "docs/contributing.md": '--8<-- "CONTRIBUTING.md"\n\n[self](#anything)\n',
            "docs/cli.md": "# CLI\n\n::: mkdocs-click\n    :module: x\n",
            "docs/plain.md": "# Plain\n",
            "docs/escaped.md": '# Escaped\n\n;--8<-- "x.md"\n',
        },
    )
    assert found(tmp_path) == [
        ("docs/index.md", 3, "tree/link-anchor"),
        ("docs/index.md", 3, "tree/link-anchor"),
    ]
    assert {f.message.split(":")[0] for f in run_validators(
        tmp_path, load_policy(tmp_path), ("tree",), TODAY, False)[0]} == {
        "link 'plain.md#gone'", "link 'escaped.md#gone'"}  # fmt: skip
    write(tmp_path, {"kbkit.yaml": "extends: mkdocs\nlinks: {inserted_text: false}\n"})
    assert len(found(tmp_path)) == 5  # every fragment checked, the page's own one too


def test_mdbook_summary_html_links_and_book_toml_redirects(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "kbkit.yaml": "extends: mdbook\n",
            "book.toml": '[book]\ntitle = "B"\n\n[output.html.redirect]\n'
            '"ch01-old.html" = "ch01-new.html"\n',
            "src/SUMMARY.md": "# Summary\n\n- [One](ch01-new.md)\n- [Two](ch02.md)\n",
            "src/ch01-new.md": "# Chapter One\n\n## Hello, World!\n\n[two](ch02.html#the-end)\n"
            "[old](ch01-old.html#hello-world)\n",
            "src/ch02.md": "# Two\n\n## The End {#the-end}\n\n[one](ch01-new.html#hello-world)\n",
        },
    )
    assert found(tmp_path) == []
    write(tmp_path, {"src/ch03.md": "# Three\n\n[one](ch01-new.html#nope)\n"})
    assert found(tmp_path) == [
        ("src/ch03.md", 0, "lint/orphan"),
        ("src/ch03.md", 0, "tree/page-unregistered"),
        ("src/ch03.md", 3, "tree/link-anchor"),
    ]


def test_mdbook_folder_index_404_page_and_included_pages(tmp_path: Path) -> None:
    """mdBook builds a folder's README.md as its index.html, the 404 page without an entry,
    and `{{#include}}`s a page into the chapter that names it: none of them is a finding.
    A page included nowhere, an `index.html` of a folder with no README.md and an included
    page written as text (`\\{{#include}}`) still are."""
    write(
        tmp_path,
        {
            "kbkit.yaml": "extends: mdbook\n",
            "book.toml": '[book]\ntitle = "B"\n',
            "src/SUMMARY.md": "# Summary\n\n- [Intro](README.md)\n- [CLI](cli/README.md)\n"
            "  - [serve](cli/serve.md)\n",
            "src/README.md": "# Intro\n\n[cli](cli/index.html) [serve](cli/serve.html)\n",
            "src/404.md": "# Not found\n",
            "src/cli/README.md": "# CLI\n",
            "src/cli/serve.md": "# serve\n\n{{#include flags.md}}\n\n```rust\n"
            "{{#rustdoc_include ../../listings/main.rs:2}}\n```\n",
            "src/cli/flags.md": "## Flags\n",
        },
    )
    assert found(tmp_path) == []
    write(
        tmp_path,
        {
            "src/cli/serve.md": "# serve\n\n\\{{#include flags.md}}\n\n[x](../guide/index.html)\n"
            "[y](myindex.html)\n",
            "src/cli/myREADME.md": "# Mine\n",  # the name `myindex.html` is not `index.html`
        },
    )
    assert found(tmp_path) == [
        ("src/cli/flags.md", 0, "lint/orphan"),
        ("src/cli/flags.md", 0, "tree/page-unregistered"),
        ("src/cli/myREADME.md", 0, "lint/orphan"),
        ("src/cli/myREADME.md", 0, "tree/page-unregistered"),
        ("src/cli/serve.md", 5, "tree/link-broken"),  # guide/ holds no README.md
        ("src/cli/serve.md", 6, "tree/link-broken"),
    ]


def docfx_site(repo: Path) -> None:
    redirection = {
        "redirections": [
            {"source_path": "../docs/moved.md", "redirect_url": "/product/guide/new-place"},
            {"source_path_from_root": "/docs/gone-out.md", "redirect_url": "https://x.example/"},
        ]
    }
    write(
        repo,
        {
            ".openpublishing.publish.config.json": json.dumps(
                {"redirection_files": ["redir/.openpublishing.redirection.json"]}
            ),
            "redir/.openpublishing.redirection.json": json.dumps(redirection),
            "kbkit.yaml": "extends: docfx\nknowledge_root: docs\nlinks:\n"
            "  redirects: .openpublishing.publish.config.json\n"
            "  url_map: {/product/guide/: ., /product/module/: ['2.0', '1.0']}\n"
            "  url_shared: [/product/module/]\nversions: ['1.0', '2.0']\n",
            "docs/toc.yml": "items:\n  - name: Start\n    href: start.md\n  - name: Area\n"
            "    href: area/toc.yml\n  - name: Web\n    href: https://x.example\n"
            "  - name: Missing\n    href: missing.md\n  - name: Site\n"
            "    href: /product/guide/new-place\n",
            "docs/area/toc.yml": "items:\n  - name: A\n    href: a.md\n    items:\n"
            "      - name: B\n        href: ../area/b.md\n",
            "docs/start.md": "# Start\n\n[moved](moved.md) [site](/product/guide/new-place?view=x)"
            " [b](area\\b.md#section) [other](/product/module/elsewhere/page)"
            " [cmd](/product/module/tools/get-thing#parameters) [out](gone-out.md)\n",
            "docs/new-place.md": "# New place\n",
            "docs/area/a.md": "# A\n\n[start](../start.md#start)\n",
            "docs/area/b.md": "# B\n\n### $?\n",
            "docs/includes/note.md": "A note.\n",
            "docs/area/unused.md": "# Unused\n\n[!INCLUDE [note](../includes/note.md)]\n",
            "docs/2.0/tools/get-thing.md": "# Get-Thing\n\n## Parameters\n" + LONG,
            "docs/1.0/tools/get-thing.md": "# Get-Thing\n\n## Parameters\n" + LONG,
            "docs/1.0/tools/copy.md": "# Get-Thing\n\n## Parameters\n" + LONG,
            "docs/1.0/toc.yml": "items:\n  - href: tools/get-thing.md\n  - href: tools/copy.md\n",
            "docs/2.0/toc.yml": "items:\n  - href: tools/get-thing.md\n",
        },
    )


def test_docfx_tocs_redirect_files_url_maps_backslashes_and_versions(tmp_path: Path) -> None:
    docfx_site(tmp_path)
    assert found(tmp_path) == [
        ("docs/1.0/tools/get-thing.md", 0, "tree/duplicate-page"),  # within one version
        ("docs/area/unused.md", 0, "lint/orphan"),
        ("docs/area/unused.md", 0, "tree/page-unregistered"),
        ("docs/toc.yml", 9, "tree/link-broken"),  # missing.md
    ]


def test_docfx_redirect_pages_content_tabs_and_generated_api_pages(tmp_path: Path) -> None:
    """dotnet/docfx's own docs: a page whose frontmatter says `redirect_url` needs no entry,
    `# [Linux](#tab/linux)` defines a content tab (no anchor), and the API pages
    `docfx metadata` writes (`dest: api`, read by kb init from docfx.json, with its byte
    order mark) are linked and listed before they exist."""
    write(
        tmp_path,
        {
            "docs/docfx.json": "\ufeff"
            + json.dumps(
                {
                    "metadata": [{"src": [{"files": ["**/*.csproj"]}], "dest": "api"}],
                    "build": {"content": [{"files": ["**/*.{md,yml}"]}]},
                }
            ),  # fmt: skip
            "docs/toc.yml": "- name: Guide\n  href: guide.md\n- name: API\n  href: api/\n",
            "docs/guide.md": "# Guide\n\n# [Linux](#tab/linux)\n\nOn Linux.\n\n"
            "[api](api/Docfx.yml) [old](old.md) [gone](#nowhere)\n",
            "docs/old.md": "---\nredirect_url: guide.html\n---\n",
            "docs/stale.md": "# Stale\n",
        },
    )
    initialize(tmp_path, TODAY, "", detect=True)
    assert "generated: [/api]" in (tmp_path / "kbkit.yaml").read_text()
    assert found(tmp_path) == [
        ("docs/guide.md", 7, "tree/link-anchor"),  # #nowhere
        ("docs/stale.md", 0, "lint/orphan"),
        ("docs/stale.md", 0, "tree/page-unregistered"),
    ]


def test_hugo_links_are_urls_and_definition_terms_take_ids(tmp_path: Path) -> None:
    """gohugoio/hugoDocs' shape: the config mounts content/en as content; `/x/y/` names
    x/Y.md (case ignored), a section's _index.md or a bundle's index.md; a shortcode target
    is not checked; a definition term takes an id before a later heading of the same text
    (`#matchers-1` is the heading); a page with a `{{% x %}}` line has fragments kbkit
    cannot check; no page is an orphan (Hugo lists every page in its section)."""
    write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://x.example/"\n[markup.goldmark.parser]\n'
            "autoDefinitionTermID = true\n[module]\n[[module.mounts]]\n"
            'source = "content/en"\ntarget = "content"\n',
            "content/en/_index.md": "# Home\n\n[timer](/functions/debug/timer/) "
            "[sec](/functions/) [bundle](/guide/) [tag]({{% ref x %}}) "
            "[m](/config/deploy/#matchers-1) [t](/config/deploy/#matchers) "
            "[i](/config/inc/#from-the-include)\n",
            "content/en/functions/_index.md": "# Functions\n",
            "content/en/functions/debug/Timer.md": "# Timer\n",
            "content/en/guide/index.md": "# Guide\n",
            "content/en/config/deploy.md": "# Deploy\n\n`matchers`\n: A slice.\n\n## Matchers\n",
            "content/en/config/inc.md": '# Inc\n\n{{% include "/_common/x.md" %}}\n',
            "content/en/lonely.md": "# Lonely\n\n[gone](/nowhere/) [x](#nothing)\n",
        },
    )
    initialize(tmp_path, TODAY, "", detect=True)
    policy = (tmp_path / "kbkit.yaml").read_text()
    assert "extends: hugo" in policy and "knowledge_root: content/en" in policy
    assert "definition_ids: true" in policy
    assert found(tmp_path) == [
        ("content/en/lonely.md", 3, "tree/link-anchor"),
        ("content/en/lonely.md", 3, "tree/link-broken"),
    ]


@pytest.mark.parametrize(
    ("config", "root"),
    [
        ('contentDir = "pages"\n', "pages"),
        ('contentDir = "site/pages"\n', "site/pages"),
        ('[languages.en]\ncontentDir = "pages/en"\n', "pages/en"),
        ("", "content"),
    ],
)
def test_hugo_content_folder_from_the_config(tmp_path: Path, config: str, root: str) -> None:
    write(tmp_path, {"hugo.toml": config, f"{root}/b.md": "# B\n"})
    initialize(tmp_path, TODAY, "", detect=True)
    assert f"knowledge_root: {root}\n" in (tmp_path / "kbkit.yaml").read_text()


def test_a_warm_run_sees_a_changed_toc_yml(tmp_path: Path) -> None:
    docfx_site(tmp_path)
    first = found(tmp_path, use_cache=True)
    assert found(tmp_path, use_cache=True) == first  # from the snapshot
    toc = tmp_path / "docs/area/toc.yml"
    toc.write_text(toc.read_text() + "      - name: U\n        href: unused.md\n")
    later = time.time() + 5
    os.utime(toc, (later, later))
    now = found(tmp_path, use_cache=True)
    assert ("docs/area/unused.md", 0, "tree/page-unregistered") not in now
    assert ("docs/area/unused.md", 0, "lint/orphan") not in now


def test_without_backslash_links_a_backslash_path_is_broken(tmp_path: Path) -> None:
    docfx_site(tmp_path)
    policy = tmp_path / "kbkit.yaml"
    policy.write_text(policy.read_text().replace("links:\n", "links:\n  backslash: false\n"))
    assert ("docs/start.md", 3, "tree/link-broken") in found(tmp_path)


def test_the_knowledge_root_itself_may_be_the_root(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "kbkit.yaml": "extends: public-docs\nknowledge_root: docs\n",
            "docs/index.md": "# Home\n\n[a](sub/a.md)\n",
            "docs/lonely.md": "# Lonely\n",
            "docs/sub/a.md": "# A\n\n[home](../index.md)\n",
        },
    )
    findings, pages = run_validators(tmp_path, load_policy(tmp_path), ("tree", "lint"), TODAY)
    assert pages == 3  # the top-level pages count, as kb report counts them
    assert sorted((f.path, f.rule_id) for f in findings) == [("docs/lonely.md", "lint/orphan")]


@pytest.mark.parametrize(
    ("text", "style", "expected"),
    [
        ("Caret, Mark & Tilde", "python-markdown", "caret-mark-tilde"),
        ("Caret, Mark & Tilde", "github", "caret-mark--tilde"),
        ("Sub- and superscripts", "python-markdown", "sub-and-superscripts"),
        ("Café au lait", "python-markdown", "cafe-au-lait"),
        ("Hello, World!", "mdbook", "hello-world"),
        ("Tabs\tand spaces", "mdbook", "tabs-and-spaces"),
        ("$?", "docfx", "section"),
        ("$_", "docfx", "_"),
        ("Install PowerShell 7", "docfx", "install-powershell-7"),
    ],
)
def test_slug_styles(text: str, style: str, expected: str) -> None:
    assert slug(text, style) == expected


def test_repeats_are_numbered_as_each_generator_numbers_them() -> None:
    assert page_anchors(["A", "A", "A"], "python-markdown") == ("a", "a_1", "a_2")
    assert page_anchors(["A", "A"], "github") == ("a", "a-1")
    assert heading_ids(["Setup { #mine }", "Setup"], "python-markdown", attr_list=True) == [
        "mine",
        "setup",
    ]


def test_tab_ids_alone_and_after_the_heading() -> None:
    text = '# Logo\n\n=== ":octicons-image-16: Image"\n\n=== "... or even me"\n'
    ids = tab_ids(text, [(1, "logo")], "python-markdown")
    assert {"logo-image", "image", "logo--or-even-me", "or-even-me"} <= set(ids)


def test_the_ascii_fast_path_makes_github_slugs_exactly() -> None:
    import random
    import re
    import string

    drop = re.compile(r"[^\w\- ]")
    rng = random.Random(28)
    for _ in range(20_000):
        text = "".join(rng.choice(string.printable + "éß—") for _ in range(rng.randint(0, 30)))
        assert slug(text) == drop.sub("", text.strip().lower()).replace(" ", "-"), text


def test_definition_terms_with_their_lines() -> None:
    """A term is the line above `: definition` (up to three spaces before the colon), or
    the line above a blank one; its code and emphasis marks are dropped."""
    text = "# T\n\n`archetypeDir`\n  : The folder.\n\n*build*\n\n: More.\n: A second definition.\n"
    assert definition_terms(text) == [(3, "archetypeDir"), (6, "build")]
    assert definition_terms("No list: here.\n") == []
