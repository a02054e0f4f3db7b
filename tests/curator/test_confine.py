"""Nothing escapes the clone: real symlinks at the root, on a page's folder, as the page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurationError, KnowledgeCurator
from tests.curator.conftest import WRITING, batch, make_clone, row


def _outside_copy(tmp_path: Path, clone: Path, rel: str) -> Path:
    """Move `rel` of the clone's knowledge/ outside the clone and link it back in."""
    inside = clone / "knowledge" / rel
    outside = tmp_path / "outside" / rel.replace("/", "_")
    outside.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(inside), str(outside))
    os.symlink(outside, inside)
    return outside


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_knowledge_root_leaving_the_clone_is_refused(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone")
    outside = _outside_copy(tmp_path, clone, "")
    before = _snapshot(outside)
    with pytest.raises(KnowledgeCurationError, match=r"^escape: the knowledge root"):
        KnowledgeCurator(clone).catalog()
    assert _snapshot(outside) == before


@pytest.mark.parametrize("linked", ["general/writing", f"{WRITING}.md"])
def test_pages_behind_an_outside_symlink_leave_the_catalog(tmp_path: Path, linked: str) -> None:
    clone = make_clone(tmp_path / "clone")
    _outside_copy(tmp_path, clone, linked)
    catalog = KnowledgeCurator(clone).catalog()
    assert WRITING not in catalog.pages
    assert "repos/kbkit/rules" in catalog.pages


@pytest.mark.parametrize("linked", ["general/writing", f"{WRITING}.md"])
def test_a_swap_after_validation_is_refused_before_any_write(tmp_path: Path, linked: str) -> None:
    clone = make_clone(tmp_path / "clone")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    the_batch = batch("PR #101")
    validation = curator.validate_proposals({"proposals": [row("WRITE-3b")]}, the_batch)
    assert [p.rule_id for p in validation.accepted] == ["WRITE-3b"]
    outside = _outside_copy(tmp_path, clone, linked)
    before = _snapshot(outside.parent)
    with pytest.raises(KnowledgeCurationError, match=r"^escape: "):
        curator.apply(validation)
    assert _snapshot(outside.parent) == before
    again = curator.validate_proposals({"proposals": [row("WRITE-3b")]}, the_batch)
    assert [(r.reason, r.rule_id) for r in again.rejected] == [("escape", "WRITE-3b")]


def _link_inside(clone: Path, linked: str) -> Path:
    """Make `linked` (the page, or its folder) a symlink to a copy inside the knowledge root."""
    inside = clone / "knowledge" / linked
    moved = inside.with_name(inside.name + ".real")
    shutil.move(str(inside), str(moved))
    os.symlink(moved.name, inside)
    return moved


@pytest.mark.parametrize("linked", [f"{WRITING}.md", "general/writing"])
def test_a_symlinked_page_is_never_written(tmp_path: Path, linked: str) -> None:
    """The one rule for symlinked pages: not in the catalog, a row for it is `symlink`, and an
    apply validated before the link appeared refuses before any write."""
    clone = make_clone(tmp_path / "clone")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    the_batch = batch("PR #101")
    catalog = curator.catalog()
    validation = curator.validate_proposals({"proposals": [row("WRITE-3b")]}, the_batch)
    assert [p.rule_id for p in validation.accepted] == ["WRITE-3b"]
    real = _link_inside(clone, linked)
    before = _snapshot(clone)
    with pytest.raises(KnowledgeCurationError, match=r"^symlink: "):
        curator.apply(validation)
    with pytest.raises(KnowledgeCurationError, match=r"^symlink: "):
        curator.plan(validation)
    assert _snapshot(clone) == before
    assert (clone / "knowledge" / linked).is_symlink() and real.exists()
    again = curator.validate_proposals({"proposals": [row("WRITE-3b")]}, the_batch, catalog)
    assert [(r.reason, r.rule_id) for r in again.rejected] == [("symlink", "WRITE-3b")]
    fresh = KnowledgeCurator(clone).catalog()
    assert WRITING not in fresh.pages and "WRITE-1a" in fresh.defined  # its IDs stay taken
