"""No generator: init finds the folder that holds the repository's markdown (a handbook in
`content/`), checks it, and never scaffolds a new tree beside it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.sites import detect_site
from kbkit.sites.plain import markdown_by_top_folder


def handbook(repo: Path, pages: int = 30) -> Path:
    (repo / "content" / "teams").mkdir(parents=True)
    (repo / "README.md").write_text("# Handbook\n\nRead [the handbook](content/index.md).\n")
    links = "\n".join(f"- [Team {i}](teams/team-{i}.md)" for i in range(pages))
    (repo / "content" / "index.md").write_text(f"# Handbook\n\n{links}\n")
    for i in range(pages):
        (repo / "content" / "teams" / f"team-{i}.md").write_text(
            f"# Team {i}\n\nBack to [the handbook](../index.md).\n"
        )
    return repo


def kb(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], cwd=repo, capture_output=True, text=True
    )


def test_the_folder_with_most_of_the_markdown_is_the_root(tmp_path: Path) -> None:
    site = detect_site(handbook(tmp_path))
    assert site is not None
    assert (site.generator, site.root, site.config) == ("a content/ folder", "content", "content/")
    assert markdown_by_top_folder(tmp_path) == {"content": 31, ".": 1}


def test_scattered_readmes_are_no_site(tmp_path: Path) -> None:
    for folder in ("src", "lib", "tools"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text("# x\n")
    (tmp_path / "README.md").write_text("# x\n")
    assert detect_site(tmp_path) is None


def test_vendored_and_hidden_markdown_does_not_count(tmp_path: Path) -> None:
    handbook(tmp_path, pages=3)
    for folder in ("node_modules/pkg", ".github", "vendor/lib"):
        (tmp_path / folder).mkdir(parents=True)
        for i in range(20):
            (tmp_path / folder / f"{i}.md").write_text("# x\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "content"


def test_an_existing_knowledge_folder_wins(tmp_path: Path) -> None:
    handbook(tmp_path, pages=3)
    (tmp_path / "knowledge").mkdir()
    assert detect_site(tmp_path) is None


def test_init_checks_the_handbook_and_catches_a_broken_link(tmp_path: Path) -> None:
    repo = handbook(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    page = repo / "content" / "teams" / "team-7.md"
    page.write_text(
        page.read_text() + "\nSee [the rota](../rota.md).\n"
    )  # written as the site writes
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert not (repo / "knowledge").exists()  # nothing scaffolded beside the handbook
    assert "a content/ folder, content/: 31 page(s) under content/" in done.stdout
    assert "1 markdown page(s) elsewhere in the repository are not checked" in done.stdout
    checked = kb(repo, "check", "--format", "json")
    found = {(f["path"], f["rule"]) for f in json.loads(checked.stdout)["findings"]}
    assert ("content/teams/team-7.md", "tree/link-broken") in found
    assert json.loads(checked.stdout)["summary"]["pages"] >= 31


def test_a_repository_that_is_the_handbook_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Guides\n\n- [Git](git/README.md)\n")
    for folder in ("git", "ruby", "testing", "security"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(f"# {folder}\n\n- [How](how-to.md)\n")
        (tmp_path / folder / "how-to.md").write_text(f"# How to {folder}\n")
    (tmp_path / "ruby" / "sample.rb").write_text("puts 1\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "." and site.profile == "public-docs"
    assert site.keys["links"]["site_root"] == "."  # `/git/x.md`: from the repository's top


def test_a_flat_handbook_at_the_top_is_read_whole(tmp_path: Path) -> None:
    for name in ("README", "benefits", "getting-started", "how-we-work"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n")
    site = detect_site(tmp_path)
    assert site is not None and site.root == "."


def test_code_with_a_few_pages_beside_it_is_no_handbook(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# x\n")
    (tmp_path / "CONTRIBUTING.md").write_text("# x\n")
    (tmp_path / "CHANGELOG.md").write_text("# x\n")
    (tmp_path / "src").mkdir()
    for i in range(5):
        (tmp_path / "src" / f"m{i}.py").write_text("pass\n")
    assert detect_site(tmp_path) is None


@pytest.mark.slow
def test_a_handbooks_links_from_the_top_resolve_as_github_resolves_them(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "# Guides\n\n[Git](/git/how-to.md), [gone](/git/gone.md), [style](ruby/style.md)\n"
        "\n[Ruby's intro](/ruby/#ruby), [a missing part](/ruby/#nowhere)\n"
        "\n[Shell](shell/tips.md), [SQL](sql/tips.md)\n"
    )
    (tmp_path / "git").mkdir()
    (tmp_path / "ruby").mkdir()
    (tmp_path / "git" / "how-to.md").write_text("# How\n\nBack [home](/README.md).\n")
    (tmp_path / "ruby" / "style.md").write_text("# Style\n\n[How](/git/how-to.md#how)\n")
    (tmp_path / "ruby" / "README.md").write_text("# Ruby\n\n[Style](style.md)\n")
    for folder in ("shell", "sql"):  # no folder holds most of the pages
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tips.md").write_text("# Tips\n\n[Home](../README.md)\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert kb(tmp_path, "init").returncode == 0
    done = kb(tmp_path, "check", "--format", "json")
    found = {(row["path"], row["rule"], row["line"]) for row in json.loads(done.stdout)["findings"]}
    # a folder's address shows its README.md: the fragment names one of its headings
    assert found == {("README.md", "tree/link-broken", 3), ("README.md", "tree/link-anchor", 5)}
