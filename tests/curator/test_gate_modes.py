"""The gate compares with the tree before the change unless the policy asks for a clean tree
(#14 point 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurator, KnowledgeValidatorError
from kbkit.curator.gate import GATE_CLEAN, GATE_NO_NEW, ValidatorResult
from tests.curator.conftest import WRITING, batch, make_clone, row

OLD_PAGE = "knowledge/general/writing/rules.md"


def _with_old_finding(tmp_path: Path, gate: str | None) -> Path:
    """A clone whose tree already has an error finding (a broken link in a rule page)."""
    clone = make_clone(tmp_path / "c", validators="real")
    page = clone / OLD_PAGE
    page.write_text(page.read_text() + "\nSee [the old page](gone-long-ago.md).\n")
    if gate is not None:
        policy = clone / "knowledge/policy.yaml"
        policy.write_text(policy.read_text() + f"\ncurator:\n  gate: {gate}\n")
    return clone


def _snapshot(clone: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((clone / "knowledge").rglob("*")) if p.is_file()}


def _adds_a_finding() -> dict:  # type: ignore[type-arg]
    bad = row().copy()
    bad["section"] = bad["section"].replace(
        "keep the path relative.", "keep the path [relative](no-such-page.md)."
    )
    return bad


def _apply(clone: Path, proposal: dict) -> ValidatorResult:  # type: ignore[type-arg]
    curator = KnowledgeCurator(clone, today="2026-12-01")
    result = curator.apply(curator.validate_proposals({"proposals": [proposal]}, batch()))
    assert result.validators is not None
    return result.validators


@pytest.mark.slow
@pytest.mark.parametrize("gate", [None, GATE_NO_NEW])
def test_an_existing_finding_does_not_block_a_clean_change(tmp_path: Path, gate: str) -> None:
    clone = _with_old_finding(tmp_path, gate)
    result = _apply(clone, row())
    assert result.status == "passed" and result.gate == GATE_NO_NEW
    tree = result.runs[0]
    assert tree.command == ("kb", "check-knowledge-tree")
    assert (tree.findings_before, tree.findings_after, tree.new_findings) == (1, 1, 0)
    assert tree.returncode == 1  # the validator still sees the old finding
    assert "findings before: 1, after: 1, new after: 0" in result.output
    assert "WRITE-3b" in (clone / OLD_PAGE).read_text()


@pytest.mark.slow
def test_a_change_adding_a_finding_is_refused_and_rolled_back(tmp_path: Path) -> None:
    clone = _with_old_finding(tmp_path, None)
    before = _snapshot(clone)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [_adds_a_finding()]}, batch())
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    result = info.value.result
    assert result.rolled_back and result.status == "failed"
    tree = result.runs[-1]
    assert (tree.findings_before, tree.new_findings) == (1, 1)
    assert "findings before: 1, after: 2, new after: 1" in result.output
    assert "no-such-page.md" in result.output  # the new finding is shown ...
    assert "gone-long-ago.md" not in result.output  # ... the old one is not
    assert _snapshot(clone) == before


@pytest.mark.slow
@pytest.mark.parametrize("proposal", [row(), _adds_a_finding()])
def test_the_clean_gate_refuses_any_finding(tmp_path: Path, proposal: dict) -> None:  # type: ignore[type-arg]
    clone = _with_old_finding(tmp_path, GATE_CLEAN)
    before = _snapshot(clone)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [proposal]}, batch())
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    result = info.value.result
    assert result.rolled_back and result.gate == GATE_CLEAN
    assert result.runs[-1].findings_before is None
    assert "gone-long-ago.md" in result.output
    assert _snapshot(clone) == before


@pytest.mark.slow
def test_a_clean_tree_passes_both_gates(tmp_path: Path) -> None:
    for gate in (GATE_NO_NEW, GATE_CLEAN):
        clone = make_clone(tmp_path / gate, validators="real")
        policy = clone / "knowledge/policy.yaml"
        policy.write_text(policy.read_text() + f"\ncurator:\n  gate: {gate}\n")
        result = _apply(clone, row(target=WRITING))
        assert result.status == "passed" and result.gate == gate
        assert all(r.new_findings == 0 for r in result.runs)


@pytest.mark.slow
def test_the_transcript_round_trips(tmp_path: Path) -> None:
    clone = _with_old_finding(tmp_path, None)
    result = _apply(clone, row())
    assert ValidatorResult.from_dict(result.to_dict()) == result
    old = result.to_dict()
    del old["gate"]
    for run in old["runs"]:
        for key in ("findings_before", "findings_after", "new_findings"):
            del run[key]
    assert ValidatorResult.from_dict(old).gate == GATE_CLEAN  # an older transcript still reads


def test_the_policy_schema_refuses_an_unknown_gate(tmp_path: Path) -> None:
    from kbkit.infra.errors import UsageError

    clone = _with_old_finding(tmp_path, "lenient")
    with pytest.raises(UsageError, match="lenient|gate"):
        KnowledgeCurator(clone, today="2026-12-01")
