"""Sphinx with MyST-Parser (and Jupyter Book) as Sphinx builds it: `[text](label)` names a
label or a document, `genindex` and `search` always exist, heading anchors only to the depth
`myst_heading_anchors` gives, the toctree is the navigation. The real Sphinx is the oracle."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.__main__ import main
from kbkit.pages.page import parse_page
from kbkit.sites import detect_site, myst, sphinx
from tests.reads_alike import assert_reads_alike, joined
from tests.sites.oracle import disagreements, init_copy, kbkit_flagged, sphinx_verdicts

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None,
    reason="sphinx and myst-parser are not installed (pip install -e '.[dev]' installs them)",
)
def test_kbkit_flags_exactly_the_links_sphinx_reports(tmp_path: Path) -> None:
    site = FIXTURES / "sphinx-myst"
    verdicts = sphinx_verdicts(site / "docs", tmp_path, "docs/")
    broken = {key for key, served in verdicts.items() if not served}
    # the oracle saw the cases the fixture is made of (the test cannot pass on an empty build)
    assert ("docs/index.md", "install-steps") not in broken  # a label
    assert ("docs/index.md", "genindex") not in broken
    assert ("docs/index.md", "guide/configure.md#deep-detail") in broken  # below the depth
    assert ("docs/index.md", "no-such-label") in broken
    assert ("docs/index.md", "energy") not in broken  # a {math} directive's :label:
    assert ("docs/index.md", "fish-figure") not in broken  # {figure-md}'s argument
    assert ("docs/index.md", "notes-label") not in broken  # a label of an .rst page
    assert ("docs/index.md", "install:colon-label") not in broken  # `name:rest`: a label
    assert ("docs/index.md", "install:nowhere") in broken
    assert len(verdicts) >= 25 and len(broken) >= 8
    repo = init_copy(site, tmp_path)
    assert disagreements(verdicts, kbkit_flagged(repo)) == []


def kb(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`kb ARGV` in this process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def findings(capsys: pytest.CaptureFixture[str], repo: Path) -> set[tuple[str, str, str]]:
    """(rule, path, link as written or "") of every finding `kb check` reports."""
    code, out, err = kb(capsys, "check", "--repo", str(repo), "--format", "json")
    assert code in (0, 1), err
    rows = json.loads(out)["findings"]
    return {
        (row["rule"], row["path"], row["message"].split("'")[1] if "'" in row["message"] else "")
        for row in rows
    }


def site_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    return repo


CONF = 'extensions = ["myst_parser"]\n'


def test_detection_reads_conf_py_without_running_it(tmp_path: Path) -> None:
    site = detect_site(FIXTURES / "sphinx-myst")
    assert site is not None and (site.generator, site.config, site.profile, site.root) == (
        "Sphinx with MyST",
        "docs/conf.py",
        "sphinx",
        "docs",
    )
    assert site.keys["links"]["heading_depth"] == 2
    conf = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.abspath('..'))\n"
        "extensions = ['sphinx.ext.autodoc']\n"
        "extensions += ['sphinx_copybutton']\n"
        "extensions.append('myst_nb')\n"
        "master_doc = 'contents'\n"
        "exclude_patterns = ['_build', 'drafts/**']\n"
        "myst_heading_anchors = compute()  # not a literal: unknown\n"
        "raise SystemExit('conf.py was run')\n"
    )
    repo = site_repo(tmp_path, {"doc/conf.py": conf, "doc/contents.md": "# C\n"})
    site = sphinx.detect(repo)
    assert site is not None and site.root == "doc" and site.config == "doc/conf.py"
    assert site.keys == {
        # without `source_suffix`, Sphinx reads `.rst` (and MyST-Parser `.md`)
        "links": {"extensions": {"": [".md", ".rst", ".ipynb"]}},
        "index": {"placed": ["/contents.*"], "unlisted": ["/_build", "/drafts/**"]},
    }
    (repo / "doc/conf.py").write_text("extensions = ['sphinx.ext.autodoc']\n")
    assert sphinx.detect(repo) is None  # reStructuredText only: not kbkit's to read


def test_a_jupyter_book_is_its_toc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = site_repo(
        tmp_path,
        {
            "book/_config.yml": "title: B\nsphinx:\n  config:\n    myst_heading_anchors: 3\n",
            "book/_toc.yml": "format: jb-book\nroot: intro\nchapters:\n- file: notebooks/run\n"
            "- file: analysis\n- file: gone\n- glob: extra/*\n",
            "book/intro.md": "# Intro\n\nSee [the run](notebooks/run.ipynb), [it](notebooks/run)"
            " and [a label](run-label).\n",
            "book/notebooks/run.ipynb": "{}\n",
            "book/analysis.Rmd": "# A\n",
            "book/extra/one.md": "# One\n\n(run-label)=\n## Run\n",
            "book/unlisted.md": "# Left out\n",
        },
    )
    site = detect_site(repo)
    assert site is not None and (site.generator, site.root) == ("Jupyter Book", "book")
    assert site.keys["index"] == {"toc": "book/_toc.yml", "toctree": False}
    assert site.keys["links"]["heading_depth"] == 3
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, out, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {
        ("tree/link-broken", "book/_toc.yml", "gone"),  # no gone.md, .ipynb, .Rmd...
        ("tree/page-unregistered", "book/unlisted.md", ""),
        ("lint/orphan", "book/unlisted.md", ""),
    }


def test_a_toctree_entry_names_a_document_never_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`reference` is `reference.md` beside a folder `reference/` (sphinx-book-theme's docs),
    `kitchen/index` a page Sphinx reads as reStructuredText; ABlog lists the posts its
    `blog_post_pattern` matches, so they need no entry."""
    conf = CONF.replace('"myst_parser"', '"myst_parser", "ablog"')
    conf += 'blog_post_pattern = "blog/*.md"\n'
    repo = site_repo(
        tmp_path,
        {
            "docs/conf.py": conf,
            "docs/index.md": "# Home\n\n```{toctree}\nreference\nkitchen/index\nblog\n```\n",
            "docs/reference.md": "# Reference\n\n```{toctree}\nreference/more\n```\n",
            "docs/reference/more.md": "# More\n",
            "docs/kitchen/index.rst": "Kitchen\n=======\n",
            "docs/blog.md": "# Blog\n",
            "docs/blog/post1.md": "# Post one\n",
            "docs/blog/post2.md": "# Post two\n",
            "docs/left-out.md": "# Left out\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {
        ("tree/page-unregistered", "docs/left-out.md", ""),
        ("lint/orphan", "docs/left-out.md", ""),
    }


def test_the_toctree_is_the_navigation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toctree = "```{toctree}\n:glob:\n\nguide/*\nTitle <ref>\nhttps://example.com\nself\n```\n"
    repo = site_repo(
        tmp_path,
        {
            "docs/conf.py": CONF,
            "docs/index.md": f"# Home\n\n{toctree}",
            "docs/ref.md": "# Ref\n\n```{toctree}\n---\nmaxdepth: 1\n---\nnested/deep\nmissing\n```\n",
            "docs/guide/a.md": "# A\n",
            "docs/nested/deep.md": "# Deep\n",
            "docs/left-out.md": "# Left out\n",
            "docs/on-purpose.md": "---\norphan: true\n---\n# Orphan on purpose\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {
        ("tree/page-unregistered", "docs/left-out.md", ""),
        ("lint/orphan", "docs/left-out.md", ""),
        ("tree/link-broken", "docs/ref.md", "missing"),
    }


@pytest.mark.parametrize(
    ("conf", "said"),
    [
        ("extensions = ['myst_parser'\n", "docs/conf.py:1: not read: '[' was never closed"),
        ("x = 1\ndef f(:\n", "docs/conf.py:2: not read: invalid syntax"),
        ("x = '\0'\n", "docs/conf.py"),
    ],
)
def test_a_conf_py_that_is_not_python_is_named_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], conf: str, said: str
) -> None:
    repo = site_repo(tmp_path, {"docs/conf.py": conf, "docs/index.md": "# Home\n"})
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 2 and said in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_a_fifo_in_place_of_conf_py_is_refused_unopened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = site_repo(tmp_path, {"docs/index.md": "# Home\n"})
    os.mkfifo(repo / "docs/conf.py")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 2 and "docs/conf.py" in err and "Traceback" not in err, err


