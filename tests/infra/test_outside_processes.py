"""git and gh as outside processes: deadlines, validated output, the remote's own reasons."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbkit.infra.errors import EnvironmentFailure, UsageError
from kbkit.vcs import git, github
from tests.gitrepo import git as sh_git

REPO = "kbkit-dev/knowledge"


def fake_gh(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Put a `gh` that runs `script` (Python) first on PATH."""
    bin_dir.mkdir(exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(f"#!{sys.executable}\nimport sys\n{script}\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def printing(stdout: str, *, stderr: str = "", code: int = 0) -> str:
    return f"sys.stdout.write({stdout!r})\nsys.stderr.write({stderr!r})\nsys.exit({code})"


def pull(number: object = 7, url: str = f"https://github.com/{REPO}/pull/7") -> dict[str, object]:
    """A pull request object as GitHub's REST API sends it (the fields kbkit reads)."""
    return {
        "number": number, "html_url": url, "state": "open", "title": "t", "body": None,
        "head": {"ref": "b", "sha": "0" * 40, "repo": {"owner": {"login": "bot"}}},
        "base": {"ref": "main"}, "created_at": "2026-11-30T00:00:00Z", "merged_at": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (pull(number="7"), "PR number '7' is not a positive integer"),
        (pull(number=7.5), "is not a positive integer"),
        (pull(number=True), "is not a positive integer"),
        (pull(url=f"http://github.com/{REPO}/pull/7"), "not https://github.com/"),
        (pull(url=f"https://github.com.evil.example/{REPO}/pull/7"), "not https://github.com/"),
        (pull(url="https://github.com/someone/else/pull/7"), "not https://github.com/"),
        (pull(url=f"https://token@github.com/{REPO}/pull/7"), "not https://github.com/"),
    ],
)
def test_pull_request_objects_are_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: dict[str, object], message: str
) -> None:
    fake_gh(tmp_path / "bin", monkeypatch, printing(json.dumps([entry])))
    with pytest.raises(github.GitHubError, match=message):
        github.list_pulls(REPO, tmp_path)


def test_a_pr_url_on_the_configured_enterprise_host_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"https://ghe.example.com/{REPO}/pull/3"
    fake_gh(tmp_path / "bin", monkeypatch, printing(json.dumps([pull(3, url)])))
    with pytest.raises(github.GitHubError, match="not https://github.com/"):
        github.list_pulls(REPO, tmp_path)
    monkeypatch.setenv("GH_HOST", "ghe.example.com")
    assert [found.url for found in github.list_pulls(REPO, tmp_path)] == [url]


def test_a_github_error_object_is_reported_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = json.dumps({"message": "Bad credentials", "documentation_url": "https://docs"})
    fake_gh(tmp_path / "bin", monkeypatch, printing(error))  # exit 0, error on stdout
    said = "GitHub refused the credentials: GitHub said: Bad credentials"
    with pytest.raises(github.GitHubCredentials, match=f"gh api repos/{REPO}/pulls: {said}"):
        github.api_json(f"repos/{REPO}/pulls", tmp_path)
    fake_gh(tmp_path / "bin", monkeypatch, printing("", stderr=f"gh: {error}\n", code=1))
    with pytest.raises(github.GitHubCredentials, match=said):
        github.api_post(f"repos/{REPO}/pulls", {}, tmp_path)


@pytest.mark.slow
def test_a_hanging_gh_is_stopped_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    fake_gh(
        tmp_path / "bin",
        monkeypatch,
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '1000'])\n"
        f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(1000)",
    )
    monkeypatch.setenv("KBKIT_GH_TIMEOUT", "1.5")
    started = time.monotonic()
    with pytest.raises(EnvironmentFailure, match="did not finish within 1.5s") as e:
        github.api_post(f"repos/{REPO}/pulls", {}, tmp_path)
    assert time.monotonic() - started < 10
    assert e.value.exit_code == 4 and "KBKIT_GH_TIMEOUT" in str(e.value)
    grandchild = int(pids.read_text())
    # SIGKILL is delivered asynchronously: on a loaded machine the child can still be
    # running for a moment after killpg returns
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(grandchild)


def test_a_bad_timeout_setting_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBKIT_GIT_TIMEOUT", "soon")
    with pytest.raises(UsageError, match="KBKIT_GIT_TIMEOUT='soon'"):
        git.is_repository(tmp_path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead too: it only waits for its (killed) parent's reaper
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _remote_with_hook(tmp_path: Path, hook: str) -> tuple[Path, Path]:
    """A real bare remote with a pre-receive hook, and a clone with one new commit."""
    seed = tmp_path / "seed"
    seed.mkdir()
    sh_git(seed, "init", "-q", "-b", "main")
    (seed / "a.txt").write_text("a\n")
    sh_git(seed, "add", "a.txt")
    sh_git(seed, "commit", "-q", "-m", "seed")
    remote = tmp_path / "remote.git"
    sh_git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    hook_file = remote / "hooks" / "pre-receive"
    hook_file.write_text("#!/bin/sh\n" + hook)
    hook_file.chmod(0o755)
    (seed / "b.txt").write_text("b\n")
    sh_git(seed, "checkout", "-q", "-b", "day")
    sh_git(seed, "add", "b.txt")
    sh_git(seed, "commit", "-q", "-m", "day")
    return seed, remote


def test_a_rejected_push_shows_the_remote_reason(tmp_path: Path) -> None:
    clone, remote = _remote_with_hook(
        tmp_path,
        'echo "policy: knowledge branches need a reviewer" >&2\n'
        'echo "policy: see CONTRIBUTING.md" >&2\nexit 1\n',
    )
    with pytest.raises(git.GitError) as caught:
        git.push(clone, str(remote), "day")
    message = str(caught.value)
    assert "policy: knowledge branches need a reviewer" in message
    assert "policy: see CONTRIBUTING.md" in message
    assert "pre-receive hook declined" in message
    assert git.rev_parse(remote, "refs/heads/day") is None


@pytest.mark.slow
def test_a_hanging_push_is_stopped_within_the_git_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "hook.pid"
    clone, remote = _remote_with_hook(tmp_path, f"echo $$ > {pid_file}\nexec sleep 1000\n")
    monkeypatch.setenv("KBKIT_GIT_TIMEOUT", "3")
    started = time.monotonic()
    with pytest.raises(EnvironmentFailure, match=r"`git push \(in .*\)` did not finish within 3s"):
        git.push(clone, str(remote), "day")
    assert time.monotonic() - started < 15
    deadline = time.monotonic() + 5
    while _alive(int(pid_file.read_text())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(int(pid_file.read_text()))


@pytest.mark.slow
def test_a_timeout_through_kb_is_exit_4_and_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\nexec sleep 1000\n")
    (fake / "git").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}", KBKIT_GIT_TIMEOUT="1")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "intake", "record-git", "--repo", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 4, done.stderr
    lines = done.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and "did not finish within 1s" in lines[0]
        and "KBKIT_GIT_TIMEOUT" in lines[0]
    )
