"""`kb intake requeue`: failed rows return to pending with the operator's reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from intake_factories import SLUG, make_pr, write_pages

from kbkit.__main__ import main
from kbkit.intake.ledger import append_status, load_status, pending_events


def recorded(tmp_path: Path) -> Path:
    write_pages(tmp_path / "p.json", [[make_pr(1), make_pr(2), make_pr(3)]])
    assert main(["intake", "record-prs", "--repo", str(tmp_path), "--from", "p.json"]) == 0
    folder = tmp_path / "intake"
    status = load_status(folder)
    for n in (1, 2):
        key = ("merged_pr", f"{SLUG}#{n}")
        append_status(folder, *key, "failed", attempts=3, previous=status[key],
                      reason="attempt cap 3 reached")  # fmt: skip
    return folder


def test_requeue_named_row_appends_pending_with_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = recorded(tmp_path)
    argv = ["intake", "requeue", f"{SLUG}#1", f"{SLUG}#3", "--reason", "model outage"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"{SLUG}#1: failed -> pending (model outage)" in out
    assert (
        f"{SLUG}#3: pending, already waiting; left as it is" in out and "1 row(s) requeued" in out
    )
    row = load_status(folder)[("merged_pr", f"{SLUG}#1")]
    assert row["state"] == "pending" and row["attempts"] == 0
    assert row["reason"] == "requeued: model outage"
    assert load_status(folder)[("merged_pr", f"{SLUG}#2")]["state"] == "failed"
    # distill (max 3 attempts) sees the row again
    ids = [p.event["source_id"] for p in pending_events(folder, max_attempts=3)]
    assert f"{SLUG}#1" in ids and f"{SLUG}#2" not in ids


def test_requeue_all_failed_and_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = recorded(tmp_path)
    assert main(["intake", "requeue", "--all-failed", "--reason", "fixed the key"]) == 0
    assert "2 row(s) requeued" in capsys.readouterr().out
    assert {r["state"] for r in load_status(folder).values()} == {"pending"}
    assert main(["intake", "requeue", "--reason", "x"]) == 2
    assert main(["intake", "requeue", f"{SLUG}#1", "--reason", "  "]) == 2
    assert main(["intake", "requeue", "nope#9", "--reason", "x"]) == 1
    assert "no recorded event has the source id nope#9" in capsys.readouterr().err


def test_requeue_takes_a_shadowed_row_and_keeps_a_published_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any state but published goes back to pending: a batch closed as shadowed can be
    proposed again; a published row's rules are in a knowledge PR already."""
    folder = recorded(tmp_path)
    status = load_status(folder)
    shadowed, published = ("merged_pr", f"{SLUG}#3"), ("merged_pr", f"{SLUG}#2")
    append_status(folder, *shadowed, "shadowed", attempts=1, previous=status[shadowed],
                  reason="no rules: nothing durable to add")  # fmt: skip
    append_status(folder, *published, "published", attempts=1, previous=status[published],
                  reason="published")  # fmt: skip
    argv = ["intake", "requeue", f"{SLUG}#3", f"{SLUG}#2", "--reason", "new model"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"{SLUG}#3: shadowed -> pending (new model)" in out
    assert f"{SLUG}#2: published, its rules are in a knowledge PR; left as it is" in out
    after = load_status(folder)
    assert after[shadowed]["state"] == "pending" and after[shadowed]["attempts"] == 0
    assert after[published]["state"] == "published"
    ids = [p.event["source_id"] for p in pending_events(folder, max_attempts=3)]
    assert f"{SLUG}#3" in ids and f"{SLUG}#2" not in ids