def test_labels_are_read_as_myst_defines_them() -> None:
    text = (
        "# Title\n\n(First Label)=\n## Section\n\n"
        "```{figure} x.png\n:name: fig-one\n\nCaption\n```\n\n"
        "```{code-block} python\n---\nname: code-two\n---\nprint()\n```\n\n"
        "```python\n(not-a-label)=\n:name: not-either\n```\n\n"
        ":::{figure-md} colon-fig\n<img src='x.png'>\n\nCaption\n:::\n\n"
        "```{math}\n:label: eq-one\n\ne = mc^2\n```\n"
    )
    page = parse_page("p.md", text.encode())
    assert myst.labels(page) == ("first label", "fig-one", "code-two", "colon-fig", "eq-one")
    assert myst.docutils_id("First Label") == "first-label"
    assert myst.docutils_id("2. Über Straße") == "uber-strasze"


def test_toctree_entries_are_document_names() -> None:
    text = (
        "```{toctree}\n:maxdepth: 2\n:glob:\n\nintro\nThe guide <guide/index>\n"
        "ref/*\nself\nhttps://example.com\n```\n"
    )
    page = parse_page("index.md", text.encode())
    assert myst.toctree_entries(page) == (
        (5, "intro", False),
        (6, "guide/index", False),
        (7, "ref/*", True),
    )


