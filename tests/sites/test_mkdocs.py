"""MkDocs (and Material) as MkDocs reads it: links in an admonition's, a collapsible
block's or a content tab's second paragraph are read too. `mkdocs build --strict` is the
oracle."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.pages.containers import unindent_containers
from kbkit.pages.page import parse_page
from kbkit.sites import detect_site
from tests.sites.oracle import init_copy, kbkit_flagged, mkdocs_broken

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_a_blocks_second_paragraph_is_markdown_not_code() -> None:
    body = (
        '!!! note "Title"\n    First [a](a.md).\n\n    Second [b](b.md).\n\n'
        "Outside.\n\n    real code [c](c.md)\n"
    )
    page = parse_page("docs/x.md", body.encode())
    assert [(link.target, link.line) for link in page.links] == [("a.md", 2), ("b.md", 4)]
    assert [block.text for block in page.code_blocks] == ["real code [c](c.md)\n"]


def test_nested_blocks_and_tabs_keep_every_line_number() -> None:
    body = (
        '=== "Linux"\n\n    Tab [a](a.md).\n\n    !!! danger "Inner"\n        One.\n\n'
        "        Two [b](b.md).\n\n    ```sh\n    rm -rf build\n    ```\n"
    )
    moved = unindent_containers(body)
    assert moved.count("\n") == body.count("\n")
    page = parse_page("docs/x.md", body.encode())
    assert [(link.target, link.line) for link in page.links] == [("a.md", 3), ("b.md", 8)]
    assert [(block.info, block.text) for block in page.code_blocks] == [("sh", "rm -rf build\n")]


def test_text_that_only_looks_like_an_opener_is_left_alone() -> None:
    body = "!!! Do not run this:\n\n    rm -rf /\n"
    assert unindent_containers(body) == body
    assert parse_page("docs/x.md", body.encode()).code_blocks[0].text == "rm -rf /\n"


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (make setup)"
)
def test_kbkit_flags_exactly_the_links_mkdocs_strict_reports(tmp_path: Path) -> None:
    site = FIXTURES / "mkdocs-material"
    broken = mkdocs_broken(site, tmp_path)
    assert ("docs/index.md", "guide/missing.md") in broken  # an admonition's 2nd paragraph
    assert ("docs/guide/install.md", "nothing.md") in broken  # a content tab's
    assert ("docs/guide/install.md", "../gone.md") in broken  # a nested admonition's
    # a page with a snippet inside a fenced block (a content tab's) has its anchors checked
    assert ("docs/index.md", "guide/configure.md#no-such-part") in broken
    assert len(broken) == 6
    assert kbkit_flagged(init_copy(site, tmp_path)) == broken


@pytest.mark.parametrize(
    "extensions",
    [
        "[pymdownx.extra]",
        "[extra]",
        "[markdown.extensions.attr_list]",
        "[{markdown.extensions.extra: {}}]",
    ],
)
def test_attr_list_ids_count_where_a_bundle_or_a_module_path_loads_it(
    tmp_path: Path, extensions: str
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: x\nmarkdown_extensions: {extensions}\n", encoding="utf-8"
    )
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "MkDocs"
    assert "attr_list" not in site.keys.get("links", {})


def test_attr_list_ids_do_not_count_without_it(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: x\nmarkdown_extensions: [toc, pymdownx.superfences]\n", encoding="utf-8"
    )
    site = detect_site(tmp_path)
    assert site is not None and site.keys["links"]["attr_list"] is False


def inherited_site(repo: Path) -> Path:
    """A site built with `mkdocs build -f mkdocs-online.yml`, its settings in the file that
    one INHERITs."""
    (repo / "pages").mkdir()
    for name in ("index", "guide", "left-out"):
        (repo / "pages" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    (repo / "mkdocs-common.yml").write_text(
        "site_name: x\ndocs_dir: pages\nnav: [index.md, guide.md]\n", encoding="utf-8"
    )
    (repo / "mkdocs-online.yml").write_text(
        "INHERIT: mkdocs-common.yml\nsite_url: https://example.org/\n", encoding="utf-8"
    )
    (repo / "mkdocs-extra.yml").write_text("extra: {analytics: none}\n", encoding="utf-8")
    (repo / "mkdocs-local.yml").write_text(  # read offline: not the published site
        "INHERIT: mkdocs-common.yml\nuse_directory_urls: false\n", encoding="utf-8"
    )
    return repo


def test_a_config_named_otherwise_is_read_with_the_file_it_inherits(tmp_path: Path) -> None:
    site = detect_site(inherited_site(tmp_path))
    assert site is not None
    assert (site.generator, site.config, site.root) == ("MkDocs", "mkdocs-online.yml", "pages")
    assert site.keys["index"]["toc"] == "mkdocs-online.yml"


def assert_only_the_left_out_page_is_unregistered(repo: Path) -> None:
    """`kb init` then `kb check` in `repo` (an inherited_site): the page the nav leaves out
    is reported, the two it lists are not."""
    import json

    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=repo, check=True, capture_output=True)
    done = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=repo, capture_output=True, text=True
    )
    found = {(row["path"], row["rule"]) for row in json.loads(done.stdout)["findings"]}
    assert ("pages/left-out.md", "tree/page-unregistered") in found
    assert not any(path in ("pages/index.md", "pages/guide.md") for path, _ in found)


@pytest.mark.slow
def test_the_inherited_nav_is_the_navigation(tmp_path: Path) -> None:
    repo = inherited_site(tmp_path)
    assert_only_the_left_out_page_is_unregistered(repo)


@pytest.mark.slow
def test_a_nav_only_file_is_the_navigation_of_a_config_without_one(tmp_path: Path) -> None:
    """`mkdocs-nav.yml` holding only `nav:` is joined to a configuration when the site is
    built (`INHERIT:` written by a build step): it is the navigation."""
    repo = inherited_site(tmp_path)
    common = repo / "mkdocs-common.yml"
    common.write_text(common.read_text("utf-8").replace("nav: [index.md, guide.md]\n", ""), "utf-8")
    (repo / "mkdocs-nav.yml").write_text("nav:\n  - index.md\n  - guide.md\n", "utf-8")
    site = detect_site(repo)
    assert site is not None and site.keys["index"]["nav_file"] == "mkdocs-nav.yml"
    assert_only_the_left_out_page_is_unregistered(repo)


@pytest.mark.parametrize(
    "plugins",
    [
        "plugins:\n  search:\n  exclude:\n    glob: ['blog/*', '**/_template.md']\n",
        "plugins:\n  - search\n  - exclude:\n      glob: ['blog/*', '**/_template.md']\n",
    ],
)
def test_files_the_site_does_not_build_are_unpublished(tmp_path: Path, plugins: str) -> None:
    """MkDocs' `exclude_docs` (gitignore lines) and the mkdocs-exclude plugin's globs (a
    mapping or a list of plugins) name files MkDocs leaves out of the site."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: x\nexclude_docs: |\n  drafts/\n  # a comment\n  *.tmp.md\n{plugins}",
        encoding="utf-8",
    )
    site = detect_site(tmp_path)
    assert site is not None
    assert site.keys["unpublished"] == ["drafts/", "*.tmp.md", "blog/*", "**/_template.md"]


