"""`kb intake record-prs --reread N`: a PR recorded without its review discussion is read again
on demand, as a new revision of its event, pending again; nothing changes twice."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from intake_factories import SLUG, make_pr, write_pages
from test_github_scan import FakeGh
from test_review_fetch import pr57

from kbkit.__main__ import main
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATUS_FILE,
    append_status,
    fold_events,
    load_events,
    load_status,
    pending_events,
    read_ledger,
)
from kbkit.intake.merged_prs import CURSOR_FILE

KEY = ("merged_pr", f"{SLUG}#57")


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    fake = FakeGh(tmp_path, monkeypatch)
    pr57(fake)
    pr = {**make_pr(57), "user": {"login": "mei-lin", "type": "User"}}
    fake.route(f"repos/{SLUG}/pulls/57", pages=[pr])
    fake.route(f"repos/{SLUG}/pulls/58", pages=[make_pr(58, merged=False)])
    return fake


def reread(*numbers: str) -> int:
    return main(
        ["intake", "record-prs", "--repo", SLUG, *[a for n in numbers for a in ("--reread", n)]]
    )


def record_without_discussion(tmp_path: Path) -> None:
    """PR 57 as recorded before the review step existed (from a pulls file: no discussion)."""
    pulls = write_pages(tmp_path / "pulls.json", [[{**make_pr(57), "user": {"login": "mei-lin"}}]])
    assert main(["intake", "record-prs", "--from", str(pulls), "--slug", SLUG]) == 0
    (tmp_path / "intake" / CURSOR_FILE).unlink()


@pytest.mark.slow
def test_a_pr_recorded_before_gets_its_discussion_as_a_new_revision_pending_again(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    record_without_discussion(tmp_path)
    intake = tmp_path / "intake"
    status = load_status(intake)[KEY]
    append_status(intake, *KEY, "published", attempts=1, previous=status, url="https://x/pull/1")
    assert reread("57") == 0
    out = capsys.readouterr().out
    assert f"{SLUG}#57: revised (revision 1), pending again; 14 review note(s), 2 accepted" in out
    event = load_events(intake)[KEY]
    assert event["revision"] == 1 and event["discussion"]["notes"][0]["accepted"] == "suggestion"
    assert main(["intake", "check"]) == 0  # every line, the revision too, passes the schemas
    assert event["diff_excerpt"] and "tools/kbkit/infra/jsonl.py" in event["diff_excerpt"]
    current = load_status(intake)[KEY]
    assert (current["state"], current["attempts"]) == ("pending", 0)
    assert current["reason"].startswith("re-read")
    assert [p.event["source_id"] for p in pending_events(intake)] == [f"{SLUG}#57"]
    assert not (intake / CURSOR_FILE).exists()  # a re-read never moves the cursor
    assert gh.load()["calls"][:2] == [
        f"repos/{SLUG}/pulls/57",
        f"repos/{SLUG}/pulls/57/files?per_page=100",
    ]


@pytest.mark.slow
def test_a_second_re_read_with_nothing_new_writes_nothing(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    record_without_discussion(tmp_path)
    assert reread("57") == 0
    ledgers = [(tmp_path / "intake" / name).read_bytes() for name in (EVENTS_FILE, STATUS_FILE)]
    assert reread("57") == 0
    assert f"{SLUG}#57: unchanged" in capsys.readouterr().out
    assert [(tmp_path / "intake" / n).read_bytes() for n in (EVENTS_FILE, STATUS_FILE)] == ledgers


@pytest.mark.slow
def test_a_pr_never_recorded_is_recorded_and_a_closed_one_refused(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reread("57") == 0
    assert f"{SLUG}#57: recorded;" in capsys.readouterr().out
    assert "revision" not in load_events(tmp_path / "intake")[KEY]
    assert reread("58") == 1
    assert "closed without merging" in capsys.readouterr().err


@pytest.mark.slow
def test_a_failure_on_the_second_pr_keeps_the_first_and_touches_nothing_else(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    gh.route(f"repos/{SLUG}/pulls/59", status=502, message="Server Error")
    assert reread("57", "59") == 4
    assert "GitHub failed" in capsys.readouterr().err
    assert list(load_events(tmp_path / "intake")) == [KEY]


@pytest.mark.slow
def test_dry_run_reads_and_writes_nothing(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    record_without_discussion(tmp_path)
    before = (tmp_path / "intake" / EVENTS_FILE).read_bytes()
    assert main(["intake", "record-prs", "--repo", SLUG, "--reread", "57", "--dry-run"]) == 0
    assert "would be revised" in capsys.readouterr().out
    assert (tmp_path / "intake" / EVENTS_FILE).read_bytes() == before


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["intake", "record-prs", "--repo", SLUG, "--reread", "x"])
    assert info.value.code == 2
    assert main(["intake", "record-prs", "--repo", SLUG, "--reread", "3", "--from", "-"]) == 2


def test_two_hosts_re_reading_fold_to_one_event_in_any_order(tmp_path: Path, gh: FakeGh) -> None:
    """Union-merged ledgers of two hosts that each re-read the PR: the highest revision wins,
    then the earliest recorded, whatever the line order."""
    record_without_discussion(tmp_path)
    assert reread("57") == 0
    rows = read_ledger(tmp_path / "intake", EVENTS_FILE)[0]
    other = json.loads(json.dumps(rows[-1]))
    other["recorded_at"] = "2026-11-30T11:59:59Z"  # the other host's, a second earlier
    other["discussion"]["notes"] = other["discussion"]["notes"][:3]
    again = {**rows[-1], "revision": 2, "recorded_at": "2026-11-30T12:30:00Z"}
    everything = [*rows, other, again]
    folds = {json.dumps(fold_events(order)[KEY], sort_keys=True)
             for order in itertools.permutations(everything)}  # fmt: skip
    assert len(folds) == 1 and json.loads(folds.pop())["revision"] == 2
    folds = {json.dumps(fold_events(order)[KEY], sort_keys=True)
             for order in itertools.permutations([*rows, other])}  # fmt: skip
    assert len(folds) == 1  # two revision-1 rows: the earlier recorded one
    assert len(json.loads(folds.pop())["discussion"]["notes"]) == 3


KILL_BETWEEN = """
import os, signal, sys
from kbkit.infra import jsonl
from kbkit.__main__ import main
append = jsonl._append_locked
def killing(path, lines):
    if path.name == "events.jsonl":  # the status row is written: die before the event
        os.kill(os.getpid(), signal.SIGKILL)
    return append(path, lines)
