"""Idempotency, 8 concurrent extracting processes, and SIGKILL in the middle of writes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.infra.jsonl import read_jsonl, temp_path
from kbkit.lessons import fold, index
from kbkit.lessons.extraction import extract
from kbkit.lessons.store import LessonStore

NOW = "2026-11-30T00:00:00Z"
# Extracts the tasks from line START on, one `add` each, and SIGKILLs itself half way through
# its WRITE-th write to the store: it writes a random prefix of those bytes (maybe none), then
# dies. Where it dies is chosen by the test, never by how fast the machine happens to be.
DRIVER = """
import json, os, random, signal, sys
from pathlib import Path
from kbkit.lessons.extraction import extract
from kbkit.lessons.store import LessonStore
root, task_file, now, start, kill_write, seed = sys.argv[1:7]
rng = random.Random(int(seed))
real_write = os.write
writes = [0]
def write(fd, data):
    writes[0] += 1
    if writes[0] == int(kill_write):
        real_write(fd, bytes(data)[: rng.randrange(len(data) + 1)])
        os.kill(os.getpid(), signal.SIGKILL)
    return real_write(fd, data)
os.write = write
store = LessonStore(Path(root))
lines = open(task_file, encoding="utf-8").read().splitlines()
for line in lines[int(start):]:
    store.add([extract(json.loads(line), now=now)])
