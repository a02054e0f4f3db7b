"""Sphinx with MyST-Parser (and Jupyter Book) as Sphinx builds it: `[text](label)` names a
label or a document, `genindex` and `search` always exist, heading anchors only to the depth
`myst_heading_anchors` gives, the toctree is the navigation. The real Sphinx is the oracle."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sites.oracle import disagreements, kbkit_flagged, sphinx_verdicts

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def init(site: Path, work: Path) -> Path:
    repo = work / "repo"
    shutil.copytree(site, repo)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init"], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return repo


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
    assert len(verdicts) >= 25 and len(broken) >= 8
    repo = init(site, tmp_path)
    assert disagreements(verdicts, kbkit_flagged(repo)) == []
