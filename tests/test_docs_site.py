"""kbkit's documentation site builds strictly with its generator, MkDocs, and kbkit's own
check passes on it (#42): the project checks its docs with its own tool, with the generator
as the oracle. Both see a broken link planted in a copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[1]
DOCS_POLICY = "kbkit-docs.yaml"


def mkdocs_build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip


def kb_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--repo", str(root), "--policy",
         str(root / DOCS_POLICY)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(PROJECT / "tools")},
    )  # fmt: skip


def nav_pages(nav: list[object]) -> list[str]:
    found: list[str] = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found += nav_pages(value) if isinstance(value, list) else [str(value)]
    return found


def test_the_navigation_lists_every_page_once() -> None:
    config = yaml.safe_load((PROJECT / "mkdocs.yml").read_text("utf-8"))
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = nav_pages(config["nav"])
    docs = PROJECT / "docs"
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    records = [page for page in pages if page.startswith("decisions/0")]
    assert config["not_in_nav"].split() == ["/decisions/0*.md"] and len(records) >= 30
    assert sorted(listed) == [page for page in pages if page not in records]
    assert len(listed) == len(set(listed))
    index = (docs / "decisions" / "index.md").read_text("utf-8")
    assert all(f"]({page.removeprefix('decisions/')})" in index for page in records)
    ignored = (PROJECT / ".gitignore").read_text("utf-8").splitlines()
    assert f"{config['site_dir']}/" in ignored  # the built site is never committed


def test_the_docs_policy_is_what_kb_init_writes_for_a_mkdocs_site() -> None:
    policy = yaml.safe_load((PROJECT / DOCS_POLICY).read_text("utf-8"))
    assert policy["extends"] == "mkdocs" and policy["knowledge_root"] == "docs"
    assert f"kb check --policy {DOCS_POLICY}" in (PROJECT / "Makefile").read_text("utf-8")


@pytest.mark.slow
def test_the_site_builds_strictly_and_kb_check_passes_on_it(tmp_path: Path) -> None:
    built = mkdocs_build(PROJECT, tmp_path / "site")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (tmp_path / "site" / "getting-started" / "index.html").is_file()
    checked = kb_check(PROJECT)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "kbkit check passed" in checked.stdout


@pytest.mark.slow
def test_both_see_a_broken_link(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copytree(PROJECT / "docs", copy / "docs")
    for name in ("mkdocs.yml", DOCS_POLICY):
        shutil.copy(PROJECT / name, copy / name)
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    page = copy / "docs" / "troubleshooting.md"
    page.write_text(page.read_text("utf-8") + "\nSee [the old page](no-such-page.md).\n")
    assert mkdocs_build(copy, tmp_path / "site").returncode == 1
    checked = kb_check(copy)
    assert checked.returncode == 1
    assert "docs/troubleshooting.md" in checked.stdout and "tree/link-broken" in checked.stdout