def test_a_label_added_to_an_unread_document_settles_the_link_on_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Labels of the documents kbkit does not read as pages (`.rst`, a notebook's markdown
    cell) are found; the result snapshot knows them, so a label written there later settles
    the link in a warm run though no page changed."""
    cells = [{"cell_type": "markdown", "source": ["(nb-label)=\n", "# Book\n"]}]
    notebook = json.dumps({"cells": cells}, indent=1)  # as nbformat writes it
    repo = site_repo(
        tmp_path,
        {
            "docs/conf.py": CONF.replace('"myst_parser"', '"myst_parser", "myst_nb"'),
            "docs/index.md": "# Home\n\n```{toctree}\nnotes\nbook\n```\n\n"
            "[a](notes-label) [b](nb-label) [c](later-label)\n",
            "docs/notes.rst": ".. _notes-label:\n\nNotes\n=====\n",
            "docs/book.ipynb": notebook,
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {("tree/link-broken", "docs/index.md", "later-label")}
    notes = repo / "docs" / "notes.rst"
    notes.write_text(notes.read_text() + "\n.. _later-label:\n\nLater\n-----\n")
    assert findings(capsys, repo) == set()


def test_a_myst_project_is_its_myst_yml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """mystmd and Jupyter Book 2 (jupyter-book/mystmd's own docs, not seen before: init chose
    `packages/` and left 312 findings): `myst.yml` one folder down names the root and its
    `project.toc` the navigation (`file:`, `children:`, `pattern:`); a `#label` link names
    a label of any page; `xref:` links are another project's; the site paths its
    `error_rules` ignore are not checked."""
    config = (
        "version: 1\nproject:\n  title: Docs\n  error_rules:\n    - rule: link-resolves\n"
        "      severity: ignore\n      keys: [/robots.txt]\n  toc:\n    - file: index.md\n"
        "    - title: Guides\n      children:\n        - file: guide.md\n"
        "        - pattern: notes/*.md\n"
    )
    repo = site_repo(
        tmp_path,
        {
            "packages/a/README.md": "# A\n",
            "packages/b/README.md": "# B\n",
            "packages/c/README.md": "# C\n",
            "docs/myst.yml": config,
            "docs/index.md": "# Home\n\n[the steps](#install-steps), [spec](xref:spec#x), "
            "[robots](/robots.txt)\n\n[gone](#nowhere)\n",
            "docs/guide.md": "# Guide\n\n(install-steps)=\n## Steps\n\n[home](index.md#home)\n",
            "docs/notes/one.md": "# One\n\n[guide](../guide.md#steps)\n",
            "docs/left-out.md": "# Left out\n",
        },
    )
    site = detect_site(repo)
    assert site is not None and (site.config, site.root) == ("docs/myst.yml", "docs")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {
        ("tree/link-anchor", "docs/index.md", "#nowhere"),
        ("tree/page-unregistered", "docs/left-out.md", ""),
        ("lint/orphan", "docs/left-out.md", ""),
    }


def test_init_says_a_restructuredtext_site_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """flask's docs (not seen before) are Sphinx with reStructuredText alone: init set up
    `knowledge/` without a word. It says what it found and why it sets up a new tree."""
    repo = site_repo(
        tmp_path,
        {
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc']\n",
            "docs/index.rst": "Flask\n=====\n",
            "docs/api.rst": "API\n===\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, out, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert (
        "found   docs/conf.py (Sphinx builds docs/ from 2 reStructuredText page(s), which kbkit "
        "does not read: knowledge/ is set up instead)"
    ) in out
    assert (repo / "knowledge" / "policy.yaml").is_file()


def test_a_book_built_from_its_toc_alone_publishes_no_other_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`only_build_toc_files: true` (QuantEcon's lectures): Jupyter Book builds the pages its
    `_toc.yml` lists and no other, so an include fragment (`_admonition/gpu.md`) or a README
    under `_static/` is neither unregistered nor an orphan; a broken entry still is."""
    repo = site_repo(
        tmp_path,
        {
            "book/_config.yml": "title: B\nonly_build_toc_files: true\n",
            "book/_toc.yml": "format: jb-book\nroot: intro\nchapters:\n- file: a\n- file: gone\n",
            "book/intro.md": "# Intro\n\n```{include} _admonition/gpu.md\n```\n",
            "book/a.md": "# A\n",
            "book/_admonition/gpu.md": "Runs on a GPU.\n",
            "book/_static/data/README.md": "# Data\n",
        },
    )
    site = detect_site(repo)
    assert site is not None and site.keys["index"]["toc_only"] is True
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert findings(capsys, repo) == {("tree/link-broken", "book/_toc.yml", "gone")}


