"""jsonschema-rs says "valid" only where jsonschema, the oracle, says so too.

`schema_errors` trusts jsonschema-rs (compiled) to pass a valid row and asks jsonschema for
everything else. These tests compare the two where they could part: every character class
of every pattern of the shipped schemas, code point by code point, and whole rows mutated
every way a hand edit or a damaged file could.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.intake import schemas
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.schemas import DROP_RECORD, EVENTS, NAMES, STATUS, load_schema
from kbkit.intake.sources.drop import bugfix_row

jsonschema_rs = pytest.importorskip("jsonschema_rs")

FIXTURES = Path(__file__).with_name("fixtures")
RECORD = json.loads((FIXTURES / "consumer_drop_record.json").read_text("utf-8"))
MERGED = {
    "author": "dev1", "diff_excerpt": "", "draft": False, "labels": ["bug"],
    "merge_commit": "0" * 39 + "1", "merged_at": "2026-02-02T01:00:00Z", "number": 1,
    "recorded_at": "2026-12-07T21:19:40Z", "repo": "kbkit-dev/kbkit",
    "source_id": "kbkit-dev/kbkit#1", "source_kind": "merged_pr", "summary": "Fix the rule.",
    "title": "Validators: one case", "url": "https://github.com/kbkit-dev/kbkit/pull/1",
    "via": "github",
}  # fmt: skip
STATUS_ROW = {
    "at": "2026-11-30T01:00:00Z", "attempts": 1, "batch_id": None,
    "source_id": "kbkit-dev/kbkit#1", "source_kind": "merged_pr", "state": "pending",
}  # fmt: skip


def _patterns() -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("pattern"), str):
                found.append(value["pattern"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for name in NAMES:
        walk(load_schema(name))
    return found


# The characters worth trying under each class: the first 12,288 code points (every
# script's digits and letters that sit near ASCII, Latin-1, general punctuation) and, in the
# whole range, every one that any engine may call white space, a digit or a format character.
CHARACTERS = sorted(
    {chr(code) for code in range(0x3000)}
    | {
        chr(code)
        for code in range(0x3000, sys.maxunicode + 1)
        if chr(code).isspace()
        or unicodedata.category(chr(code)) in ("Zs", "Zl", "Zp", "Cf", "Nd", "Cc")
    }
    - {chr(code) for code in range(0xD800, 0xE000)}  # no JSON string holds a lone surrogate
)


def test_every_character_class_reads_every_character_alike() -> None:
    """Each class the schemas' patterns use (`[A-Za-z0-9_.-]`, `\\S`...) holds the same
    characters for Python's re and for jsonschema-rs, except the white space that
    `schemas.DIVERGENT_SPACES` sends to jsonschema."""
    classes = set()
    for pattern in _patterns():
        classes.update(re.findall(r"\[[^\]]*\]|\\[sSdDwW]", pattern))
    assert classes >= {r"\S", "[0-9a-f]", "[A-Za-z0-9_.-]"}  # what the schemas hold today
    differ = set()
    for klass in classes:
        fast = jsonschema_rs.validator_for({"type": "string", "pattern": f"^{klass}$"})
        ours = re.compile(f"^{klass}$")
        differ |= {c for c in CHARACTERS if (ours.search(c) is not None) != fast.is_valid(c)}
    assert differ <= set(schemas.DIVERGENT_SPACES), sorted(map(hex, map(ord, differ)))
    assert differ, "every divergent space agrees now: DIVERGENT_SPACES may shrink"


def _rows() -> dict[str, list[dict[str, Any]]]:
    bugfix = bugfix_row(RECORD, RepoIdentity("kbkit-dev/kbkit", {}), "drop")
    return {EVENTS: [MERGED, bugfix], STATUS: [STATUS_ROW], DROP_RECORD: [RECORD]}


def test_the_base_rows_are_valid_and_passed_by_jsonschema_rs() -> None:
    """Each base row is valid to the oracle, and the fast path (not the oracle) passes it:
    were jsonschema-rs never asked, the mutation test below would compare the oracle with
    itself."""
    for name, rows in _rows().items():
        for row in rows:
            assert schemas.oracle_errors(name, row) == [], row
            assert schemas._surely_valid(name, row), row


TEXT = st.text(
    st.one_of(
        st.sampled_from("aZ09_.-/#!:T+Z \t\n" + schemas.DIVERGENT_SPACES + "\u00a0\u2028\u3000"),
        st.characters(exclude_categories=["Cs"]),
    ),
    max_size=12,
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def _keys(row: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every path to a value of the row (dicts and lists, one level of lists' items)."""
    paths: list[tuple[str, ...]] = []

    def walk(value: Any, path: tuple[str, ...]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                paths.append((*path, key))
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, str(index)))

    walk(row, ())
    return paths


