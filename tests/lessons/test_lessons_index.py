"""`kbkit.lessons.index`: a clean chunk is parsed in one call, and folds exactly as the
line-by-line path (`json.loads` per line, the oracle) folds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.lessons.test_lessons_store import corpus

from kbkit.intake import ledger_reading
from kbkit.lessons import fold, index
from kbkit.lessons.extraction import extract
from kbkit.lessons.store import LessonStore

ODD_ROWS: dict[str, list[Any]] = {
    "lessons": [
        {"id": "L-odd", "kind": "caution", "cue": 'é \u2028 "q"', "action": "a\\b", "company": 3},
        {"id": "L-bad", "kind": [], "cue": "c", "action": "a"},
        {"id": "L-odd", "kind": "negative", "cue": "dup", "action": "dup"},
        {"kind": "positive"},
    ],
    "evidence": [
        {"lesson": "L-odd", "source_kind": "finding", "source_id": "X/1", "task": "X", "at": 5},
        {"lesson": "L-odd", "source_kind": "finding", "source_id": "X/1", "task": "Y"},
        {"lesson": "L-odd", "source_kind": "", "source_id": "X/2", "task": "X"},
    ],
    "tombstones": [
        {"action": "supersede", "keys": [["L-odd", "finding", "X/1"]]},
        {"action": "revive", "keys": [["L-odd", "finding", "X/1"]]},
        {"action": "forget", "source_kind": "task", "source_id": "nobody"},
        {"action": "supersede", "keys": "not a list"},
    ],
    "outcomes": [{"task": "X", "card": {"task": "X", "n": 1.5}}, {"task": ""}],
    "transitions": [{"lesson": "L-odd", "state": "adopted", "reason": "r"}, {"state": "x"}],
}


def fill(store: LessonStore) -> None:
    store.add(extract(task) for task in corpus(40))
    for name, rows in ODD_ROWS.items():
        with store.log(name).open("a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=name == "lessons") + "\n")


def plain(state: fold.FoldState) -> tuple[Any, ...]:
    return (
        state.marks, state.lessons, state.evidence, state.tombstones, state.dead, state.legacy,
        state.lifecycle, state.outcomes, state.problems, state.torn, state.support,
    )  # fmt: skip


def fold_both(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, list[bool]]:
    chunks: list[bool] = []
    parse_whole = ledger_reading.parse_whole  # what index calls, patched below

    def counted(chunk: bytes) -> Any:
        rows = parse_whole(chunk)
        chunks.append(rows is not None)
        return rows

    monkeypatch.setattr(index, "parse_whole", counted)
    fast = index.refresh(fold.FoldState(), root)
    monkeypatch.setattr(index, "parse_whole", lambda chunk: None)
    oracle = index.refresh(fold.FoldState(), root)
    return plain(fast), plain(oracle), chunks


def test_a_clean_store_folds_in_one_call_per_log_exactly_as_line_by_line(
    store: LessonStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(store)
    fast, oracle, whole = fold_both(store.root, monkeypatch)
    assert whole and all(whole), "every clean log took the one-call path"
    assert fast == oracle
    assert len(fast[8]) == 6  # the odd rows' problems, with their line numbers


@pytest.mark.parametrize(
    ("damage", "careful"),
    [
        (b"\n\n", True),
        (b"[1, 2]\n", True),
        (b"not json\n", True),
        (b'{"a": 1}, {"b": 2}\n', True),
        (b"\xff\xfe\n", True),
        (b'{"torn": ', False),  # a torn last line is left out of the chunk: the rest is clean
    ],
)
def test_a_damaged_log_takes_the_careful_path_with_the_same_result(
    store: LessonStore, monkeypatch: pytest.MonkeyPatch, damage: bytes, careful: bool
) -> None:
    fill(store)
    with store.log("evidence").open("ab") as handle:
        handle.write(damage)
    fast, oracle, whole = fold_both(store.root, monkeypatch)
    assert all(whole) is not careful
    assert fast == oracle
    assert fast[8] or fast[9]  # a problem or a torn line is reported
