"""The status fold's contracts that no other test pinned (found by `benchmarks.mutation`).

Rows written before `seq` existed order by their attempts (the ledger's docstring promises
that compatibility, and real status.jsonl files hold such rows), and between transitions
written from the same read the further state wins for every pair of states:
pending < failed < shadowed < published.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATES,
    STATUS_FILE,
    append_status,
    fold_status,
    load_events,
    load_status,
    pending_events,
    record_events,
    sequence,
)

KEY = ("merged_pr", "acme/app#7")
ORDER = ("pending", "failed", "skipped", "shadowed", "published", "rejected")  # least to furthest


def _legacy(state: str, attempts: int, at: str, **extra: object) -> dict[str, object]:
    """A status row as kbkit wrote it before `seq`: no `seq` key at all."""
    row: dict[str, object] = {
        "source_kind": KEY[0],
        "source_id": KEY[1],
        "state": state,
        "attempts": attempts,
        "batch_id": None,
        "at": at,
    }
    row.update(extra)
    return row


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_sequence_of_rows_written_before_seq_existed() -> None:
    assert sequence(None) == 0
    assert sequence(_legacy("pending", 3, "2026-01-01T00:00:00Z")) == 3
    assert sequence({**_legacy("pending", 3, "x"), "seq": 5}) == 5
    assert sequence({**_legacy("pending", 3, "x"), "seq": "9"}) == 3  # not an int: attempts
    assert sequence({**_legacy("pending", 3, "x"), "seq": 0}) == 0  # seq 0 is a seq
    assert sequence({"state": "pending", "attempts": "2"}) == 0
    assert sequence({"state": "pending"}) == 0


def test_status_rows_without_seq_fold_by_attempts_not_by_clock(tmp_path: Path) -> None:
    """A pre-`seq` log: the row with the most attempts is current even with an older `at`,
    a transition appended after reading it orders after it, and pending reads its attempts."""
    event = {"source_kind": KEY[0], "source_id": KEY[1], "recorded_at": "2026-01-01T00:00:00Z"}
    (tmp_path / EVENTS_FILE).write_text(json.dumps(event) + "\n")
    legacy = [
        _legacy("pending", 0, "2026-01-01T00:00:00Z"),
        _legacy("pending", 2, "2026-01-01T05:00:00Z", reason="model timed out"),
        _legacy("pending", 1, "2026-09-01T00:00:00Z", reason="a clock far ahead"),
    ]
    _write(tmp_path / STATUS_FILE, legacy)
    current = load_status(tmp_path)[KEY]
    assert current == legacy[1]
    [waiting] = pending_events(tmp_path)
    assert (waiting.attempts, waiting.since, waiting.status) == (2, legacy[1]["at"], legacy[1])
    assert pending_events(tmp_path, max_attempts=2) == []
    assert len(pending_events(tmp_path, max_attempts=3)) == 1
    # a writer of today reads the legacy row: its row's seq is one past the attempts
    row = append_status(
        tmp_path, *KEY, "published", attempts=3, previous=current, at="2025-01-01T00:00:00Z"
    )
    assert row["seq"] == 3
    assert load_status(tmp_path)[KEY] == row
    assert pending_events(tmp_path) == []
    # recording the event again adds nothing and writes no pending row over the legacy log
    assert record_events(tmp_path, [event]).already == [KEY]
    assert load_status(tmp_path)[KEY] == row


@pytest.mark.parametrize(("lower", "higher"), list(itertools.combinations(ORDER, 2)))
def test_the_further_state_wins_for_every_pair(lower: str, higher: str) -> None:
    """Two rows of one key with the same seq: the further state wins in either line order,
    even when the other row's clock is later."""
    assert set(ORDER) == set(STATES)
    behind = {**_legacy(lower, 1, "2099-01-01T00:00:00Z"), "seq": 4}
    ahead = {**_legacy(higher, 1, "2020-01-01T00:00:00Z"), "seq": 4}
    assert fold_status([behind, ahead])[KEY] == ahead
    assert fold_status([ahead, behind])[KEY] == ahead
    # a later seq still beats any state
    later = {**behind, "seq": 5}
    assert fold_status([ahead, later])[KEY] == later
    assert fold_status([later, ahead])[KEY] == later


def test_an_unknown_state_ranks_below_every_known_one() -> None:
    odd = {**_legacy("archived", 1, "2099-01-01T00:00:00Z"), "seq": 4}
    for state in ORDER:
        known = {**_legacy(state, 1, "2020-01-01T00:00:00Z"), "seq": 4}
        assert fold_status([odd, known])[KEY] == known
        assert fold_status([known, odd])[KEY] == known


