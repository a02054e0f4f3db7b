"""DocFX and Microsoft Learn: a site-root link `/azure/x` is another docset of the same site,
a URL, not a file path; links into this docset's own URL space are still checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def docset(repo: Path, with_base: bool) -> Path:
    (repo / "docs" / "guide").mkdir(parents=True)
    content = {"files": ["**/*.md", "**/toc.yml"], "src": "docs", "dest": "guide"}
    (repo / "docfx.json").write_text(json.dumps({"build": {"content": [content]}}))
    (repo / "docs" / "toc.yml").write_text(
        "- name: Intro\n  href: intro.md\n- name: Setup\n  href: guide/setup.md\n"
    )
    own = (
        "[own](/product/guide/guide/setup)\n[missing](/product/guide/guide/nothing)"
        if with_base
        else ""
    )
    (repo / "docs" / "intro.md").write_text(
        "# Intro\n\nSee [Azure](/azure/storage/blobs/overview) and "
        f"[PowerShell](/powershell/module/az.storage/?view=azps-12.0.0).\n{own}\n"
    )
    (repo / "docs" / "guide" / "setup.md").write_text("# Setup\n\nBack to [intro](../intro.md).\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


def findings(repo: Path) -> set[tuple[str, str]]:
    kb = [sys.executable, "-m", "kbkit"]
    done = subprocess.run([*kb, "init"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    checked = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=repo, capture_output=True, text=True
    )
    return {(f["path"], f["rule"]) for f in json.loads(checked.stdout)["findings"]}


def test_links_to_other_docsets_are_urls_not_absolute_paths(tmp_path: Path) -> None:
    found = findings(docset(tmp_path / "repo", with_base=False))
    assert ("docs/intro.md", "tree/link-absolute") not in found
    assert found == set()


def test_links_into_the_docsets_own_url_space_are_still_checked(tmp_path: Path) -> None:
    found = findings(docset(tmp_path / "repo", with_base=True))
    assert found == {("docs/intro.md", "tree/link-broken")}  # /product/guide/guide/nothing


def test_a_tree_at_the_top_names_its_pages_without_dot_slash_and_checks_staged_pages(
    tmp_path: Path,
) -> None:
    # The knowledge root is the repository's top (docfx.json's folder): paths read
    # `docs/x.md`, and `kb check --staged` (the pre-commit hook) sees the tracked pages.
    repo = docset(tmp_path / "repo", with_base=False)
    assert findings(repo) == set()
    page = repo / "docs" / "guide" / "setup.md"
    page.write_text(page.read_text() + "\nSee [the missing page](missing.md).\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    staged = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--staged", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert staged.returncode == 1, staged.stdout + staged.stderr
    found = json.loads(staged.stdout)["findings"]
    assert [(f["path"], f["rule"]) for f in found] == [("docs/guide/setup.md", "tree/link-broken")]
    assert "./" not in staged.stdout


def test_a_folder_the_build_makes_a_toc_for_is_linked_as_its_yaml(tmp_path: Path) -> None:
    """A content folder whose `toc.yml` the build lists but the tree lacks is a reference
    the build generates (Learn's PowerShell modules: each `X.md` becomes YAML): its pages
    need no entry, and `X.yml#-param` names the page `X.md` and its heading."""
    repo = tmp_path / "repo"
    (repo / "module").mkdir(parents=True)
    content = [{"files": ["**/*.md", "toc.yml"], "src": "module", "dest": "module"}]
    (repo / "docfx.json").write_text(json.dumps({"build": {"content": content}}))
    (repo / "module" / "Set-Thing.md").write_text("# Set-Thing\n\n### -Name\n\nThe name.\n")
    (repo / "module" / "Get-Thing.md").write_text(
        "# Get-Thing\n\nSee [Set-Thing](Set-Thing.yml#-name), [a gone one](Gone-Thing.yml) "
        "and [a gone parameter](Set-Thing.yml#-path).\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    assert findings(repo) == {
        ("module/Get-Thing.md", "tree/link-broken"),
        ("module/Get-Thing.md", "tree/link-anchor"),
    }
