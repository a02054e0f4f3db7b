from __future__ import annotations

import json
import multiprocessing
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.infra.errors import UsageError
from kbkit.infra.jsonl import append_rows
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATUS_FILE,
    append_status,
    fold_events,
    fold_status,
    load_events,
    load_status,
    pending_events,
    read_ledger,
    record_events,
)


def lesson(n: int, recorded_at: str = "2026-11-30T01:00:00Z") -> dict[str, object]:
    """The shape `kb lessons promote` appends (owned by the lessons module)."""
    return {
        "source_kind": "lesson",
        "source_id": f"lesson-{n}",
        "repo": None,
        "title": f"Lesson {n}",
        "summary": "Recheck before reporting.",
        "recorded_at": recorded_at,
    }


def test_recording_twice_adds_nothing_and_every_event_starts_pending(tmp_path: Path) -> None:
    rows = [lesson(n) for n in range(5)]
    first = record_events(tmp_path, rows)
    second = record_events(tmp_path, rows + [lesson(5)])
    assert len(first.added) == 5 and first.already == []
    assert second.added == [("lesson", "lesson-5")] and len(second.already) == 5
    assert len((tmp_path / EVENTS_FILE).read_bytes().splitlines()) == 6
    status = load_status(tmp_path)
    assert {row["state"] for row in status.values()} == {"pending"}
    assert [p.event["source_id"] for p in pending_events(tmp_path)] == [
        f"lesson-{n}" for n in range(6)
    ]


def test_transitions_fold_to_the_latest_and_leave_pending(tmp_path: Path) -> None:
    record_events(tmp_path, [lesson(1), lesson(2), lesson(3)])
    append_status(
        tmp_path,
        "lesson",
        "lesson-1",
        "published",
        attempts=1,
        previous=None,
        batch_id="b1",
        url="https://github.com/kbkit-dev/kbkit/pull/9",
        at="2026-11-30T09:00:00Z",
    )
    append_status(
        tmp_path,
        "lesson",
        "lesson-2",
        "pending",
        attempts=2,
        previous=None,
        batch_id="b1",
        reason="model timed out",
        at="2026-11-30T09:00:00Z",
    )
    append_status(
        tmp_path,
        "lesson",
        "lesson-3",
        "failed",
        attempts=3,
        previous=None,
        batch_id="b2",
        reason="attempt cap",
        at="2026-11-30T09:30:00Z",
    )
    current = load_status(tmp_path)
    assert current[("lesson", "lesson-1")]["state"] == "published"
    assert current[("lesson", "lesson-1")]["url"].endswith("/pull/9")
    pending = pending_events(tmp_path)
    assert [(p.event["source_id"], p.attempts) for p in pending] == [("lesson-2", 2)]
    assert pending_events(tmp_path, max_attempts=2) == []


