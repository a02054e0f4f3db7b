"""Jekyll's pages as Jekyll serves them: the folder it reads, the files it publishes, each
page at its permalink (`a/b.html`, or `a/b/` with pretty permalinks, or its own
`permalink:`), the site under its `baseurl`, kramdown's heading ids. The real jekyll is the
oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pathspec
import pytest

from kbkit.infra.errors import UsageError
from kbkit.pages.anchors import heading_ids
from kbkit.sites import detect_site
from kbkit.sites.jekyll import site_keys
from tests.sites.oracle import disagreements, init_copy, jekyll_verdicts, kbkit_flagged

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SITE = FIXTURES / "jekyll-pages"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_permalink_style_says_where_pages_are_served() -> None:
    assert site_keys({})["links"]["page_url"] == "file"
    assert site_keys({})["links"]["extensions"] == {".html": [".md"]}
    assert site_keys({"permalink": "pretty"})["links"] == {"page_url": "folder"}
    assert site_keys({"permalink": "/:categories/:title/"})["links"]["page_url"] == "folder"
    assert site_keys({"permalink": "/:categories/:title:output_ext"})["links"]["page_url"] == "file"
    assert site_keys({"baseurl": "proj/"})["links"]["base_url"] == "/proj"
    assert "base_url" not in site_keys({"baseurl": ""})["links"]


def test_output_collections_are_published_and_served_under_their_name() -> None:
    data = {
        "collections": {"guides": {"output": True}, "recipes": {"output": False}},
        "exclude": ["docs", "*.txt"],
        "include": ["_redirects", ".well-known"],
    }
    keys = site_keys(data)
    assert keys["links"]["url_map"] == {"/guides/": "_guides"}
    spec = pathspec.GitIgnoreSpec.from_lines(keys["unpublished"])
    hidden = {
        "_includes/note.md",
        "_recipes/x.md",
        "_drafts/idea.md",
        ".github/README.md",
        "Gemfile",
        "vendor/bundle/x.md",
        "node_modules/x/README.md",
        "docs/old.md",
        "notes/a.txt",
        "guide/_partial.md",
    }
    shown = {
        "_guides/intro.md",
        "_posts/2024-01-05-welcome.md",
        "_redirects",
        ".well-known/security.txt",
        "guide/install.md",
        "index.md",
        "vendor/theme/page.md",
    }
    assert {path for path in hidden | shown if spec.match_file(path)} == hidden


def test_relative_md_links_resolve_from_the_file_where_github_pages_rewrites_them() -> None:
    assert site_keys({}, github_pages=True)["links"]["md_from_file"] is True
    assert "md_from_file" not in site_keys({})["links"]
    assert site_keys({"plugins": ["jekyll-relative-links"]})["links"]["md_from_file"] is True
    off = {"relative_links": {"enabled": False}}
    assert "md_from_file" not in site_keys(off, github_pages=True)["links"]


def test_init_chooses_the_folder_jekyll_reads(tmp_path: Path) -> None:
    write(tmp_path / "_config.yml", "exclude: [docs]\n")
    write(tmp_path / "index.md", "---\n---\n# Home\n")
    write(tmp_path / "docs/notes.md", "# Notes\n")  # plain detection would take docs/
    site = detect_site(tmp_path)
    assert site is not None and (site.generator, site.root) == ("Jekyll", ".")
    assert site.keys["links"]["md_from_file"] is True  # no Gemfile: GitHub Pages builds it
    assert "/docs" in site.keys["unpublished"]
    write(tmp_path / "_config.yml", "source: site\n")
    write(tmp_path / "site/index.md", "# Home\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "site"
    write(tmp_path / "Gemfile", 'gem "jekyll"\n')
    site = detect_site(tmp_path)
    assert site is not None and "md_from_file" not in site.keys["links"]


def test_github_pages_from_the_docs_folder(tmp_path: Path) -> None:
    write(tmp_path / "docs/_config.yml", "permalink: pretty\n")
    write(tmp_path / "docs/index.md", "# Home\n")
    site = detect_site(tmp_path)
    assert site is not None
    assert (site.generator, site.config, site.root) == ("Jekyll", "docs/_config.yml", "docs")


def test_a_jupyter_book_config_is_not_jekyll(tmp_path: Path) -> None:
    write(tmp_path / "_config.yml", "title: Book\n")
    write(tmp_path / "_toc.yml", "format: jb-book\nroot: intro\n")
    write(tmp_path / "intro.md", "# Intro\n")
    site = detect_site(tmp_path)
    assert site is None or site.generator != "Jekyll"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("title: [unclosed\n", "_config.yml:2: Jekyll cannot read this configuration"),
        ("- a list\n", "_config.yml: Jekyll's configuration must be a mapping"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
            "_config.yml",
        ),
    ],
)
def test_a_config_jekyll_cannot_read_is_one_readable_error(
    tmp_path: Path, text: str, said: str
) -> None:
    write(tmp_path / "_config.yml", text)
    with pytest.raises(UsageError) as caught:
        detect_site(tmp_path)
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_fifo_in_place_of_the_config_is_refused_unopened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "_config.yml")
    with pytest.raises(UsageError, match="_config.yml: cannot read it"):
        detect_site(tmp_path)


def test_kramdown_ids_drop_its_typographic_symbols() -> None:
    texts = ["Wait... what -- now", "a---b", "Tom & Jerry's", "tab\tinside", "1. First"]
    assert heading_ids(texts, "kramdown") == [
        "wait-what--now",
        "ab",
        "tom--jerrys",
        "tab-inside",
        "1-first",
    ]
    assert heading_ids(["Custom heading {#custom-id}"], "kramdown", attr_list=True) == ["custom-id"]


def variant(work: Path, config: str) -> Path:
    """The fixture site with `config` appended to its `_config.yml`."""
    site = work / "variant"
    shutil.copytree(SITE, site)
    settings = site / "_config.yml"
    settings.write_text(settings.read_text(encoding="utf-8") + config, encoding="utf-8")
    return site


NEEDS_JEKYLL = pytest.mark.skipif(
    shutil.which("jekyll") is None,
    reason="Debian's jekyll is not installed (.ci/run installs it)",
)


@pytest.mark.slow
@NEEDS_JEKYLL
@pytest.mark.parametrize("style", ["date", "pretty"])
def test_kbkit_flags_exactly_the_links_jekyll_does_not_serve(tmp_path: Path, style: str) -> None:
    site = variant(tmp_path, f"permalink: {style}\n")
    verdicts = jekyll_verdicts(site, tmp_path)
    broken = {key for key, served in verdicts.items() if not served}
    # the oracle saw the cases the fixture is made of (the test cannot pass on an empty build)
    assert ("guide/install.md", "#nowhere") in broken
    assert ("guide/install.md", "configure.html#missing-heading") in broken
    assert ("guide/install.md", "configure.md") in broken  # no jekyll-relative-links here
    assert ("guide/install.md", "/guide/configure.html") in broken  # outside the baseurl
    assert ("guide/install.md", "../docs/old.html") in broken  # excluded
    assert ("guide/install.md", "../about.html") in broken  # served at its permalink
    assert ("guide/install.md", "#wait-what--now") not in broken  # kramdown's id
    assert ("index.md", "legal/") not in broken  # a collection served at the root
    assert ("index.md", "legal/#nobody") in broken
    assert ("index.md", "nolegal/") in broken
    # kramdown keeps combining marks (`\\p{Word}`), which Python's `\\w` leaves out
    assert ("guide/install.md", "#না-বলতে-শেখা") not in broken
    assert ("guide/install.md", "#अपने-प्रोजेक्ट-का-स्वामित्व-साझा-करें") not in broken
    assert ("guide/install.md", "#अपन-परजकट-क-सवमतव-सझ-कर") in broken
    assert ("_guides/intro.md", "other.html") in broken
    # a collection whose own permalink ends in `/` is served at folder URLs in either style
    assert ("_tutorials/start.md", "../next/") not in broken
    assert ("_tutorials/start.md", "../next/#step-two") not in broken
    assert ("_tutorials/start.md", "/proj/tutorials/next/") not in broken
    assert ("_tutorials/start.md", "../gone/") in broken
    assert ("_tutorials/start.md", "next.html") in broken
    assert ("_tutorials/start.md", "../sheet/") not in broken  # sheet.txt, front matter
    assert ("_tutorials/start.md", "../sheets/") in broken
    assert ("index.md", "gallery/") not in broken  # gallery/index.html
    assert ("index.md", "assets/") in broken
    # its front matter permalink is the collection's own URL for it: the page is served there
    assert ("_tutorials/start.md", "/proj/tutorials/next/#step-two") not in broken
    assert ("_tutorials/start.md", "/proj/tutorials/next/#no-step") in broken
    pretty = style == "pretty"
    assert (("guide/install.md", "configure.html") in broken) is pretty
    assert (("guide/install.md", "../configure/") in broken) is not pretty
    assert (("guide/install.md", "../about-us/") in broken) is pretty
    assert (("index.md", "guides/intro/") in broken) is not pretty
    assert not any(page.startswith(("docs/", "_drafts/", "notes")) for page, _ in verdicts)
    assert len(verdicts) >= 50 and len(broken) >= 25
    repo = init_copy(site, tmp_path)
    assert disagreements(verdicts, kbkit_flagged(repo)) == []


@pytest.mark.slow
def test_init_alone_catches_defects_injected_the_way_the_site_writes_links(
    tmp_path: Path,
) -> None:
    repo = init_copy(SITE, tmp_path)
    before = kbkit_flagged(repo)
    page = repo / "guide/configure.md"
    page.write_text(
        page.read_text(encoding="utf-8")
        + "\nSee [the old install](instal.html) and [its requirements](install.html#requirement).\n",
        encoding="utf-8",
    )
    added = kbkit_flagged(repo) - before
    assert added == {
        ("guide/configure.md", "instal.html"),
        ("guide/configure.md", "install.html#requirement"),
    }
    assert not any(path.startswith(("docs/", "_drafts/", "notes")) for path, _ in before)


@pytest.mark.slow
def test_init_on_a_malformed_config_exits_2_with_the_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / "_config.yml", "title: ok\nexclude: [docs\n")
    write(tmp_path / "index.md", "# Home\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "_config.yml:3: Jekyll cannot read this configuration" in done.stderr
    assert "Traceback" not in done.stderr


def test_redirect_from_urls_are_read_only_with_the_plugin() -> None:
    assert site_keys({"plugins": ["jekyll-redirect-from"]})["links"]["redirect_from_key"] == (
        "redirect_from"
    )
    assert "redirect_from_key" not in site_keys({"plugins": ["jekyll-feed"]})["links"]


@pytest.mark.slow
def test_a_link_to_a_url_that_redirects_to_a_page_is_served(tmp_path: Path) -> None:
    write(tmp_path / "_config.yml", "permalink: pretty\nplugins: [jekyll-redirect-from]\n")
    write(tmp_path / "Gemfile", "gem 'jekyll'\ngem 'jekyll-redirect-from'\n")
    write(
        tmp_path / "index.md",
        "---\ntitle: Home\n---\n# Home\n\n[help](/help/), [old help](/old/help.html),\n"
        "[support](/support/) and [gone](/gone/).\n",
    )
    write(
        tmp_path / "support.md",
        "---\ntitle: Support\nredirect_from: [/help/index.html, /old/help.html]\n---\n"
        "# Support\n\n[Home](/)\n",
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=tmp_path, check=True, capture_output=True)
    assert kbkit_flagged(tmp_path) == {("index.md", "/gone/")}


@pytest.mark.slow
def test_a_key_in_a_page_the_site_leaves_out_is_still_reported(tmp_path: Path) -> None:
    """`notes.md` is excluded from the site, so its links are not checked, but it is in the
    repository: a credential in it leaks all the same."""
    repo = init_copy(SITE, tmp_path)
    key = "AKIA" + "Q3EGRKZ7XJ4MNP2W"  # made up
    with (repo / "notes.md").open("a", encoding="utf-8") as page:
        page.write(f"\n```\naws_access_key_id = {key}\n```\n\n[gone](gone.html)\n")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    rows = json.loads(done.stdout)["findings"]
    assert [(row["path"], row["rule"]) for row in rows if row["path"] == "notes.md"] == [
        ("notes.md", "tree/secret-token")
    ]


@pytest.mark.slow
def test_links_written_with_the_link_tag_name_source_files(tmp_path: Path) -> None:
    """`{% link path %}` names a file of the site's source (Jekyll fails the build without
    one) and `{% post_url name %}` a post: the fixture's own are served (the oracle test
    builds them); a wrong path, a missing post or a fragment no heading has is reported."""
    repo = init_copy(SITE, tmp_path)
    before = kbkit_flagged(repo)
    assert not any("{%" in written for _, written in before)
    with (repo / "guide/configure.md").open("a", encoding="utf-8") as page:
        page.write(
            "\n[a]({% link guide/instal.md %}) [b]({{ site.baseurl }}{% link guide/install.md %})"
            " [c]({% link guide/install.md %}#requirement) [d]({% post_url 2024-01-05-welcom %})"
            " [e]({% post_url 2024-01-05-welcome %})\n"
        )
    assert kbkit_flagged(repo) - before == {
        ("guide/configure.md", "{% link guide/instal.md %}"),
        ("guide/configure.md", "{% link guide/install.md %}#requirement"),
        ("guide/configure.md", "{% post_url 2024-01-05-welcom %}"),
    }
