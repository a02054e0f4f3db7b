"""`kb intake sync`: the ledgers on the bot's state branch, over real git remotes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from tests.gitrepo import commit_files, git, init_repo

from kbkit.__main__ import main
from kbkit.intake.ledger import append_status, load_status, record_events
from kbkit.intake.merged_prs import advance_cursor, read_cursor
from kbkit.intake.sources.mailbox import REFUSED_FILE, RefusedComment, remember_refused
from kbkit.intake.state_branch import BRANCH
from kbkit.vcs import git as git_module

SLUG = "acme/app"


def event(n: int) -> dict[str, object]:
    return {"source_kind": "merged_pr", "source_id": f"{SLUG}#{n}", "repo": SLUG, "number": n,
            "title": f"PR {n}", "recorded_at": f"2026-11-30T10:00:{n:02d}Z"}  # fmt: skip


def runner(tmp_path: Path, origin: Path, name: str) -> Path:
    """A fresh checkout of the team's repository: what a CI runner starts from."""
    work = tmp_path / name
    git(tmp_path, "clone", "--quiet", str(origin), str(work))
    git(work, "config", "user.email", "bot@example.com")
    git(work, "config", "user.name", "bot")
    return work


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    seed = init_repo(tmp_path / "seed")
    commit_files(seed, {"README.md": "team\n", "intake/config.yaml": f"repo: {SLUG}\n"}, "init")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(seed), str(bare))
    return bare


def sync(work: Path, *args: str) -> int:
    return main(["intake", "sync", "--repo", str(work), *args])


@pytest.mark.slow
def test_a_fresh_runner_starts_from_what_yesterday_pushed(
    tmp_path: Path, origin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day1 = runner(tmp_path, origin, "day1")
    assert sync(day1, "--pull") == 0
    assert "has no kbkit/intake-state yet" in capsys.readouterr().out
    record_events(day1 / "intake", [event(1), event(2)])
    advance_cursor(day1 / "intake", {SLUG: "2026-11-30T10:00:00Z"})
    remember_refused(day1 / "intake", [RefusedComment("c", "stranger", "77", True)])
    assert sync(day1, "--push") == 0
    assert "pushed kbkit/intake-state" in capsys.readouterr().out
    main_log = git(origin, "log", "--format=%s", "main")
    assert main_log.strip() == "init"  # main untouched: only the bot's branch moved
    day2 = runner(tmp_path, origin, "day2")  # no state/, no ledgers of yesterday
    assert sync(day2, "--pull") == 0
    assert "events.jsonl +2" in capsys.readouterr().out
    assert len(load_status(day2 / "intake")) == 2
    assert read_cursor(day2 / "intake") == {SLUG: "2026-11-30T10:00:00Z"}
    assert json.loads((day2 / "intake" / REFUSED_FILE).read_text())["refused"] == {"77": "stranger"}
    assert sync(day2, "--push") == 0
    assert "already holds every record" in capsys.readouterr().out


@pytest.mark.slow
def test_a_push_another_writer_beat_is_merged_and_retried(
    tmp_path: Path,
    origin: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = runner(tmp_path, origin, "a"), runner(tmp_path, origin, "b")
    record_events(first / "intake", [event(1)])
    record_events(second / "intake", [event(2)])
    advance_cursor(first / "intake", {SLUG: "2026-11-30T09:00:00Z"})
    advance_cursor(second / "intake", {SLUG: "2026-11-30T10:00:00Z"})
    row = load_status(second / "intake")[("merged_pr", f"{SLUG}#2")]
    append_status(
        second / "intake", "merged_pr", f"{SLUG}#2", "published", attempts=1, previous=row
    )
    real = git_module.push_lease
    raced: list[str] = []

    def first_pushes_in_between(*args: object) -> None:
        if not raced:  # between the second writer's fetch and its push, the first pushes
            raced.append("first")
            assert sync(first, "--push") == 0
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(git_module, "push_lease", first_pushes_in_between)
    assert sync(second, "--push") == 0  # its lease on the old tip fails once: merged, retried
    out = capsys.readouterr().out
    assert raced and "after 2 tries" in out and "events.jsonl +1" in out
    third = runner(tmp_path, origin, "c")
    assert sync(third, "--pull") == 0
    status = load_status(third / "intake")
    assert {k[1]: v["state"] for k, v in status.items()} == {f"{SLUG}#1": "pending", f"{SLUG}#2": "published"}  # fmt: skip
    assert read_cursor(third / "intake") == {SLUG: "2026-11-30T10:00:00Z"}  # the newest wins


@pytest.mark.slow
def test_a_refused_push_says_why_and_keeps_the_local_ledgers(
    tmp_path: Path,
    origin: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KBKIT_SYNC_PAUSE", "0.01")
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch: kbkit/*' >&2\nexit 1\n")
    hook.chmod(0o755)
    work = runner(tmp_path, origin, "w")
    record_events(work / "intake", [event(1)])
    before = (work / "intake" / "events.jsonl").read_bytes()
    assert sync(work, "--push") == 1
    err = capsys.readouterr().err
    assert "could not be pushed to origin kbkit/intake-state after 3 tries" in err
    assert "protected branch: kbkit/*" in err and "Traceback" not in err
    assert (work / "intake" / "events.jsonl").read_bytes() == before


def test_sync_needs_a_git_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    (plain / "intake").mkdir(parents=True)
    assert sync(plain, "--pull") == 2
    assert "not a git work tree" in capsys.readouterr().err
    assert BRANCH == "kbkit/intake-state" and shutil.which("git")


@pytest.mark.slow
def test_many_repositories_push_one_shared_state_branch_at_once(
    tmp_path: Path, origin: Path
) -> None:
    """An organization's repositories share one state branch (a URL, here a bare repository
    none of them is cloned from): twelve runners push at the same moment; every one lands,
    every record is on the branch once, nothing is charged (issue #39 point 3)."""
    import subprocess
    import sys

    shared = tmp_path / "shared.git"
    git(tmp_path, "init", "--quiet", "--bare", str(shared))
    works = []
    for n in range(1, 13):
        work = runner(tmp_path, origin, f"repo{n}")
        config = work / "intake" / "config.yaml"
        config.write_text(f"repo: acme/app{n}\n")
        record_events(work / "intake", [{**event(n), "source_id": f"acme/app{n}#{n}", "repo": f"acme/app{n}"}])  # fmt: skip
        advance_cursor(work / "intake", {f"acme/app{n}": f"2026-11-30T10:00:{n:02d}Z"})
        works.append(work)
    env = {**os.environ, "KBKIT_STATE_REMOTE": shared.as_uri(), "KBKIT_SYNC_PAUSE": "0.05"}
    command = [sys.executable, "-m", "kbkit", "intake", "sync", "--push", "--repo"]
    running = [subprocess.Popen([*command, str(w)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for w in works]  # fmt: skip
    results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in running]  # type: ignore[union-attr]
    assert [code for code, _, _ in results] == [0] * 12, results
    fresh = runner(tmp_path, origin, "central")
    assert sync(fresh, "--pull", "--remote", shared.as_uri()) == 0
    events = (fresh / "intake" / "events.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["source_id"] for line in events) == sorted(f"acme/app{n}#{n}" for n in range(1, 13))  # fmt: skip
    assert len(read_cursor(fresh / "intake")) == 12
    assert sum(b"after " in out for _, out, _ in results) >= 1  # some of them lost a race
