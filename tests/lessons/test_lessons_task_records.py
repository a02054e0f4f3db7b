"""Task records: the fast path never accepts what the schema rejects; strict file reading."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.lessons.task_records import _plainly_valid, _validator, schema_problem

# values near every boundary of the schema: control characters, empty and long strings,
# bools and floats where integers go, nulls where objects go
TEXTS = st.one_of(
    st.text(max_size=5),
    st.sampled_from(["T1", "", "x" * 64, "x" * 65, "x" * 200, "x" * 201, "a\n", "a\x7f", "ok"]),
)
ANY = st.one_of(
    TEXTS, st.none(), st.booleans(), st.integers(-2, 2), st.floats(-1, 2), st.just([]), st.just({})
)
COUNT = st.one_of(st.integers(-3, 10**6), st.booleans(), st.floats(0, 5), st.none(), TEXTS)


def maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(strategy, ANY)


FINDING = st.fixed_dictionaries(
    {"id": maybe(TEXTS), "status": maybe(TEXTS)},
    optional={"class": maybe(TEXTS), "summary": maybe(TEXTS), "extra": ANY},
)
RETEST = st.fixed_dictionaries(
    {"id": maybe(TEXTS), "finding_id": maybe(TEXTS), "verdict": maybe(TEXTS)}
)
RECORD = st.fixed_dictionaries(
    {"id": maybe(TEXTS), "status": maybe(TEXTS)},
    optional={
        "company": maybe(TEXTS),
        "category": maybe(TEXTS),
        "closed_at": maybe(st.just("2026-11-30T08:15:00Z")),
        "findings": maybe(st.lists(maybe(FINDING), max_size=3)),
        "retests": maybe(st.lists(maybe(RETEST), max_size=2)),
        "metrics": maybe(
            st.fixed_dictionaries({}, optional={"tokens": COUNT, "tool_calls": COUNT})
        ),
    },
)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, database=None)
@given(RECORD)
def test_fast_path_accepts_only_what_the_schema_accepts(record: dict) -> None:
    if _plainly_valid(record):
        assert _validator().is_valid(record), record


BOUNDARY_VALUES = [
    "T1",
    "",
    "x" * 64,
    "x" * 65,
    "x" * 200,
    "x" * 201,
    "x" * 20000,
    "x" * 20001,
    "a\n",
    "\n",
    "a\x00b",
    "a\x7f",
    "é",
    None,
    True,
    False,
    0,
    -1,
    1,
    1.0,
    1.5,
    10**6,
    [],
    {},
    [1],
    [{}],
    "2026-11-30T08:15:00Z",
    "not a date",
    DELETE := object(),
]
FIELDS = [
    ("id",),
    ("status",),
    ("company",),
    ("category",),
    ("closed_at",),
    ("findings",),
    ("findings", 0),
    ("findings", 0, "id"),
    ("findings", 0, "status"),
    ("findings", 0, "class"),
    ("findings", 0, "summary"),
    ("retests",),
    ("retests", 0),
    ("retests", 0, "id"),
    ("retests", 0, "finding_id"),
    ("retests", 0, "verdict"),
    ("metrics",),
    ("metrics", "tokens"),
    ("metrics", "tool_calls"),
]


def test_fast_path_never_accepts_a_boundary_value_the_schema_rejects(make_task) -> None:
    checked = fast = 0
    for path in FIELDS:
        for value in BOUNDARY_VALUES:
            record = make_task(
                findings=[("F1", "confirmed", "sqli", "x")], retests=[("R1", "F1", "fixed")]
            )
            parent = record
            for part in path[:-1]:
                parent = parent[part]
            if value is DELETE and isinstance(parent, dict):
                parent.pop(path[-1], None)
            elif value is DELETE:
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            checked += 1
            if _plainly_valid(record):
                fast += 1
                assert _validator().is_valid(record), (path, value)
    assert checked == len(FIELDS) * len(BOUNDARY_VALUES) and fast > 100


def test_fast_path_takes_the_everyday_record(make_task) -> None:
    task = make_task(findings=[("F1", "confirmed", "sqli", "x")], retests=[("R1", "F1", "fixed")])
    assert _plainly_valid(task) and schema_problem(task) is None


def test_control_characters_in_ids_are_refused_even_at_the_end() -> None:
    for bad in ("T1\n", "T\x001", "\x7f"):
        problem = schema_problem({"id": bad, "status": "done"})
        assert problem and "must not contain control characters" in problem
    assert schema_problem(json.loads('{"id": "T1", "status": "done"}')) is None