"""


def corpus(count: int, seed: int = 6) -> list[dict[str, Any]]:
    """Closed tasks whose findings repeat across tasks, so lessons gain support."""
    rng = random.Random(seed)
    tasks = []
    for n in range(count):
        findings = [
            {
                "id": f"F{j}",
                "status": rng.choice(
                    ["confirmed", "false_positive", "duplicate", "pending", "fixed"]
                ),
                "class": rng.choice(["sqli", "xss", "idor"]),
                "summary": f"shared issue {rng.randrange(25)}",
            }
            for j in range(3)
        ]
        tasks.append(
            {
                "id": f"T{n}",
                "status": "done",
                "company": rng.choice(["acme", "globex"]),
                "category": "web",
                "findings": findings,
                "retests": [{"id": "R1", "finding_id": "F0", "verdict": "inconclusive"}],
                "metrics": {"tokens": 100 * n, "tool_calls": n},
            }
        )
    return tasks


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path


def snapshot(root: Path) -> tuple[set[str], set[tuple[str, str, str]], set[str]]:
    """Raw rows of the logs: asserts no row was written twice; returns the key sets."""
    lessons = [r.data["id"] for r in read_jsonl(root / "lessons.jsonl").rows]
    evidence = [
        (r.data["lesson"], r.data["source_kind"], r.data["source_id"])
        for r in read_jsonl(root / "evidence.jsonl").rows
    ]
    outcomes = [r.data["task"] for r in read_jsonl(root / "outcomes.jsonl").rows]
    assert len(lessons) == len(set(lessons)), "a lesson row was written twice"
    assert len(evidence) == len(set(evidence)), "an evidence row was written twice"
    assert len(outcomes) == len(set(outcomes)), "an outcome card was written twice"
    return set(lessons), set(evidence), set(outcomes)


def assert_folds_like_fresh(store: LessonStore) -> fold.FoldState:
    cached = store.state()
    fresh = index.refresh(fold.FoldState(), store.root)
    assert cached.lessons == fresh.lessons and cached.evidence == fresh.evidence
    assert cached.tombstones == fresh.tombstones and cached.outcomes == fresh.outcomes
    # incremental support aggregates equal a recount from scratch
    assert cached.support == fresh.support == fold.count_support(fresh)
    return fresh


def test_second_extraction_adds_nothing(store: LessonStore) -> None:
    tasks = corpus(30)
    first = store.add(extract(t) for t in tasks)
    assert first.new_lessons > 0 and first.new_evidence >= first.new_lessons
    logs = {p.name: p.read_bytes() for p in store.root.glob("*.jsonl")}
    again = store.add(extract(t) for t in tasks)
    assert (again.new_lessons, again.new_evidence, again.new_outcomes) == (0, 0, 0)
    assert {p.name: p.read_bytes() for p in store.root.glob("*.jsonl")} == logs


def test_same_lesson_from_several_tasks_is_one_row(store: LessonStore, make_task) -> None:
    finding = [("F1", "confirmed", "sqli", "login form")]
    store.add([extract(make_task(f"T{n}", findings=finding)) for n in range(3)])
    store.add([extract(make_task("T3", findings=finding))])
    lessons, evidence, _ = snapshot(store.root)
    assert len(lessons) == 1 and len(evidence) == 4
    (support,) = fold.live_support(store.state()).values()
    assert support.rows == 4 and sorted(support.tasks) == ["T0", "T1", "T2", "T3"]


def test_a_changed_outcome_card_is_recorded_again(store: LessonStore, make_task) -> None:
    store.add([extract(make_task(tokens=10))])
    assert store.add([extract(make_task(tokens=10))]).new_outcomes == 0
    assert store.add([extract(make_task(tokens=99))]).new_outcomes == 1
    assert store.outcome_cards()["T1"]["tokens"] == 99


def test_torn_line_is_skipped_reported_and_never_swallows_new_rows(
    store: LessonStore,
    make_task,
) -> None:
    store.add([extract(make_task("T1", findings=[("F1", "confirmed", "sqli", "a")]))])
    with store.log("evidence").open("ab") as handle:
        handle.write(b'{"lesson": "Lx", "source_ki')  # a crash mid-row
    assert store.state().torn == {"evidence": 2}
    assert LessonStore(store.root).state().torn == {"evidence": 2}  # kept in the cache too
    from kbkit.lessons.lint import lint_store

    rules = [f.rule_id for f in lint_store(store.state(), set(), {"T1"}, str)]
    assert "lessons-torn-line" in rules
    store.add([extract(make_task("T2", findings=[("F1", "confirmed", "sqli", "a")]))])
    state = assert_folds_like_fresh(store)
    assert len(state.evidence) == 2
    assert [(log, line) for log, line, _ in state.problems] == [("evidence", 2)]


def test_unterminated_whole_row_is_kept_and_not_duplicated(store: LessonStore, make_task) -> None:
    store.add([extract(make_task("T1", findings=[("F1", "confirmed", "sqli", "a")]))])
    log = store.log("evidence")
    log.write_bytes(log.read_bytes().rstrip(b"\n"))  # a crash right before the newline
    assert (
        store.add(
            [extract(make_task("T1", findings=[("F1", "confirmed", "sqli", "a")]))]
        ).new_evidence
        == 0
    )
    store.add([extract(make_task("T2", findings=[("F1", "confirmed", "sqli", "a")]))])
    assert len(snapshot(store.root)[1]) == 2
    assert assert_folds_like_fresh(store).problems == []


def reference(tmp_path: Path, tasks: list[dict[str, Any]]) -> tuple[set, set, set]:
    ref = LessonStore(tmp_path / "reference")
    ref.add(extract(t, now=NOW) for t in tasks)
    return snapshot(ref.root)


@pytest.mark.slow
def test_eight_concurrent_extracting_processes(tmp_path: Path) -> None:
    tasks = corpus(120)
    task_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "KBKIT_INTAKE_ROOT"}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kbkit",
                "lessons",
                "extract",
                "--from",
                str(task_file),
                "--repo",
                str(repo),
                "--format",
                "json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(8)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        results.append(json.loads(out))
    store = LessonStore.for_repo(repo)
    lessons, evidence, outcomes = snapshot(store.root)
    ref_lessons, ref_evidence, ref_outcomes = reference(tmp_path, tasks)
    assert (lessons, evidence, outcomes) == (ref_lessons, ref_evidence, ref_outcomes)
    # exactly one process wrote each row; together they wrote everything once
    assert sum(r["new_lessons"] for r in results) == len(ref_lessons)
    assert sum(r["new_evidence"] for r in results) == len(ref_evidence)
    assert_folds_like_fresh(store)


def _kill_runs(tmp_path: Path, kills: int, tasks_count: int) -> None:
    tasks = corpus(tasks_count, seed=kills)
    task_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    reference_keys = reference(tmp_path, tasks)
    root = tmp_path / "store"
    rng = random.Random(kills)
    progress: list[int] = []
    for run in range(kills):
        # each run starts a little further on, overlapping what earlier runs wrote
        start = str(run * 40)
        kill_write = str(rng.randrange(3, 40))
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                DRIVER,
                str(root),
                str(task_file),
                NOW,
                start,
                kill_write,
                str(rng.randrange(1 << 30)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=120,
        )
        assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
        snapshot(root)  # never a duplicate row, even mid-crash
        state = assert_folds_like_fresh(LessonStore(root))
        progress.append(len(state.evidence))
    # every kill landed mid-extraction: the store grew across the interrupted runs, unfinished
    assert progress == sorted(progress) and progress[0] < progress[-1] < len(reference_keys[1])
    store = LessonStore(root)
    store.add(extract(t, now=NOW) for t in tasks)  # finish the job after the last crash
    assert snapshot(root) == reference_keys
    state = assert_folds_like_fresh(store)
    assert all("JSON" in message for _log, _line, message in state.problems)


@pytest.mark.slow
def test_sigkill_during_extraction_leaves_a_store_that_folds(tmp_path: Path) -> None:
    _kill_runs(tmp_path, kills=20, tasks_count=1000)


@pytest.mark.stress
def test_sigkill_during_extraction_many_times(tmp_path: Path) -> None:
    _kill_runs(tmp_path, kills=220, tasks_count=30000)


def test_a_non_utf8_line_in_a_log_is_one_problem(store: LessonStore, make_task) -> None:
    store.add([extract(make_task("T1", findings=[("F1", "confirmed", "sqli", "a")]))])
    with store.log("evidence").open("ab") as handle:
        handle.write(b'{"lesson": "\xff"}\n')
    store.add([extract(make_task("T2", findings=[("F1", "confirmed", "sqli", "a")]))])
    state = assert_folds_like_fresh(store)
    assert len(state.evidence) == 2 and [p[:2] for p in state.problems] == [("evidence", 2)]


def test_reading_an_empty_store_writes_nothing(tmp_path: Path) -> None:
    from kbkit.lessons.selection import select_lessons

    store = LessonStore.for_repo(tmp_path)
    assert select_lessons({"id": "T1", "company": "acme"}, store) == []
    assert not (tmp_path / "intake").exists()


def test_temp_files_of_killed_cache_writers_are_swept(store: LessonStore, make_task) -> None:
    store.add([extract(make_task("T1", findings=[("F1", "confirmed", "sqli", "a")]))])
    store.state()
    exited = subprocess.Popen(["true"])  # a writer that died mid-write
    exited.wait()
    target = store.cache_dir / "state.marshal"
    old = temp_path(target).with_name(
        temp_path(target).name.replace(f".{os.getpid()}.", f".{exited.pid}.")
    )
    fresh = temp_path(target)  # a live writer's (this process): never touched
    for temp in (old, fresh):
        temp.write_bytes(b"partial")
    store.add([extract(make_task("T2", findings=[("F1", "confirmed", "sqli", "a")]))])
    store.state()
    assert not old.exists() and fresh.exists()


def test_forgotten_evidence_never_counts_again_but_new_evidence_of_the_task_does(
    store: LessonStore, make_task
) -> None:
    # #15: forget ends the evidence it hit, for good; a corrected re-extraction of the same
    # task (new evidence keys) must count, or a correct verdict could never be recorded
    finding = ("F1", "confirmed", "sqli", "a")
    store.add(
        [extract(make_task("T1", findings=[finding])), extract(make_task("T9", findings=[finding]))]
    )
    (lesson,) = fold.live_support(store.state())
    assert fold.live_support(store.state())[lesson].rows == 2
    assert store.forget("task", "T9").removed == 1
    assert fold.live_support(store.state())[lesson].rows == 1
    # T9 is re-run with a second finding teaching the same lesson: a new evidence key
    store.add([extract(make_task("T9", findings=[finding, ("F2", "confirmed", "sqli", "a")]))])
    state = assert_folds_like_fresh(store)
    support = fold.live_support(state)[lesson]
    assert (support.rows, sorted(support.tasks)) == (2, ["T1", "T9"])
    assert len(state.evidence) == 3
    assert state.dead.get((lesson, "finding", "T9/F1")) == "forgotten"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=12),
        st.one_of(st.none(), st.text(), st.integers(), st.lists(st.text(), max_size=2)),
        max_size=12,
    )
)
def test_text_rows_are_encoded_as_encode_row_encodes_them(row) -> None:
    from kbkit.infra.jsonl import encode_row
    from kbkit.lessons.store import text_row

    assert text_row(row) == encode_row(row)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    card=st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.none(), st.text(), st.integers(), st.floats(allow_nan=False)),
        max_size=6,
    ),
    task=st.text(min_size=1),
    digest=st.one_of(st.none(), st.text(max_size=32), st.just("absent")),
)
def test_outcome_lines_are_encoded_as_encode_row_encodes_them(card, task, digest) -> None:
    from kbkit.infra.jsonl import encode_row
    from kbkit.lessons.fold import card_json
    from kbkit.lessons.store import _outcome_line

    row = {"task": task, "card": card, "at": "2026-11-01T00:00:00Z"}
    if digest != "absent":
        row["digest"] = digest
    assert _outcome_line(row, card_json(card)) == encode_row(row)


def test_a_small_write_to_a_large_store_leaves_the_cache_and_a_fresh_reader_folds_the_rest(
    store: LessonStore, make_task
) -> None:
    store.add(extract(t) for t in corpus(200))
    cache = store.cache_dir / "state.marshal"
    written = cache.stat()
    assert LessonStore(store.root).state() is not None  # a reader of a current cache
    assert cache.stat().st_ino == written.st_ino  # does not write it again
    finding = [("F1", "confirmed", "sqli", "one more")]
    store.add([extract(make_task("T-more", findings=finding))])
    assert cache.stat().st_ino == written.st_ino  # 1 task of 201: below the share
    fresh = LessonStore(store.root)  # another process: the older cache plus the log tails
    assert any(task == "T-more" for task, _at, _line in fresh.state().evidence.values())
    assert_folds_like_fresh(fresh)
    store.add(extract(make_task(f"T-batch{n}", findings=finding)) for n in range(40))
    assert cache.stat().st_ino != written.st_ino  # a fifth more: rewritten
    cached = fold.FoldState.load(cache.read_bytes())
    assert cached is not None and cached.evidence == store.state().evidence
