"""Configuration files others wrote are read bounded: a regular file, up to a limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.config_file import read_config_bytes, read_config_text
from kbkit.infra.errors import UsageError


def test_a_regular_file_within_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "redirects.yaml"
    path.write_text("old.md: new.md\n")
    assert read_config_text(path, 100, "the redirects file") == "old.md: new.md\n"


def test_oversized_missing_and_non_utf8_files_are_usage_errors(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 11)
    with pytest.raises(UsageError, match="the baseline may hold at most 10 bytes"):
        read_config_bytes(big, 10, "the baseline")
    with pytest.raises(UsageError, match="cannot read the baseline"):
        read_config_bytes(tmp_path / "none.json", 10, "the baseline")
    latin = tmp_path / "toc.yml"
    latin.write_bytes(b"caf\xe9\n")
    with pytest.raises(UsageError, match="is not UTF-8"):
        read_config_text(latin, 100, "the table of contents")


@pytest.mark.slow
def test_a_fifo_in_place_of_a_redirects_file_is_refused_without_blocking(
    tmp_path: Path,
) -> None:
    """Opening a FIFO for reading waits for a writer, forever when none comes (and a read
    then waits for data): the real `kb` must exit 2 at once, the FIFO never opened."""
    knowledge = tmp_path / "knowledge"
    knowledge.mkdir()
    (knowledge / "policy.yaml").write_text("links:\n  redirects: redirects.yaml\n")
    os.mkfifo(tmp_path / "redirects.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--repo", str(tmp_path)],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "redirects.yaml: the redirects file is a FIFO, not a regular file" in done.stderr


@pytest.mark.parametrize("where", ["kbkit.yaml", "knowledge/policy.yaml", "docs/policy.yaml"])
def test_a_fifo_in_place_of_the_policy_file_is_refused_without_blocking(
    tmp_path: Path, where: str
) -> None:
    """`kb check` looked for a policy with `is_file()` (False for a FIFO) and then read every
    `<folder>/policy.yaml` to see whether it names its folder: a FIFO there hung the check."""
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "docs").mkdir()
    os.mkfifo(tmp_path / where)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--repo", str(tmp_path)],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    if where == "docs/policy.yaml":  # maybe another tool's: passed over, the defaults apply
        assert done.returncode == 1, done.stderr
        assert "using the built-in profile 'default'" in done.stderr
        return
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"{where}: the policy file is a FIFO, not a regular file; not read" in done.stderr


def test_the_policy_given_with_policy_may_not_be_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    os.mkfifo(tmp_path / "team.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--repo", str(tmp_path), "--policy",
         str(tmp_path / "team.yaml")],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "team.yaml: the policy file is a FIFO, not a regular file" in done.stderr
