"""The action and the example workflow run only what they pin: every step by commit, with its
version named beside it, and kbkit's own dependencies at the tested versions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[1]
ACTION = PROJECT / "action.yml"
PINNED = re.compile(r"^\s*(?:- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40}  # v\d+\.\d+\.\d+$")


@pytest.mark.parametrize("path", ["action.yml", "examples/github-actions/kbkit-daily.yml"])
def test_every_step_is_pinned_by_commit_with_its_version_named(path: str) -> None:
    """A tag can be moved to other code; a commit cannot (GitHub's hardening guide)."""
    uses = [line for line in (PROJECT / path).read_text().splitlines() if "uses:" in line]
    assert uses, path
    for line in uses:
        assert PINNED.match(line), line


def test_the_install_step_pins_kbkits_dependencies() -> None:
    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    install = next(step for step in steps if step.get("name") == "Install kbkit")
    assert '-c "$GITHUB_ACTION_PATH/requirements/constraints.txt"' in install["run"]
