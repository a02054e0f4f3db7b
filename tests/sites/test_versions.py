"""Versioned docs, whatever the generator: folders that each hold one version of the same
pages (`docs/v1.2/`, `docs/v1.3/`) are the policy's `versions`, so a page copied from one
version to the next is no duplicate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.sites import detect_site
from kbkit.sites.config import version_folders

PAGE = "# Install\n\n" + "Download the archive, unpack it and run the collector. " * 20 + "\n"


def folders(top: Path, *names: str) -> Path:
    for name in names:
        (top / name).mkdir(parents=True, exist_ok=True)
        (top / name / "install.md").write_text(PAGE)
    return top


def test_numbered_folders_and_the_next_version_beside_them(tmp_path: Path) -> None:
    folders(tmp_path, "docs/v1/1.76", "docs/v2/2.0", "docs/v2/2.1", "docs/v2/_dev", "blog")
    assert version_folders(tmp_path) == ["docs/v1/*", "docs/v2/*"]


def test_versions_beside_other_folders_are_named_one_by_one(tmp_path: Path) -> None:
    folders(tmp_path, "3.1", "3.2", "guides", "next")
    assert version_folders(tmp_path) == ["3.1", "3.2", "next"]


def test_docusaurus_versioned_docs(tmp_path: Path) -> None:
    folders(tmp_path, "versioned_docs/version-0.77", "versioned_docs/version-0.78", "docs")
    assert version_folders(tmp_path) == ["versioned_docs/*"]


def test_one_version_folder_or_none_is_no_versioning(tmp_path: Path) -> None:
    folders(tmp_path, "api/v1", "guides", "dev")
    assert version_folders(tmp_path) == []


def test_init_names_the_version_folders_of_a_hugo_site(tmp_path: Path) -> None:
    (tmp_path / "hugo.toml").write_text("title = 'x'\n")
    folders(tmp_path / "content", "docs/v1.0", "docs/v1.1")
    site = detect_site(tmp_path)
    assert site is not None and site.keys["versions"] == ["docs/*"]


@pytest.mark.slow
def test_a_page_copied_into_the_next_version_is_no_duplicate(tmp_path: Path) -> None:
    (tmp_path / "hugo.toml").write_text("title = 'x'\n")
    folders(tmp_path / "content", "docs/v1.0", "docs/v1.1")
    (tmp_path / "content/docs/v1.1/setup.md").write_text(PAGE)  # a copy within one version
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=tmp_path, check=True, capture_output=True)
    done = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=tmp_path, capture_output=True, text=True
    )
    duplicates = {
        row["path"]
        for row in json.loads(done.stdout)["findings"]
        if row["rule"] == "tree/duplicate-page"
    }
    assert duplicates == {"content/docs/v1.1/setup.md"} or duplicates == {
        "content/docs/v1.1/install.md"
    }