def test_append_status_refuses_unknown_state(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown intake state"):
        append_status(tmp_path, "lesson", "x", "done", attempts=0, previous=None)
    assert not (tmp_path / STATUS_FILE).exists()


def test_an_event_without_status_row_is_pending(tmp_path: Path) -> None:
    # what a crash between the events append and the status append leaves behind
    append_rows(tmp_path / EVENTS_FILE, [lesson(7)])
    assert [p.event["source_id"] for p in pending_events(tmp_path)] == ["lesson-7"]
    assert record_events(tmp_path, [lesson(7)]).already == [("lesson", "lesson-7")]


def test_torn_tail_is_skipped_reported_and_then_re_recorded(tmp_path: Path) -> None:
    record_events(tmp_path, [lesson(1)])
    with (tmp_path / EVENTS_FILE).open("ab") as handle:
        handle.write(json.dumps(lesson(2)).encode()[:30])
    rows, problems = read_ledger(tmp_path, EVENTS_FILE)
    assert len(rows) == 1 and problems[0].torn and problems[0].line == 2
    assert record_events(tmp_path, [lesson(1), lesson(2)]).added == [("lesson", "lesson-2")]
    assert set(load_events(tmp_path)) == {("lesson", "lesson-1"), ("lesson", "lesson-2")}


def test_record_stamps_the_injected_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KBKIT_NOW", "2031-02-03T04:05:06Z")
    record_events(tmp_path, [lesson(1)])
    assert load_status(tmp_path)[("lesson", "lesson-1")]["at"] == "2031-02-03T04:05:06Z"


def test_a_row_from_the_future_never_beats_a_causally_later_one(tmp_path: Path) -> None:
    """A host whose clock runs a year ahead (or a hand-edited row) cannot pin a key."""
    key = ("lesson", "lesson-1")
    record_events(tmp_path, [lesson(1)])
    skewed = append_status(
        tmp_path, *key, "pending", attempts=1, previous=load_status(tmp_path)[key],
        reason="model timed out", at="2099-01-01T00:00:00Z",
    )  # fmt: skip
    assert load_status(tmp_path)[key] == skewed
    later = append_status(
        tmp_path, *key, "published", attempts=2, previous=load_status(tmp_path)[key],
        url="https://github.com/kbkit-dev/kbkit/pull/9", at="2026-11-30T09:00:00Z",
    )  # fmt: skip
    assert load_status(tmp_path)[key] == later
    assert pending_events(tmp_path) == []
    requeued = append_status(
        tmp_path, *key, "pending", attempts=0, previous=later, reason="requeued",
        at="2020-01-01T00:00:00Z",
    )  # fmt: skip
    assert load_status(tmp_path)[key] == requeued  # a clock years behind moves it forward too


def test_two_hosts_writing_from_the_same_read_agree_on_the_further_state(
    tmp_path: Path,
) -> None:
    key = ("lesson", "lesson-1")
    record_events(tmp_path, [lesson(1)])
    read = load_status(tmp_path)[key]
    append_status(tmp_path, *key, "published", attempts=1, previous=read, at="2026-11-30T09:00:00Z")
    append_status(tmp_path, *key, "failed", attempts=1, previous=read, at="2099-01-01T00:00:00Z")
    assert load_status(tmp_path)[key]["state"] == "published"


STATE = st.sampled_from(["pending", "published", "shadowed", "failed", "rejected"])
TRANSITION = st.fixed_dictionaries(
    {
        "source_kind": st.sampled_from(["merged_pr", "bugfix_run"]),
        "source_id": st.sampled_from(["a", "b", "c"]),
        "state": STATE,
        "attempts": st.integers(0, 3),
        "seq": st.integers(0, 4),
        "batch_id": st.one_of(st.none(), st.sampled_from(["b1", "b2"])),
        "at": st.sampled_from(
            ["2020-01-01T00:00:00Z", "2026-11-30T08:00:00Z", "2099-01-01T00:00:00Z"]
        ),
    }
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(TRANSITION, max_size=30), st.randoms(use_true_random=False))
def test_fold_ignores_line_order_and_duplicates(
    rows: list[dict[str, object]], rnd: random.Random
) -> None:
    """What a union merge does to a log: interleave both sides and duplicate lines."""
    merged = rows + rnd.sample(rows, k=len(rows) // 2)
    rnd.shuffle(merged)
    assert fold_status(merged) == fold_status(rows)
    events = [lesson(i % 4, f"2026-11-30T0{i % 3}:00:00Z") for i in range(len(rows))]
    shuffled = events + events[: len(events) // 2]
    rnd.shuffle(shuffled)
    assert fold_events(shuffled) == fold_events(events)


def _status_writer(folder: str, worker: int, count: int) -> None:
    for start in range(0, count, 250):  # many appends, so the processes really interleave
        rows = [
            {
                "source_kind": "merged_pr",
                "source_id": f"kbkit-dev/kbkit#{worker}{i:06d}",
                "state": "pending",
                "attempts": 0,
                "batch_id": None,
                "at": "2026-11-30T08:00:00Z",
            }
            for i in range(start, min(start + 250, count))
        ]
        append_rows(Path(folder) / STATUS_FILE, rows)


def _concurrent_appends(folder: Path, processes: int, count: int) -> None:
    procs = [
        multiprocessing.Process(target=_status_writer, args=(str(folder), w, count))
        for w in range(processes)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    lines = (folder / STATUS_FILE).read_bytes().splitlines()
    assert len(lines) == processes * count
    assert all(isinstance(json.loads(line), dict) for line in lines)
    assert len(load_status(folder)) == processes * count


@pytest.mark.slow
def test_eight_processes_append_without_losing_a_row(tmp_path: Path) -> None:
    _concurrent_appends(tmp_path, 8, 1_000)


@pytest.mark.stress
def test_eight_processes_append_10k_rows_each(tmp_path: Path) -> None:
    _concurrent_appends(tmp_path, 8, 10_000)


def _recorder(folder: str, worker: int) -> None:
    # overlapping key sets: every worker records lessons 0..399 starting at its own offset
    keys = [(worker * 50 + i) % 400 for i in range(400)]
    for start in range(0, 400, 40):
        record_events(Path(folder), [lesson(n) for n in keys[start : start + 40]])


def test_concurrent_recorders_never_record_a_key_twice(tmp_path: Path) -> None:
    procs = [multiprocessing.Process(target=_recorder, args=(str(tmp_path), w)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    lines = [json.loads(x) for x in (tmp_path / EVENTS_FILE).read_bytes().splitlines()]
    assert sorted(row["source_id"] for row in lines) == sorted(f"lesson-{n}" for n in range(400))
    assert len((tmp_path / STATUS_FILE).read_bytes().splitlines()) == 400


LINE = st.one_of(
    st.builds(
        lambda n: json.dumps({"source_kind": "lesson", "source_id": str(n)}), st.integers(0, 5)
    ),
    st.sampled_from(
        [
            '{"a": 1},{"b": 2}',
            '{"a": "x',
            'y"}',
            "[1, 2]",
            "3",
            "",
            "  ",
            '{"a": [{"x": 1}',
            '{"y": 2}]}',
            "\u00e9\u00e9",
            '{"t": "caf\u00e9"}',
            '{"a": [[1',
            "2]]}",
            '{"b": 1}],[{"c": 2}',
            '{"s": "},{"}',
            '{"a": 1',
            '"b": 2}',
            '{"c": 1},{"d": 2}',
        ]
    ),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans())
def test_fast_ledger_parse_agrees_with_the_line_by_line_reader(
    lines: list[str], terminated: bool
) -> None:
    """The one-call parse may only ever answer what read_jsonl would answer."""
    import tempfile

    from kbkit.infra.jsonl import read_jsonl

    data = "\n".join(lines).encode() + (b"\n" if terminated and lines else b"")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / EVENTS_FILE
        path.write_bytes(data)
        rows, problems = read_ledger(Path(scratch), EVENTS_FILE)
        careful = read_jsonl(path)
    assert rows == [row.data for row in careful.rows]
    assert [(p.line, p.torn) for p in problems] == [(p.line, p.torn) for p in careful.problems]


def test_fast_parse_is_not_fooled_by_values_spanning_or_sharing_lines(tmp_path: Path) -> None:
    for lines in (
        [b'{"a": 1', b'"b": 2}', b'{"c": 1},{"d": 2}'],
        [b'{"a": [[1', b"2]]}", b'{"b": 1} , {"c": 2}'],
        [b'{"a": {"x": 1', b'"y": 2}}', b'{"b": 1}\t,{"c": 2}'],
    ):
        (tmp_path / EVENTS_FILE).write_bytes(b"\n".join(lines) + b"\n")
        rows, problems = read_ledger(tmp_path, EVENTS_FILE)
        assert rows == [] and [p.line for p in problems] == list(range(1, len(lines) + 1))
    # a string holding "},{" is fine: it only costs the careful path
    (tmp_path / EVENTS_FILE).write_bytes(b'{"d": "f({},{})"}\n{"e": 1}\n')
    assert read_ledger(tmp_path, EVENTS_FILE) == ([{"d": "f({},{})"}, {"e": 1}], [])