jsonl._append_locked = killing
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_kill_between_the_two_appends_leaves_the_pr_pending_and_a_rerun_adds_the_revision(
    tmp_path: Path, gh: FakeGh
) -> None:
    record_without_discussion(tmp_path)
    intake = tmp_path / "intake"
    status = load_status(intake)[KEY]
    append_status(intake, *KEY, "shadowed", attempts=1, previous=status, reason="no rules")
    argv = ["intake", "record-prs", "--repo", SLUG, "--reread", "57"]
    done = subprocess.run([sys.executable, "-c", KILL_BETWEEN, *argv], cwd=tmp_path, check=False)
    assert done.returncode == -signal.SIGKILL
    assert "revision" not in load_events(intake)[KEY]  # the event is the old one, whole
    assert load_status(intake)[KEY]["state"] == "pending"  # and distill will take it
    assert reread("57") == 0
    assert load_events(intake)[KEY]["revision"] == 1
    assert load_status(intake)[KEY]["state"] == "pending"
    assert main(["intake", "check"]) == 0


def test_a_pr_recorded_under_another_spelling_of_its_repository_is_revised_not_doubled(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older kbkit kept `--slug`'s spelling (`KBKit-Dev/KBKit#57`); the re-read (which
    spells it `kbkit-dev/kbkit`) revises that event under its own key."""
    record_without_discussion(tmp_path)
    intake = tmp_path / "intake"
    for name in (EVENTS_FILE, STATUS_FILE):
        path = intake / name
        path.write_text(path.read_text().replace(SLUG, "KBKit-Dev/KBKit"))
    assert reread("57") == 0
    assert "revised (revision 1), pending again" in capsys.readouterr().out
    events = load_events(intake)
    assert list(events) == [("merged_pr", "KBKit-Dev/KBKit#57")]
    assert events[("merged_pr", "KBKit-Dev/KBKit#57")]["revision"] == 1
    assert load_status(intake)[("merged_pr", "KBKit-Dev/KBKit#57")]["state"] == "pending"