def _mutated(row: dict[str, Any], path: tuple[str, ...], how: str, value: Any) -> Any:
    changed = copy.deepcopy(row)
    holder: Any = changed
    for step in path[:-1]:
        holder = holder[int(step)] if isinstance(holder, list) else holder[step]
    last: Any = int(path[-1]) if isinstance(holder, list) else path[-1]
    if how == "drop":
        del holder[last]
    elif how == "set":
        holder[last] = value
    elif how == "text" and isinstance(holder[last], str):
        holder[last] = holder[last][: len(holder[last]) // 2] + str(value) + holder[last][1:]
    else:
        if isinstance(holder, dict):
            holder[f"{last}x"] = value  # a key the schema may not allow
    return changed


@pytest.mark.slow  # about 3 s: the character and white-space tests stay in the fast tier
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_schema_errors_are_the_oracles_for_mutated_rows(data: st.DataObject) -> None:
    rows = _rows()
    name = data.draw(st.sampled_from(sorted(rows)))
    row = data.draw(st.sampled_from(rows[name]))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_keys(row)))
        how = data.draw(st.sampled_from(["drop", "set", "text", "add"]))
        row = _mutated(row, path, how, data.draw(JSON))
    assert schemas.schema_errors(name, row) == schemas.oracle_errors(name, row)


@pytest.mark.parametrize(
    "value", [1 << 63, -(1 << 63) - 1, float("nan"), float("inf"), "\ud800", {1: "x"}, (1, 2)]
)
def test_values_the_two_may_read_apart_go_to_the_oracle(value: object) -> None:
    """Integers beyond 64 bits, floats that are not finite, lone surrogates, what no JSON
    row holds (a key that is a number, a tuple): the oracle decides (a count of 2^63
    attempts is as valid to it as any other)."""
    row = {**STATUS_ROW, "attempts": value}
    assert not schemas._surely_valid(STATUS, row)
    assert schemas.schema_errors(STATUS, row) == schemas.oracle_errors(STATUS, row)


def test_every_text_field_of_white_space_alone_is_judged_as_the_oracle_judges_it() -> None:
    """Each string of each base row replaced by one white-space character (those the two
    regex engines read apart among them): a field whose pattern asks for a non-blank
    character (`\\S`) is invalid to the oracle however the other engine reads it."""
    spaces = "\x1c\x1d\x1e\x1f\x85\ufeff \t\u00a0\u2028\u3000"
    tried = 0
    for name, rows in _rows().items():
        for row in rows:
            for path in _keys(row):
                for space in spaces:
                    changed = _mutated(row, path, "set", space)
                    assert schemas.schema_errors(name, changed) == schemas.oracle_errors(
                        name, changed
                    ), (path, space)
                    tried += 1
    assert tried > 100


def test_without_a_fast_validator_jsonschema_decides_every_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No wheel, or a jsonschema-rs that cannot build the schemas: the same answers, from
    jsonschema alone, and no error of its own."""

    def refuses(*_: object, **__: object) -> object:
        raise ValueError("unsupported")

    monkeypatch.setattr(jsonschema_rs, "validator_for", refuses)
    schemas._fast_validator.cache_clear()
    try:
        assert schemas._fast_validator(EVENTS) is None
        assert schemas.schema_errors(EVENTS, MERGED) == []
        broken = {**MERGED, "number": "seven"}
        assert schemas.schema_errors(EVENTS, broken) == schemas.oracle_errors(EVENTS, broken)
        assert schemas.schema_errors(EVENTS, broken) != []
    finally:
        schemas._fast_validator.cache_clear()
