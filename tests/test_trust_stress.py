"""Stress (make stress): every ledger and lessons writer on a real full disk, and a union
merge of two hosts, one with its clock a year ahead, in every merge order."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kbkit.infra.errors import EnvironmentFailure
from kbkit.infra.jsonl import append_rows, read_jsonl
from kbkit.intake.compaction import compact
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATUS_FILE,
    append_status,
    load_events,
    load_status,
    record_events,
)
from kbkit.intake.merged_prs import advance_cursor
from kbkit.lessons.extraction import extract
from kbkit.lessons.store import LessonStore
from tests.disk import small_tmpfs
from tests.gitrepo import commit_files, git, init_repo

PROJECT = Path(__file__).resolve().parents[1]
BALLAST = 16 * 1024

pytestmark = pytest.mark.stress


def _text(rng: random.Random) -> str:
    # mostly small rows, some larger than a page: short writes land mid-row
    return "x" * rng.choice([10, 200, 1500, 5000, 9000])


def _event(rng: random.Random, n: int) -> dict[str, object]:
    return {"source_kind": "lesson", "source_id": f"L{n}", "title": _text(rng)}


def _task(rng: random.Random, n: int) -> dict[str, object]:
    return {
        "id": f"T{n}",
        "status": "done",
        "company": "acme",
        "category": "web",
        "findings": [
            {"id": f"F{k}", "status": "confirmed", "class": f"c{n % 5}-{k}", "summary": _text(rng)}
            for k in range(rng.randint(1, 4))
        ],
        "retests": [],
        "metrics": {"tokens": 1000, "tool_calls": 10},
    }


def _durable(folder: Path) -> dict[str, bytes]:
    """The files a writer must leave as they were: ledgers, logs and the cursor."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and (p.suffix == ".jsonl" or p.name == "cursor.json")
    }


def _writers(repo: Path, rng: random.Random) -> dict[str, Callable[[int], object]]:
    intake = repo / "intake"
    store = LessonStore.for_repo(repo)

    def status(n: int) -> object:
        current = load_status(intake).get(("lesson", f"L{n // 2}"))
        return append_status(intake, "lesson", f"L{n // 2}", "pending", attempts=n,
                             previous=current, reason=_text(rng))  # fmt: skip

    def compaction(n: int) -> object:
        if n % 2:
            return compact(intake)
        # one new event (the ledger grows) and duplicates for compaction to fold away
        rows = [r.data for r in read_jsonl(intake / EVENTS_FILE).rows[-10:]]
        return append_rows(intake / EVENTS_FILE, [_event(rng, n), *rows])

    def forget(n: int) -> object:  # each call is one write: add a task, or forget the last
        if n % 2:
            return store.add([extract(_task(rng, n))])
        return store.forget("task", f"T{n - 1}", reason=_text(rng))

    return {
        "record_events": lambda n: record_events(intake, [_event(rng, n), _event(rng, n + 10**6)]),
        "append_status": status,
        # a new repository per call: the cursor grows until the disk cannot hold a copy
        "cursor": lambda n: advance_cursor(intake, {f"o/{'r' * 80}{n}": "2026-11-30T00:00:00Z"}),
        "compact": compaction,
        "lessons add": lambda n: store.add([extract(_task(rng, n))]),
        "lessons forget": forget,
        "lessons usage": lambda n: store.record_usage({"task": f"T{n}", "note": _text(rng)}),
    }


@pytest.mark.parametrize(
    "writer",
    ["record_events", "append_status", "cursor", "compact", "lessons add", "lessons forget",
     "lessons usage"],
)  # fmt: skip
def test_every_writer_on_a_full_disk_tears_nothing(tmp_path: Path, writer: str) -> None:
    rng = random.Random(writer)
    with small_tmpfs(tmp_path / "disk", size="2m") as disk:
        repo = disk / "repo"
        record_events(repo / "intake", [_event(rng, n) for n in range(-20, 0)])
        ballast = disk / "ballast"
        ballast.mkdir()
        sizes = []
        try:  # fill the device with ballast files; freeing one lets a few writes through
            for index in range(10_000):
                (ballast / str(index)).write_bytes(b"\0" * BALLAST)
                sizes.append(index)
        except OSError:
            pass
        op = _writers(repo, rng)[writer]
        failures = successes = 0
        for n in range(1, 3000):
            before = _durable(repo)
            try:
                op(n)
            except EnvironmentFailure as exc:
                failures += 1
                assert exc.exit_code == 4 and str(repo) in str(exc)
                assert _durable(repo) == before, f"{writer} changed a file on failure {failures}"
                assert not list(repo.rglob(".*.tmp")), "a temp file outlived its write"
                if not sizes or failures >= 25:
                    break
                (ballast / str(sizes.pop())).unlink()
            else:
                successes += 1
        assert failures >= 5 and successes >= 5, (failures, successes)
        for log in repo.rglob("*.jsonl"):
            problems = read_jsonl(log).problems
            assert problems == [], f"{log}: {problems[:3]}"
        load_status(repo / "intake")
        load_events(repo / "intake")
        if (repo / "intake" / "cursor.json").exists():
            json.loads((repo / "intake" / "cursor.json").read_text())


