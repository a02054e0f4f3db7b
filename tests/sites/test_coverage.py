"""`kb init` says what it chose and how much of what the site publishes that covers."""

from __future__ import annotations

from pathlib import Path

from kbkit.sites import detect_site
from kbkit.sites.coverage import coverage, words


def test_pages_the_site_publishes_and_kbkit_does_not_read_are_counted(tmp_path: Path) -> None:
    (tmp_path / "docusaurus.config.js").write_text("module.exports = {};\n")
    (tmp_path / "docs" / "api").mkdir(parents=True)
    (tmp_path / "docs" / "intro.md").write_text("# Intro\n")
    (tmp_path / "docs" / "api" / "alert.mdx").write_text("# Alert\n")
    (tmp_path / "docs" / "api" / "button.mdx").write_text("# Button\n")
    (tmp_path / "docs" / ".hidden.mdx").write_text("# hidden\n")
    (tmp_path / "src" / "pages").mkdir(parents=True)
    (tmp_path / "src" / "pages" / "index.tsx").write_text("export default () => null;\n")
    (tmp_path / "src" / "pages" / "about.md").write_text("# About\n")
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "Docusaurus"
    found = coverage(tmp_path, site)
    # .mdx pages are read (pages.extensions); the JSX/TSX routes of src/pages are not
    assert (found.read, found.unread, found.elsewhere) == (3, {}, 0)
    assert found.other == {".md": 1, ".tsx": 1}
    said = words(site, found)
    assert "3 page(s) under docs/" in said
    assert "not read either: 2 page(s) in src/pages/ (1 .md, 1 .tsx)" in said


def test_a_site_read_whole_says_only_what_it_read(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n")
    site = detect_site(tmp_path)
    assert site is not None
    assert words(site, coverage(tmp_path, site)) == (
        "MkDocs, mkdocs.yml: 1 page(s) under docs/, profile mkdocs"
    )


def test_a_jupyter_books_notebooks_are_counted_as_not_read(tmp_path: Path) -> None:
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: a\n")
    (tmp_path / "intro.md").write_text("# Intro\n")
    (tmp_path / "a.ipynb").write_text("{}\n")
    (tmp_path / "b.Rmd").write_text("# b\n")
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "Jupyter Book"
    assert coverage(tmp_path, site).unread == {".Rmd": 1, ".ipynb": 1}


def test_a_tree_read_from_the_top_leaves_no_page_elsewhere(tmp_path: Path) -> None:
    for folder in ("git", "ruby"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "how-to.md").write_text("# How\n")
        (tmp_path / folder / "style.md").write_text("# Style\n")
    (tmp_path / "README.md").write_text("# Guides\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "."
    found = coverage(tmp_path, site)
    assert (found.read, found.elsewhere) == (5, 0)
    assert "elsewhere" not in words(site, found)
