"""Refusals of the apply that no other test reached (found by `benchmarks.mutation`).

`KnowledgeCurator.apply` revalidates, then takes the clone's lock and plans every page again:
the second look is what stops an apply from writing over a page a person added, or an owner
index a person edited, in the moment between the two. These tests make that change land in
exactly that moment (right after the real revalidation) and pin the result's wire format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.curator import (
    KnowledgeConfigurationError,
    KnowledgeCurationError,
    KnowledgeCurator,
    KnowledgeProposalValidation,
)
from kbkit.curator.apply import KnowledgeApplyResult
from kbkit.curator.journal import JOURNAL, state_dir
from kbkit.infra import steps
from tests.curator.conftest import WRITING, batch, make_clone, row
from tests.curator.test_new_page import INDEX, NEW, _path, _rows


def _validated(tmp_path: Path) -> tuple[KnowledgeCurator, KnowledgeProposalValidation]:
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": _rows()}, batch())
    assert not validation.rejected, validation.rejected
    return curator, validation


def _after_revalidation(
    monkeypatch: pytest.MonkeyPatch, curator: KnowledgeCurator, change: Path, data: bytes
) -> None:
    """Run the real revalidation, then let a person write `data` into `change`."""
    real = curator.revalidate

    def then_a_person_writes(validation: KnowledgeProposalValidation) -> None:
        real(validation)
        change.write_bytes(data)

    monkeypatch.setattr(curator, "revalidate", then_a_person_writes)


@pytest.mark.parametrize("dry_run", [False, True], ids=["apply", "plan"])
def test_a_new_page_that_appeared_after_validation_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
) -> None:
    curator, validation = _validated(tmp_path)
    page, index = _path(curator.clone, NEW), _path(curator.clone, INDEX)
    index_before = index.read_bytes()
    human = b"---\ntitle: a page a person just added\n---\n\n# Mine\n"
    _after_revalidation(monkeypatch, curator, page, human)
    call = curator.plan if dry_run else curator.apply
    with pytest.raises(KnowledgeCurationError, match=f"stale: {NEW} exists now"):
        call(validation)
    assert page.read_bytes() == human
    assert index.read_bytes() == index_before


def test_an_owner_index_changed_after_validation_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    curator, validation = _validated(tmp_path)
    page, index = _path(curator.clone, NEW), _path(curator.clone, INDEX)
    edited = index.read_bytes() + b"\nA line a person added.\n"
    _after_revalidation(monkeypatch, curator, index, edited)
    with pytest.raises(
        KnowledgeCurationError, match=f"stale: {INDEX} changed since the proposals were validated"
    ):
        curator.apply(validation)
    assert index.read_bytes() == edited
    assert not page.exists()


def test_the_apply_result_wire_format_is_version_one(tmp_path: Path) -> None:
    """Hosts read `api_version` to know the shape; a change must be a deliberate new version."""
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [row()]}, batch())
    assert not validation.rejected, validation.rejected
    planned = curator.plan(validation).to_dict()
    applied = curator.apply(validation).to_dict()
    empty = KnowledgeApplyResult((), (), None, False).to_dict()
    for wire in (planned, applied, empty):
        assert wire["api_version"] == 1
        assert sorted(wire) == ["api_version", "applied", "changes", "dry_run", "validators"]
    assert planned["dry_run"] is True and applied["dry_run"] is False
    assert planned["validators"] is None and applied["validators"]["status"] == "passed"
    assert empty == {
        "api_version": 1,
        "dry_run": False,
        "changes": [],
        "applied": [],
        "validators": None,
    }
    again = KnowledgeApplyResult.from_dict(json.loads(json.dumps(applied)))
    assert again.to_dict() == applied and again.changed
    assert not KnowledgeApplyResult.from_dict(empty).changed


def test_a_page_removed_after_validation_is_a_clean_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target (or a new page's owner index) deleted in that moment: a refusal naming it,
    never a crash, and nothing written."""
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [row()]}, batch())
    assert not validation.rejected, validation.rejected
    page = _path(clone, WRITING)
    real = curator.revalidate

    def then_a_person_deletes(validation: KnowledgeProposalValidation) -> None:
        real(validation)
        page.unlink()

    monkeypatch.setattr(curator, "revalidate", then_a_person_deletes)
    with pytest.raises(KnowledgeCurationError, match=f"stale: {WRITING} cannot be read"):
        curator.apply(validation)
    assert not page.exists()


def test_an_owner_index_removed_after_validation_is_a_clean_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    curator, validation = _validated(tmp_path)
    index = _path(curator.clone, INDEX)
    real = curator.revalidate

    def then_a_person_deletes(validation: KnowledgeProposalValidation) -> None:
        real(validation)
        index.unlink()

    monkeypatch.setattr(curator, "revalidate", then_a_person_deletes)
    with pytest.raises(KnowledgeCurationError, match=f"stale: {INDEX} cannot be read"):
        curator.apply(validation)
    assert not index.exists() and not _path(curator.clone, NEW).exists()


def _snapshot(clone: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((clone / "knowledge").rglob("*")) if p.is_file()}


def test_a_validator_removed_after_the_first_check_is_refused_before_any_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate is checked again under the lock: a policy validator script removed after
    `check_validators` is a configuration refusal with nothing written, not a rollback."""
    clone = make_clone(tmp_path / "clone")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [row()]}, batch())
    assert not validation.rejected, validation.rejected
    before = _snapshot(clone)
    real = curator.revalidate

    def then_the_script_goes(validation: KnowledgeProposalValidation) -> None:
        real(validation)
        (clone / "tools/check_wiki_lint.py").unlink()

    monkeypatch.setattr(curator, "revalidate", then_the_script_goes)
    with pytest.raises(KnowledgeConfigurationError, match="is missing in the clone") as info:
        curator.apply(validation)
    assert info.value.result.status == "missing" and info.value.result.rolled_back is False
    assert _snapshot(clone) == before
    assert not (state_dir(clone) / JOURNAL).exists()


def test_an_apply_interrupted_in_this_process_is_undone_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (KeyboardInterrupt) after the first page is written: every page is put back
    before the exception leaves `apply`, without waiting for the next call's recovery."""
    curator, validation = _validated(tmp_path)
    before = _snapshot(curator.clone)

    def interrupt(step: str) -> None:
        if step == "page-written":
            raise KeyboardInterrupt

    monkeypatch.setattr(steps, "_listeners", [interrupt])
    with pytest.raises(KeyboardInterrupt):
        curator.apply(validation)
    assert _snapshot(curator.clone) == before
    assert not _path(curator.clone, NEW).exists()
    assert not (state_dir(curator.clone) / JOURNAL).exists()
