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


OWN = "https://github.com/acme/handbook"


def self_linked_handbook(repo: Path, prefix: str = f"{OWN}/blob/main") -> Path:
    """A handbook at the top whose pages link each other by their GitHub address, as
    basecamp/handbook does: GitHub shows the same page either way."""
    repo.mkdir(parents=True, exist_ok=True)
    names = ("benefits", "getting-started", "how-we-work", "our-rituals")
    (repo / "README.md").write_text(
        "# Handbook\n\n" + "".join(f"- [{n}]({prefix}/{n}.md)\n" for n in names)
    )
    for name in names:
        (repo / f"{name}.md").write_text(
            f"# {name}\n\n## Your first days\n\nBack [home]({prefix}/).\n"
        )
    (repo / "src").mkdir()
    (repo / "src" / "tool.py").write_text("pass\n")
    return repo


def test_a_handbook_that_links_itself_by_its_github_address_knows_the_address(
    tmp_path: Path,
) -> None:
    site = detect_site(self_linked_handbook(tmp_path))
    assert site is not None and site.root == "."
    assert site.keys["links"]["own_urls"] == [f"{OWN}/blob/main/", f"{OWN}/tree/main/"]


def test_an_address_whose_links_mostly_name_nothing_here_is_another_repository(
    tmp_path: Path,
) -> None:
    repo = self_linked_handbook(tmp_path, prefix=f"{OWN}/blob/main")
    text = "".join(
        f"- [x]({'https://github.com/other/lib'}/blob/main/docs/{i}.md)\n" for i in range(9)
    )
    text += "- [y](https://github.com/other/lib/blob/main/README.md)\n" * 3  # 3 of 12 exist here
    (repo / "links.md").write_text("# Links\n\n" + text)
    site = detect_site(repo)
    assert site is not None
    assert site.keys["links"]["own_urls"] == [f"{OWN}/blob/main/", f"{OWN}/tree/main/"]


def test_links_to_two_of_its_own_files_are_not_enough(tmp_path: Path) -> None:
    for name in ("README", "benefits", "getting-started"):
        (tmp_path / f"{name}.md").write_text(
            f"# {name}\n\n[b]({OWN}/blob/main/benefits.md) [r]({OWN}/blob/main/README.md)\n"
        )
    site = detect_site(tmp_path)
    assert site is not None and "own_urls" not in site.keys["links"]


@pytest.mark.slow
def test_a_self_linked_handbook_has_no_false_orphans_and_its_broken_links_are_caught(
    tmp_path: Path,
) -> None:
    repo = self_linked_handbook(tmp_path / "repo")
    page = repo / "how-we-work.md"
    page.write_text(
        page.read_text()
        + f"\n[gone]({OWN}/blob/main/severance.md), [a part]({OWN}/blob/main/benefits.md#nowhere)"
        + f", [days]({OWN}/blob/main/benefits.md#your-first-days)"
        + f", [code]({OWN}/blob/main/src/gone.py), [v1]({OWN}/blob/v1.0/old.md)\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    assert kb(repo, "init").returncode == 0
    done = kb(repo, "check", "--format", "json")
    found = {(row["path"], row["rule"]) for row in json.loads(done.stdout)["findings"]}
    # no orphans (each page is linked by its address); the missing page and heading are
    # reported; a file of another ref (a tag) is not this tree's to check
    assert found == {("how-we-work.md", "tree/link-broken"), ("how-we-work.md", "tree/link-anchor")}


def test_own_urls_under_a_docs_folder_resolve_from_the_repository_top(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    names = ("a", "b", "c")
    for name in names:
        others = "".join(f"[{o}]({OWN}/blob/main/docs/{o}.md) " for o in names if o != name)
        (tmp_path / "docs" / f"{name}.md").write_text(
            f"# {name}\n\n{others}\n[src]({OWN}/blob/main/x.py)\n"
        )
    site = detect_site(tmp_path)
    assert site is not None and site.root == "docs"
    assert site.keys["links"]["own_urls"][0] == f"{OWN}/blob/main/"


@pytest.mark.slow
def test_a_docs_folders_own_urls_are_checked_inside_it_only(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    for name in ("a", "b", "c"):
        others = " ".join(f"[{o}]({OWN}/blob/main/docs/{o}.md)" for o in "abc" if o != name)
        (tmp_path / "docs" / f"{name}.md").write_text(f"# {name}\n\n{others}\n")
    (tmp_path / "docs" / "a.md").write_text(
        (tmp_path / "docs" / "a.md").read_text()
        + f"\n[gone]({OWN}/blob/main/docs/gone.md) [src]({OWN}/blob/main/src/x.py)\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert kb(tmp_path, "init").returncode == 0
    done = kb(tmp_path, "check", "--format", "json")
    found = {(r["path"], r["rule"], r["line"]) for r in json.loads(done.stdout)["findings"]}
    # the page outside docs/ (source code) is not the tree's to check
    assert found == {("docs/a.md", "tree/link-broken", 5)}


@pytest.mark.slow
def test_the_readme_id_is_found_as_github_shows_it(tmp_path: Path) -> None:
    """GitHub shows every markdown page, and a folder's README.md at the folder's address,
    inside an element whose id is `readme` (artsy/README links `/onboarding#readme` and
    `/RFCs/x.md#readme` so): found; an id no heading gives is still reported."""
    (tmp_path / "README.md").write_text(
        "# Handbook\n\n[On](/onboarding#readme) [Hire](hiring/#readme) [Nope](/onboarding#nope)\n"
        "\n[File](onboarding/README.md#readme)\n"
    )
    for folder in ("onboarding", "hiring"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(f"# {folder}\n\n[Home](../README.md)\n")
        (tmp_path / folder / "first-week.md").write_text("# Week\n\n[Back](README.md)\n")
        (tmp_path / folder / "README.md").write_text(
            f"# {folder}\n\n[Home](../README.md) [Week](first-week.md)\n"
        )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert kb(tmp_path, "init").returncode == 0
    done = kb(tmp_path, "check", "--format", "json")
    found = {(r["path"], r["rule"], r["line"]) for r in json.loads(done.stdout)["findings"]}
    assert found == {("README.md", "tree/link-anchor", 3)}


def test_a_symlinked_page_is_not_read_to_find_the_address(tmp_path: Path) -> None:
    """The pages whose links tell the repository's address are read only where they are
    regular files: a symlink may lead out of the repository."""
    outside = tmp_path / "outside.md"
    outside.write_text("".join(f"[{n}]({OWN}/blob/main/{n}.md)\n" for n in "abc"))
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("README", "a", "b", "c"):
        (repo / f"{name}.md").write_text(f"# {name}\n")
    (repo / "links.md").symlink_to(outside)
    site = detect_site(repo)
    assert site is not None and "own_urls" not in site.keys["links"]