def _host(origin: Path, path: Path) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(path))
    return path


def _commit(host: Path, message: str) -> None:
    git(host, "add", "-A", "intake")
    git(host, "commit", "-q", "-m", message)


def test_clock_skew_union_merge_folds_alike_in_every_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = init_repo(tmp_path / "origin")
    shutil.copy(PROJECT / ".gitattributes", origin / ".gitattributes")
    commit_files(origin, {"intake/.keep": ""}, "Start the ledger")
    keys = [("lesson", f"L{n}") for n in range(40)]
    record_events(origin / "intake", [{"source_kind": k, "source_id": i} for k, i in keys[:20]])
    _commit(origin, "record 0..19")
    host_a = _host(origin, tmp_path / "host-a")
    host_b = _host(origin, tmp_path / "host-b")

    # host a, a true clock: two causally ordered transitions on keys 0..9
    for key in keys[:10]:
        first = append_status(host_a / "intake", *key, "pending", attempts=1,
                              previous=load_status(host_a / "intake").get(key))  # fmt: skip
        append_status(host_a / "intake", *key, "published", attempts=2, previous=first,
                      url="https://github.com/o/r/pull/1")  # fmt: skip
    record_events(host_a / "intake", [{"source_kind": k, "source_id": i} for k, i in keys[20:30]])
    _commit(host_a, "host a")

    # host b, a year ahead, plus hand-edited rows dated 2099 for the same keys
    monkeypatch.setenv("KBKIT_NOW", "2027-11-30T12:00:00Z")
    for key in keys[:10]:
        append_status(host_b / "intake", *key, "failed", attempts=1,
                      previous=load_status(host_b / "intake").get(key), reason="skewed")  # fmt: skip
    hand_edited = [
        {"source_kind": k, "source_id": i, "state": "shadowed", "attempts": 1, "seq": 1,
         "batch_id": None, "at": "2099-01-01T00:00:00Z"}
        for k, i in keys[5:15]
    ]  # fmt: skip
    append_rows(host_b / "intake" / STATUS_FILE, hand_edited)
    record_events(host_b / "intake", [{"source_kind": k, "source_id": i} for k, i in keys[25:40]])
    _commit(host_b, "host b")
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")

    # every merge order, with real `git merge` and the shipped union driver
    git(host_a, "branch", "side-a")
    git(host_b, "branch", "side-b")
    merged = []
    for name, order in (("ab", ("side-a", "side-b")), ("ba", ("side-b", "side-a"))):
        host = _host(origin, tmp_path / f"merge-{name}")
        for side in order:
            source = host_a if side == "side-a" else host_b
            git(host, "pull", "-q", "--no-rebase", "--no-edit", str(source), side)
        merged.append(host)
    git(host_a, "pull", "-q", "--no-rebase", "--no-edit", str(host_b), "side-b")
    git(host_b, "pull", "-q", "--no-rebase", "--no-edit", str(tmp_path / "merge-ab"), "HEAD")

    folds = []
    for host in (host_a, host_b, *merged):
        for name in (EVENTS_FILE, STATUS_FILE):
            text = (host / "intake" / name).read_text()
            assert "<<<<<<<" not in text and read_jsonl(host / "intake" / name).problems == []
        folds.append((load_events(host / "intake"), load_status(host / "intake")))
    # and every order of the merged lines folds the same, not only the orders git chose
    lines = (host_a / "intake" / STATUS_FILE).read_bytes().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled" / "intake"
    shuffled.mkdir(parents=True)
    shutil.copy(host_a / "intake" / EVENTS_FILE, shuffled / EVENTS_FILE)
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(lines)
        (shuffled / STATUS_FILE).write_bytes(b"".join(lines))
        folds.append((load_events(shuffled), load_status(shuffled)))
    assert all(fold == folds[0] for fold in folds[1:])
    events, status = folds[0]
    assert set(events) == set(keys)
    # the causally later row (seq 2) beats both the skewed host and the rows from 2099
    assert {status[k]["state"] for k in keys[:10]} == {"published"}
    assert {status[k]["state"] for k in keys[10:15]} == {"shadowed"}
    assert {status[k]["state"] for k in keys[15:20]} == {"pending"}
