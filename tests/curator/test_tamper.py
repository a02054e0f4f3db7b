"""`kb curate apply --validation FILE` checks what the file claims instead of trusting it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.curator.proposals import content_id
from tests.curator.conftest import WRITING, batch, row

Edit = Callable[[dict[str, Any], Path], None]


def _validation(clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    b = tmp_path / "batch.json"
    b.write_text(json.dumps(batch("PR #101").to_dict()))
    p = tmp_path / "reply.json"
    p.write_text(json.dumps({"proposals": [row()]}))
    out = tmp_path / "validation.json"
    args = ["--repo", str(clone), "--batch", str(b), "--proposals", str(p), "--output", str(out)]
    assert main(["curate", "validate", *args]) == 0
    capsys.readouterr()
    return out


def _readdress(accepted: dict[str, Any]) -> None:
    accepted["id"] = content_id(accepted["target"], accepted["section"])


def _edit_section(accepted: dict[str, Any], clone: Path) -> None:
    accepted["section"] = accepted["section"].replace("a local checkout", "a /tmp checkout")


def _edit_section_readdressed(accepted: dict[str, Any], clone: Path) -> None:
    accepted["section"] += "\n<!-- smuggled -->"
    _readdress(accepted)


def _edit_id(accepted: dict[str, Any], clone: Path) -> None:
    accepted["id"] = hashlib.sha256(b"another").hexdigest()


def _taken_rule_id(accepted: dict[str, Any], clone: Path) -> None:
    accepted["section"] = accepted["section"].replace("WRITE-3b", "WRITE-1a")
    accepted["rule_id"] = "WRITE-1a"
    _readdress(accepted)


def _outside_catalog(accepted: dict[str, Any], clone: Path) -> None:
    accepted["target"] = "general/writing/_index"
    data = (clone / "knowledge/general/writing/_index.md").read_bytes()
    accepted["base_sha256"] = hashlib.sha256(data).hexdigest()
    _readdress(accepted)


def _traversal(accepted: dict[str, Any], clone: Path) -> None:
    victim = clone.parent / "victim.md"
    victim.write_bytes((clone / "knowledge" / f"{WRITING}.md").read_bytes())
    accepted["target"] = "../../victim"
    _readdress(accepted)


def _base_sha(accepted: dict[str, Any], clone: Path) -> None:
    accepted["base_sha256"] = hashlib.sha256(b"another page").hexdigest()


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (_edit_section, "tampered: .*its id is not the SHA-256"),
        (_edit_section_readdressed, "tampered: .*section-shape"),
        (_edit_id, "tampered: .*its id is not the SHA-256"),
        (_taken_rule_id, "tampered: .*rule-id-taken"),
        (_outside_catalog, "tampered: .*unknown-target"),
        (_traversal, "tampered: .*unknown-target"),
        (_base_sha, "stale: "),
    ],
)
def test_a_tampered_validation_file_is_refused(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, expected: str
) -> None:
    path = _validation(clone, tmp_path, capsys)
    data = json.loads(path.read_text())
    edit(data["accepted"][0], clone)
    path.write_text(json.dumps(data))
    before = {p: p.read_bytes() for p in sorted(clone.parent.rglob("*.md"))}
    for extra in ([], ["--dry-run"]):
        code = main(["curate", "apply", "--repo", str(clone), "--validation", str(path), *extra])
        _, err = capsys.readouterr()
        assert code == 1
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert re.search(expected, err), err
    assert {p: p.read_bytes() for p in sorted(clone.parent.rglob("*.md"))} == before


def test_an_untouched_validation_file_applies(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _validation(clone, tmp_path, capsys)
    code = main(["curate", "apply", "--repo", str(clone), "--validation", str(path)])
    assert code == 0
    assert b"### WRITE-3b" in (clone / "knowledge" / f"{WRITING}.md").read_bytes()
