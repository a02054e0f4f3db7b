"""The intake state files (PR cursor, remembered mailbox refusals) share one reader and writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.infra.errors import InputError
from kbkit.intake.state_file import read_state, write_state

MESSAGES = {"invalid": "not JSON here", "expected": "expected another shape"}


def test_a_missing_file_is_an_empty_state(tmp_path: Path) -> None:
    assert read_state(tmp_path / "cursor.json", "merged_prs", **MESSAGES) == {}


def test_written_state_reads_back_sorted_under_its_key(tmp_path: Path) -> None:
    path = tmp_path / "cursor.json"
    write_state(path, "merged_prs", {"b/b": "2", "a/a": "1"})
    assert list(json.loads(path.read_text())["merged_prs"]) == ["a/a", "b/b"]
    assert json.loads(path.read_text())["version"] == 1
    assert read_state(path, "merged_prs", **MESSAGES) == {"a/a": "1", "b/b": "2"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON here"),
        (b"\xff\xfe".decode("latin-1"), "not JSON here"),
        ('["a list"]', "expected another shape"),
        ('{"version": 1, "refused": {}}', "expected another shape"),  # another key
        ('{"version": 1, "merged_prs": ["x"]}', "expected another shape"),
    ],
)
def test_a_bad_file_is_an_input_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "cursor.json"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(InputError, match=message) as caught:
        read_state(path, "merged_prs", **MESSAGES)
    assert str(path) in str(caught.value)
