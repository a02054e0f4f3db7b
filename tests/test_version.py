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


def test_the_readme_pins_the_tag_of_this_version() -> None:
    readme = (PROJECT / "README.md").read_text("utf-8")
    assert f"rev: v{kbkit.__version__}" in readme
    assert "kbkit[llm]" not in readme and "install kbkit\n" not in readme


def test_kb_version_prints_the_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"kbkit {kbkit.__version__}"
