"""Two hosts record overlapping events into their clones; a real `git merge` unions them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from intake_factories import SLUG, make_pr, write_pages
from tests.gitrepo import commit_files, git, init_repo

from kbkit.__main__ import main
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATUS_FILE,
    append_status,
    load_events,
    load_status,
    pending_events,
)

PROJECT = Path(__file__).resolve().parents[2]


def _clone(origin: Path, path: Path) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(path))
    return path


def _record(clone: Path, numbers: range, page: str) -> None:
    write_pages(clone.parent / page, [[make_pr(n) for n in numbers]])
    assert (
        main(["intake", "record-prs", "--repo", str(clone), "--from", str(clone.parent / page)])
        == 0
    )
    git(clone, "add", "intake/events.jsonl", "intake/status.jsonl")
    git(clone, "commit", "-q", "-m", f"intake: record {page}")


@pytest.mark.slow
def test_union_merge_of_two_clones_folds_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = init_repo(tmp_path / "origin")
    shutil.copy(PROJECT / ".gitattributes", origin / ".gitattributes")
    commit_files(origin, {"intake/.keep": ""}, "Start the ledger")
    git(origin, "config", "receive.denyCurrentBranch", "ignore")
    host_a = _clone(origin, tmp_path / "host-a")
    host_b = _clone(origin, tmp_path / "host-b")

    _record(host_a, range(1, 31), "a.json")  # PRs 1..30
    # host b records later, so its rows for the overlap differ from host a's byte for byte
    monkeypatch.setenv("KBKIT_NOW", "2026-12-01T00:00:00Z")
    _record(host_b, range(21, 51), "b.json")  # PRs 21..50: 21..30 recorded by both
    append_status(
        host_b / "intake",
        "merged_pr",
        f"{SLUG}#25",
        "published",
        attempts=1,
        previous=None,
        batch_id="b-day",
        at="2099-01-01T00:00:00Z",
    )
    git(host_b, "commit", "-q", "-am", "distill: publish #25")
    git(host_a, "push", "-q", "origin", "main")
    git(host_b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")  # a real merge

    assert "<<<<<<<" not in (host_b / "intake" / EVENTS_FILE).read_text()
    lines = (host_b / "intake" / EVENTS_FILE).read_bytes().splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)
    assert len(lines) == 60  # the overlap is duplicated in the file...
    folder = host_b / "intake"
    events = load_events(folder)
    assert set(events) == {("merged_pr", f"{SLUG}#{n}") for n in range(1, 51)}  # ...not the fold
    assert events[("merged_pr", f"{SLUG}#21")]["recorded_at"] != "2026-12-01T00:00:00Z"
    status = load_status(folder)
    assert status[("merged_pr", f"{SLUG}#25")]["state"] == "published"
    assert len(pending_events(folder)) == 49
    assert main(["intake", "check", "--repo", str(host_b)]) == 0

    # compaction folds the duplicates away and keeps the state
    assert main(["intake", "compact", "--repo", str(host_b), "--check"]) == 1
    assert main(["intake", "compact", "--repo", str(host_b)]) == 0
    assert len((folder / EVENTS_FILE).read_bytes().splitlines()) == 50
    assert load_events(folder) == events and load_status(folder) == status
    assert main(["intake", "compact", "--repo", str(host_b), "--check"]) == 0

    # recording again on the merged clone adds nothing
    write_pages(tmp_path / "all.json", [[make_pr(n) for n in range(1, 51)]])
    before = (folder / STATUS_FILE).read_bytes()
    assert (
        main(["intake", "record-prs", "--repo", str(host_b), "--from", str(tmp_path / "all.json")])
        == 0
    )
    assert (folder / STATUS_FILE).read_bytes() == before
