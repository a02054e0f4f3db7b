"""Drop records and `kb intake status` against hostile text: trailing newlines, controls, bidi."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events, record_events
from kbkit.intake.schemas import DROP_RECORD, schema_errors
from kbkit.intake.sources.drop import neutral_title

SCHEMAS = sorted(
    (Path(__file__).resolve().parents[2] / "tools/kbkit/intake/schemas").glob("*.json")
)
FIXTURES = Path(__file__).with_name("fixtures")
HOSTILE = "fix \x1b[31mred\x1b[0m\rOVERWRITE \u202eevil\u2066 \u200bzero\nforged: line\x07"
RAW = ("\x1b", "\r", "\u202e", "\u2066", "\u200b", "\x07")
# Values that some anchored pattern of the intake schemas accepts.
SAMPLES = ("run-1", "owner/name", "owner/name#12", "abcdef1", "2026-11-30T08:15:00Z",
           "owner/name#12:discussion_r345")  # fmt: skip


def _patterns(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        return found + [p for value in node.values() for p in _patterns(value)]
    if isinstance(node, list):
        return [p for value in node for p in _patterns(value)]
    return []


ANCHORED = [
    (path.name, pattern)
    for path in SCHEMAS
    for pattern in _patterns(json.loads(path.read_text()))
    if pattern.startswith("^")
]


def test_the_intake_schemas_have_anchored_patterns() -> None:
    assert len(ANCHORED) >= 9


@pytest.mark.parametrize(("schema", "pattern"), ANCHORED)
def test_no_anchored_pattern_admits_a_trailing_newline(schema: str, pattern: str) -> None:
    # jsonschema runs re.search, where `$` also matches before a final "\n"
    validator = jsonschema.Draft202012Validator({"type": "string", "pattern": pattern})
    valid = [sample for sample in SAMPLES if validator.is_valid(sample)]
    assert valid, f"{schema}: no sample value matches {pattern}"
    for sample in valid:
        for tail in ("\n", "\r\n", " ", "\n\n"):
            assert not validator.is_valid(sample + tail), (schema, pattern, sample + tail)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("run_id", "bugfix-2026-11-28-2210\n"),
        ("repo", "kbkit-dev/kbkit\n"),
        ("created_at", "2026-11-28T22:10:00Z\n"),
    ],
)
def test_a_drop_record_with_a_trailing_newline_is_refused(field: str, value: str) -> None:
    record = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    assert schema_errors(DROP_RECORD, record) == []
    record[field] = value
    assert schema_errors(DROP_RECORD, record)


def test_neutral_title_is_one_inert_line() -> None:
    title = neutral_title(HOSTILE)
    assert not any(char in title for char in RAW) and "\n" not in title
    assert "<U+001B>[31mred" in title and "<U+202E>evil" in title
    assert neutral_title(" \n\t ") == "(no title)"
    assert len(neutral_title("x" * 5000)) == 500


def test_collect_neutralises_a_hostile_title(tmp_path: Path) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    record = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    record["title"] = HOSTILE
    (drops / f"{record['run_id']}.json").write_text(json.dumps(record))
    assert main(["intake", "collect", "--drops", str(drops), "--repo", str(tmp_path)]) == 0
    (row,) = load_events(tmp_path / "intake").values()
    for title in (row["title"], row["record"]["title"]):
        assert not any(char in title for char in RAW) and "\n" not in title


def test_drop_neutralises_a_hostile_title(tmp_path: Path) -> None:
    run = json.loads((FIXTURES / "producer_run.json").read_text())
    run["title"] = HOSTILE
    (tmp_path / "run.json").write_text(json.dumps(run))
    drops = tmp_path / "drops"
    assert main(["intake", "drop", "--run", str(tmp_path / "run.json"), "--dir", str(drops)]) == 0
    (written,) = drops.glob("*.json")
    title = json.loads(written.read_text())["title"]
    assert not any(char in title for char in RAW) and "\n" not in title


def test_status_never_prints_raw_escapes(tmp_path: Path, capsys) -> None:
    # a row as another recorder may have written it, hostile title and all
    folder = tmp_path / "intake"
    record_events(
        folder,
        [
            {
                "source_kind": "lesson",
                "source_id": "lesson-1",
                "repo": "kbkit-dev/kbkit",
                "title": HOSTILE,
                "summary": "s",
                "recorded_at": "2026-11-30T08:15:00Z",
            }
        ],
    )
    capsys.readouterr()
    assert main(["intake", "status", "--repo", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert not any(char in text for char in RAW)
    assert "<U+001B>[31mred" in text and "<U+000A>forged: line" in text
    assert not re.search(r"^forged", text, re.MULTILINE)  # no forged line
    assert main(["intake", "status", "--repo", str(tmp_path), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert not any(char in out for char in RAW)
    assert json.loads(out)["oldest_pending"]["title"] == HOSTILE  # escaped, not changed