def test_event_rows_without_a_string_key_are_left_out_of_the_fold(tmp_path: Path) -> None:
    good = {"source_kind": KEY[0], "source_id": KEY[1], "recorded_at": "2026-01-01T00:00:00Z"}
    odd: list[dict[str, object]] = [
        {"source_kind": KEY[0], "recorded_at": "2026-01-01T00:00:00Z"},
        {"source_id": KEY[1], "recorded_at": "2026-01-01T00:00:00Z"},
        {"source_kind": KEY[0], "source_id": 7, "recorded_at": "2026-01-01T00:00:00Z"},
        {"source_kind": None, "source_id": None},
    ]
    _write(tmp_path / EVENTS_FILE, [*odd, good])
    assert load_events(tmp_path) == {KEY: good}
    assert [p.event for p in pending_events(tmp_path)] == [good]
    _write(tmp_path / STATUS_FILE, [{**_legacy("failed", 1, "x"), "source_id": 7}])
    assert load_status(tmp_path) == {}


def test_same_seq_and_state_the_latest_at_wins_and_a_row_without_at_is_earliest() -> None:
    early = {**_legacy("pending", 1, "2026-01-01T00:00:00Z", reason="b"), "seq": 2}
    late = {**_legacy("pending", 1, "2026-01-02T00:00:00Z", reason="a"), "seq": 2}
    undated = {**early, "reason": "c"}
    del undated["at"]
    for rows in ([early, late], [late, early]):
        assert fold_status(rows)[KEY] == late
    for rows in ([undated, early], [early, undated]):
        assert fold_status(rows)[KEY] == early


def test_a_transition_written_from_no_status_row_follows_the_recorded_pending_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pending row `record_events` writes reads like no row at all (seq 0): a writer who
    read the ledger before that row existed still orders after it, whatever the clocks say."""
    event = {"source_kind": KEY[0], "source_id": KEY[1], "recorded_at": "2026-06-01T00:00:00Z"}
    monkeypatch.setenv("KBKIT_NOW", "2026-06-01T00:00:00Z")
    record_events(tmp_path, [event])
    recorded = load_status(tmp_path)[KEY]
    assert (recorded["seq"], recorded["attempts"]) == (sequence(None), 0) == (0, 0)
    assert [p.attempts for p in pending_events(tmp_path, max_attempts=1)] == [0]
    retried = append_status(
        tmp_path, *KEY, "pending", attempts=1, previous=None, at="2026-01-01T00:00:00Z"
    )
    assert load_status(tmp_path)[KEY] == retried
    assert [p.attempts for p in pending_events(tmp_path)] == [1]


@pytest.mark.parametrize("missing", ["source_kind", "source_id"])
def test_recording_an_event_without_its_key_is_refused_and_writes_nothing(
    tmp_path: Path, missing: str
) -> None:
    good = {"source_kind": KEY[0], "source_id": KEY[1], "recorded_at": "2026-01-01T00:00:00Z"}
    bad = {k: v for k, v in good.items() if k != missing}
    with pytest.raises(ValueError, match="without source_kind/source_id"):
        record_events(tmp_path, [good, bad])
    assert not (tmp_path / EVENTS_FILE).exists() and not (tmp_path / STATUS_FILE).exists()


def test_a_transition_keeps_its_reason_and_url(tmp_path: Path) -> None:
    row = append_status(
        tmp_path, *KEY, "published", attempts=1, previous=None, reason="merged", url="https://x/1"
    )
    plain = append_status(tmp_path, *KEY, "published", attempts=1, previous=row)
    assert (row["reason"], row["url"]) == ("merged", "https://x/1")
    assert "reason" not in plain and "url" not in plain
    [first, second] = (tmp_path / STATUS_FILE).read_text().splitlines()
    assert json.loads(first) == row and json.loads(second) == plain


def test_an_event_without_a_status_row_is_pending_with_no_attempts(tmp_path: Path) -> None:
    """What a crash between the two appends of `record_events` leaves behind, and hand-made
    rows: no status row (or one without attempts) is pending, tried 0 times."""
    dated = {"source_kind": "k", "source_id": "a", "recorded_at": "2026-01-01T00:00:00Z"}
    undated = {"source_kind": "k", "source_id": "b"}
    counted = {"source_kind": "k", "source_id": "c", "recorded_at": "2026-01-02T00:00:00Z"}
    _write(tmp_path / EVENTS_FILE, [dated, undated, counted])
    _write(tmp_path / STATUS_FILE, [{"source_kind": "k", "source_id": "c", "state": "pending"}])
    waiting = pending_events(tmp_path, max_attempts=1)
    assert [(p.event["source_id"], p.attempts) for p in waiting] == [("b", 0), ("a", 0), ("c", 0)]
    assert [p.since for p in waiting[:2]] == ["", "2026-01-01T00:00:00Z"]  # since it was recorded