@pytest.mark.slow
def test_a_page_the_site_does_not_build_needs_no_nav_entry(tmp_path: Path) -> None:
    (tmp_path / "docs/snippets").mkdir(parents=True)
    (tmp_path / "docs/index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "docs/left-out.md").write_text("# Left out\n", encoding="utf-8")
    (tmp_path / "docs/snippets/part.md").write_text("Inserted, not built.\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: x\nnav: [index.md]\nexclude_docs: |\n  snippets/\n", encoding="utf-8"
    )
    repo = init_copy(tmp_path, tmp_path / "work")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    import json

    found = {(row["path"], row["rule"]) for row in json.loads(done.stdout)["findings"]}
    assert ("docs/left-out.md", "tree/page-unregistered") in found
    assert not any(path.startswith("docs/snippets/") for path, _ in found)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed")
def test_a_heading_a_build_hook_writes_has_an_id_kbkit_cannot_know(tmp_path: Path) -> None:
    """mkdocs-material's own docs write `#### <!-- md:setting config.blog_dir -->` and a hook
    (`hooks:` in mkdocs.yml) turns it into a heading with that id: a link to it is fine,
    as `mkdocs build --strict` says; kbkit cannot see the id, so it does not guess. A
    missing anchor on a page without such a heading is still reported by both."""
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "hooks").mkdir()
    (site / "hooks" / "settings.py").write_text(
        "import re\n\n\n"
        "def on_page_markdown(markdown, **kwargs):\n"
        "    return re.sub(r'<!-- md:setting (\\S+) -->', r'\\1 { #\\1 }', markdown)\n",
        encoding="utf-8",
    )
    (site / "mkdocs.yml").write_text(
        "site_name: x\nhooks: [hooks/settings.py]\nmarkdown_extensions: [attr_list, toc]\n",
        encoding="utf-8",
    )
    (site / "docs" / "index.md").write_text(
        "# Home\n\n[the setting](plugin.md#config.blog_dir), [gone](other.md#nowhere)\n",
        encoding="utf-8",
    )
    (site / "docs" / "plugin.md").write_text(
        "# Plugin\n\n#### <!-- md:setting config.blog_dir -->\n\nThe folder.\n",
        encoding="utf-8",
    )
    (site / "docs" / "other.md").write_text("# Other\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    broken = mkdocs_broken(site, work)
    assert broken == {("docs/index.md", "other.md#nowhere")}
    assert kbkit_flagged(init_copy(site, work)) == broken
