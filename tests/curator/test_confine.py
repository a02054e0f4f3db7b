"""Nothing escapes the clone: real symlinks at the root, on a page's folder, as the page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurationError, KnowledgeCurator, KnowledgeValidatorError
from tests.curator.conftest import WRITING, batch, make_clone, row, validators_script


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


def test_rollback_restores_a_symlinked_page_as_the_symlink(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone")
    page = clone / "knowledge" / f"{WRITING}.md"
    # a link inside the knowledge root to a file that is not a page itself (pages are read
    # only through links that stay inside the root: kbkit.tree.page_file)
    shared = page.parent / "rules.source"
    shutil.move(str(page), str(shared))
    link = os.path.relpath(shared, page.parent)
    os.symlink(link, page)
    base = shared.read_bytes()
    (clone / "tools/check_wiki_lint.py").write_text(validators_script("fail"))
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [row("WRITE-3b")]}, batch("PR #101"))
    assert validation.accepted
    with pytest.raises(KnowledgeValidatorError) as caught:
        curator.apply(validation)
    assert caught.value.result.rolled_back
    assert page.is_symlink() and os.readlink(page) == link
    assert shared.read_bytes() == base
