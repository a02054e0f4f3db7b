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
    """A read from a FIFO waits for its writer forever: the real `kb` must exit 2 at once."""
    knowledge = tmp_path / "knowledge"
    knowledge.mkdir()
    (knowledge / "policy.yaml").write_text("links:\n  redirects: redirects.yaml\n")
    fifo = tmp_path / "redirects.yaml"
    os.mkfifo(fifo)
    # a writer that never writes: the reader's open() returns, a read() would wait
    code = f"import time; f = open({str(fifo)!r}, 'w'); time.sleep(30)"
    writer = subprocess.Popen([sys.executable, "-c", code])
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kbkit", "check", "--repo", str(tmp_path)],
            capture_output=True, text=True, timeout=20,
        )  # fmt: skip
    finally:
        writer.kill()
    assert done.returncode == 2, done.stderr
    assert "the redirects file must be a regular file" in done.stderr