def test_a_symlinked_document_out_of_the_root_is_not_read_for_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unread document (`.rst`) that is a symlink leading out of the knowledge root is
    not opened: a label only it defines does not count, as a page there would be refused."""
    outside = tmp_path / "outside.rst"
    outside.write_text(".. _secret-label:\n\nOut\n===\n", encoding="utf-8")
    repo = site_repo(
        tmp_path,
        {
            "docs/conf.py": CONF,
            "docs/index.md": "# Home\n\n```{toctree}\nnotes\n```\n\n[x](secret-label)\n",
        },
    )
    (repo / "docs" / "notes.rst").symlink_to(outside)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = kb(capsys, "init", "--local-hook", "--repo", str(repo))
    assert code == 0, err
    assert ("tree/link-broken", "docs/index.md", "secret-label") in findings(capsys, repo)


_LAZY_NAMES = {
    "_NAME_OPTION": r"^[ \t]*:(?:name|label):[ \t]+(?P<name>\S.*?)[ \t]*$",
    "_YAML_NAME": r"^[ \t]*(?:name|label):[ \t]+(?P<name>\S.*?)[ \t]*$",
}


@settings(max_examples=800, deadline=None)
@given(
    st.sampled_from(sorted(_LAZY_NAMES)),
    joined((":name:", "label:", " ", "\t", "a", "b", "\r", "\n", "\u00a0"), 12),
)
def test_name_options_read_what_the_lazy_patterns_read(name: str, line: str) -> None:
    assert_reads_alike(getattr(myst, name), _LAZY_NAMES[name], line)


def _labels_line_by_line(page: object) -> tuple[str, ...]:
    """`myst.labels` as it was written first, every line of the page visited (the oracle)."""
    plain_code: set[int] = set()
    options: dict[int, str] = {}
    for block in page.code_blocks:  # type: ignore[attr-defined]
        lines = block.lines()
        if not block.info.startswith("{"):
            plain_code.update(number for number, _ in lines)
        elif lines and lines[0][1].strip() == "---":
            for number, line in lines[1:]:
                if line.strip() == "---":
                    break
                found = myst._YAML_NAME.match(line)
                if found:
                    options[number] = found["name"]
    names = []
    for number, line in enumerate(page.text.split("\n"), 1):  # type: ignore[attr-defined]
        if number in options:
            names.append(myst.normalized(options[number]))
            continue
        if line.lstrip(" \t")[:1] not in ("(", ":", "`"):
            continue
        if number not in plain_code:
            found = (
                myst._LABEL.match(line)
                or myst._NAME_OPTION.match(line)
                or myst._FIGURE_MD.match(line)
            )
            if found:
                names.append(myst.normalized(found["name"]))
    return tuple(dict.fromkeys(names))


_LABEL_PIECES = (
    "(a)=", "(b c)=", ":name: n", ":label: l", "name: y", "---", "```", "```{figure} x",
    "```{figure-md} f", ":::{figure-md} g", "```{code-block}", "\n", "\n", "\n", " ", "\t",
    "   ", "    ", "x", "(", ":", "`", "> ", "- ", "~~~",
)  # fmt: skip


@given(joined(_LABEL_PIECES, 30))
@settings(max_examples=1500, deadline=None)
def test_labels_visit_only_the_lines_they_can_be_on(text: str) -> None:
    page = parse_page("p.md", text.encode())
    assert myst.labels(page) == _labels_line_by_line(page), text
