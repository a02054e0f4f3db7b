"""What a failed git call says: the cause git gave, not the advice it ends with."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kbkit.vcs.git import GitError, failure_detail, run_git


def test_an_unreachable_remote_names_the_cause_not_git_s_closing_advice(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(GitError) as raised:
        run_git(tmp_path, "ls-remote", "--heads", str(tmp_path / "no-such-remote"))
    message = str(raised.value)
    assert "does not appear to be a git repository" in message, message
    assert "and the repository exists" not in message


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        ("hint: a\nerror: failed to push some refs to 'x'\n", "failed to push some refs to 'x'"),
        ("remote: refused today\nerror: failed to push\n", "refused today | failed to push"),
        ("To x\n ! [remote rejected] main\n", "! [remote rejected] main"),
        ("", "exit code 128"),
    ],
)
def test_the_detail_is_the_first_fatal_or_error_line_else_the_last(
    stderr: str, expected: str
) -> None:
    assert failure_detail(stderr, 128) == expected
