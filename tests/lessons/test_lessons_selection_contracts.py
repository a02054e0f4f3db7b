"""Selection contracts no other test pinned (found by `benchmarks.mutation`).

A task never sees the lessons its own evidence built, and only those: with several lessons,
"hide everything" and "hide nothing" both fail. A task record whose `started_at` is not a
timestamp is refused with the task named, not read as "no time cut".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.infra.errors import InputError, UsageError
from kbkit.lessons.extraction import Candidate, Extraction, lesson_id
from kbkit.lessons.redaction import scope_key
from kbkit.lessons.selection import lesson_scope, select_lessons, selection_cutoff
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


def test_the_scope_is_checked_and_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LessonStore.for_repo(tmp_path)
    keys = scope_key("acme"), scope_key("web")
    generic = Candidate(
        lesson_id("positive", None, None, "sqli", "generic"), "positive", None, None, "sqli",
        "generic", "generic", "finding", "T-g/F1", "T-g", AT, None, None,
    )  # fmt: skip
    store.add([Extraction("T-g", True, [generic], [], None)])
    _seed(store, {"T-a": ["alpha"]})
    assert keys == (scope_key("ACME"), scope_key("Web"))
    assert _shown(store, "T-x") == ["alpha", "generic"]  # the default: company+generic
    monkeypatch.setenv("KBKIT_LESSONS_SCOPE", "company")
    assert lesson_scope() == "company"
    assert _shown(store, "T-x") == ["alpha"]
    assert lesson_scope("open") == "open"  # the option wins over the environment
    monkeypatch.setenv("KBKIT_LESSONS_SCOPE", "everyone")
    with pytest.raises(UsageError, match="KBKIT_LESSONS_SCOPE='everyone'"):
        select_lessons({**TASK, "id": "T-x"}, store)
    with pytest.raises(UsageError, match="--scope='all'"):
        select_lessons({**TASK, "id": "T-x"}, store, scope="all")
    monkeypatch.setenv("KBKIT_LESSONS_SCOPE", "  ")
    assert lesson_scope() == "company+generic"


def test_a_time_cut_reports_the_support_and_last_evidence_known_then(store: LessonStore) -> None:
    for day, task in ((2, "T-1"), (5, "T-2"), (9, "T-3")):
        _seed(store, {task: ["alpha"]}, at=f"2026-11-0{day}T00:00:00Z")
    _seed(store, {"T-4": ["beta"]}, at="2026-11-20T00:00:00Z")
    [live_alpha, _beta] = select_lessons({**TASK, "id": "T-x"}, store)
    assert (live_alpha.support, live_alpha.last_seen) == (3, "2026-11-09T00:00:00Z")
    [alpha] = select_lessons({**TASK, "id": "T-x", "started_at": "2026-11-06T00:00:00Z"}, store)
    assert (alpha.action, alpha.support, alpha.last_seen) == ("alpha", 2, "2026-11-05T00:00:00Z")


def test_the_store_passed_is_the_one_read_and_a_selection_serializes(tmp_path: Path) -> None:
    """The store given is read even when the working folder holds another one."""
    (tmp_path / "other").mkdir()
    here, there = LessonStore.for_repo(tmp_path), LessonStore.for_repo(tmp_path / "other")
    _seed(here, {"T-a": ["in the working folder"]})
    _seed(there, {"T-b": ["elsewhere"]})
    [chosen] = select_lessons({**TASK, "id": "T-x"}, there)
    assert chosen.action == "elsewhere" and chosen.ids() == [chosen.id]
    wire = chosen.to_dict()
    assert wire["also"] == [] and wire["id"] == chosen.id and wire["support"] == 1
    assert sorted(wire) == sorted(chosen._fields)
    assert chosen._replace(also=("x",)).to_dict()["also"] == ["x"]


def test_one_findings_two_lessons_share_a_slot_and_both_ids_are_reported(
    store: LessonStore,
) -> None:
    """`ids()` is what usage records as shown: the merged lesson's id must be in it."""
    confirmed, reproduced = "Confirmed sqli: login", "Reproduced sqli on retest: login"
    _seed(store, {"T-a": [confirmed, reproduced], "T-b": ["other"]})
    keys = scope_key("acme"), scope_key("web")
    ids = {name: lesson_id("positive", *keys, "sqli", name) for name in (confirmed, reproduced)}
    shown = select_lessons({**TASK, "id": "T-x"}, store)
    merged = [x for x in shown if x.action.startswith("Confirmed and reproduced")]
    assert [x.action for x in merged] == ["Confirmed and reproduced on retest sqli: login"]
    assert sorted(merged[0].ids()) == sorted(ids.values()) and len(merged[0].also) == 1
    assert len(shown) == 2


def test_the_merged_slot_keeps_the_lessons_ranked_between_and_merges_only_positives(
    store: LessonStore,
) -> None:
    """The finding's second lesson comes after another lesson: that one keeps its own line;
    and a caution lesson is never merged into a positive one, whatever its text."""
    confirmed, reproduced = "Confirmed sqli: login", "Reproduced sqli on retest: login"
    _seed(store, {f"T-c{n}": [confirmed] for n in range(3)})  # support 3: ranked first
    _seed(store, {f"T-o{n}": ["other"] for n in range(2)})  # support 2: second
    _seed(store, {"T-r": [reproduced]})  # support 1: third, merged into the first slot
    shown = select_lessons({**TASK, "id": "T-x"}, store)
    assert [x.action for x in shown] == [
        "Confirmed and reproduced on retest sqli: login",
        "other",
    ]
    keys = scope_key("acme"), scope_key("web")
    caution = Candidate(
        lesson_id("caution", *keys, "sqli", "c"), "caution", "acme", "web", "sqli",
        "Reproduced sqli on retest: login", "c", "finding", "T-k/F1", "T-k", AT, *keys,
    )  # fmt: skip
    store.add([Extraction("T-k", True, [caution], [], None)])
    actions = [x.action for x in select_lessons({**TASK, "id": "T-x"}, store)]
    assert actions[-1] == "Reproduced sqli on retest: login" and len(actions) == 3
