"""One version, one distribution name, one tag scheme that a pre-commit `rev:` can pin."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import kbkit

PROJECT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "kbkit-knowledge"  # `kbkit` on PyPI is an unrelated project


def project() -> dict[str, Any]:
    return tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))["project"]


def test_the_distribution_is_not_named_like_the_unrelated_pypi_project() -> None:
    assert project()["name"] == DISTRIBUTION
    assert "version" in project()["dynamic"]  # read from kbkit.__version__, nowhere else


def test_the_installed_metadata_carries_kbkit_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", kbkit.__version__)
    assert metadata.version(DISTRIBUTION) == kbkit.__version__


def test_the_docs_pin_only_tags_that_exist() -> None:
    """No `rev: vX.Y.Z`, `kbkit@vX.Y.Z` or `@vX.Y.Z` of kbkit in the README, the docs, the
    examples, the Action or the knowledge tree, unless that tag exists: a pin of a tag that
    was never pushed cannot install (#42). `make release` makes the tag."""
    tags = set(
        subprocess.run(
            ["git", "-C", str(PROJECT), "tag", "-l"], capture_output=True, text=True
        ).stdout.split()
    )
    pin = re.compile(r"(?:rev:\s*|kbkit(?:-dev/kbkit)?@)(v\d+\.\d+\.\d+)")
    files = [PROJECT / "README.md", PROJECT / "CONTRIBUTING.md", PROJECT / "action.yml"]
    for folder in ("docs", "examples", "knowledge"):
        files += [p for p in (PROJECT / folder).rglob("*") if p.suffix in (".md", ".yml", ".yaml")]
    pinned = {
        (path.relative_to(PROJECT).as_posix(), tag)
        for path in files
        for tag in pin.findall(path.read_text("utf-8"))
        if tag not in tags
    }
    assert pinned == set(), f"pins of tags that do not exist: {sorted(pinned)}"
    readme = (PROJECT / "README.md").read_text("utf-8")
    assert "kbkit[llm]" not in readme and "install kbkit\n" not in readme


def test_kb_version_prints_the_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"kbkit {kbkit.__version__}"
