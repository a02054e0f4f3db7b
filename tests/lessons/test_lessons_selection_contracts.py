"""Selection contracts no other test pinned (found by `benchmarks.mutation`).

A task never sees the lessons its own evidence built, and only those: with several lessons,
"hide everything" and "hide nothing" both fail. A task record whose `started_at` is not a
timestamp is refused with the task named, not read as "no time cut".
"""

from __future__ import annotations

import pytest

from kbkit.infra.errors import InputError, UsageError
from kbkit.lessons.extraction import Candidate, Extraction, lesson_id
from kbkit.lessons.redaction import scope_key
from kbkit.lessons.selection import select_lessons, selection_cutoff
from kbkit.lessons.store import LessonStore

AT = "2026-11-01T00:00:00Z"
TASK = {"company": "acme", "category": "web"}


def _candidate(name: str, task: str, at: str = AT) -> Candidate:
    keys = scope_key("acme"), scope_key("web")
    lid = lesson_id("positive", *keys, "sqli", name)
    return Candidate(
        lid, "positive", "acme", "web", "sqli", name, name, "finding", f"{task}/F-{name}",
        task, at, *keys,
    )  # fmt: skip


def _seed(store: LessonStore, evidence: dict[str, list[str]], at: str = AT) -> None:
    """evidence: task id -> the names of the lessons its findings support (closed at `at`)."""
    store.add(
        [
            Extraction(task, True, [_candidate(name, task, at) for name in names], [], None)
            for task, names in evidence.items()
        ]
    )


def _shown(store: LessonStore, task_id: str, **task: str) -> list[str]:
    return sorted(x.action for x in select_lessons({**TASK, "id": task_id, **task}, store))


@pytest.mark.parametrize(
    ("started_at", "late"),
    [(None, ["zeta"]), ("2026-11-10T00:00:00Z", [])],
    ids=["live", "time-cut"],
)
def test_a_task_is_hidden_exactly_the_lessons_its_own_evidence_built(
    store: LessonStore, started_at: str | None, late: list[str]
) -> None:
    """With a time cut before the last evidence, selection ranks what was known then (its
    own code path): the task's own lessons stay hidden there too."""
    _seed(
        store,
        {
            "T-own": ["alpha", "beta"],  # the task under test supports two lessons
            "T-a": ["alpha", "gamma"],  # others support those two as well, and more
            "T-b": ["beta", "delta"],
            "T-c": ["epsilon"],
        },
    )
    _seed(store, {"T-late": ["zeta"]}, at="2026-11-20T00:00:00Z")  # after the cut
    extra = {"started_at": started_at} if started_at else {}
    assert _shown(store, "T-own", **extra) == sorted(["delta", "epsilon", "gamma", *late])
    assert _shown(store, "T-c", **extra) == sorted(["alpha", "beta", "delta", "gamma", *late])
    everything = ["alpha", "beta", "delta", "epsilon", "gamma", *late]
    assert _shown(store, "T-new", **extra) == sorted(everything)


@pytest.mark.parametrize("value", ["yesterday", "2026-13-45T00:00:00Z", "", 1733011200])
def test_a_malformed_started_at_is_refused_naming_the_task(
    store: LessonStore, value: object
) -> None:
    _seed(store, {"T-a": ["alpha"]})
    task = {**TASK, "id": "T-odd", "started_at": value}
    with pytest.raises(InputError, match="is not an ISO 8601 timestamp") as caught:
        select_lessons(task, store)
    assert "started_at=" in str(caught.value) and "T-odd" in str(caught.value)
    assert not isinstance(caught.value, UsageError)
    # --as-of wins over the record's started_at, and a bad --as-of is a usage error
    assert selection_cutoff(task, "2026-12-01T00:00:00+00:00") == "2026-12-01T00:00:00Z"
    with pytest.raises(UsageError, match="--as-of='soon'"):
        selection_cutoff({"id": "T-ok"}, "soon")


def test_a_valid_started_at_is_the_time_cut(store: LessonStore) -> None:
    _seed(store, {"T-a": ["alpha"]})
    assert selection_cutoff({"id": "T", "started_at": "2026-12-01T01:00:00+01:00"}, None) == (
        "2026-12-01T00:00:00Z"
    )
    assert selection_cutoff({"id": "T"}, None) is None
    assert _shown(store, "T-x", started_at="2026-12-01T00:00:00Z") == ["alpha"]
    assert _shown(store, "T-x", started_at="2026-10-01T00:00:00Z") == []  # before the evidence
