"""The crash journal: a replay never eats a later edit, and a bad journal is a clear error.

Real processes: `kb curate apply` is SIGKILLed at the step `page-written` (after its first or
second page), a person then edits a page, and the next curator command runs as a user runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.curator import KnowledgeCurator, RecoveryConflict
from kbkit.curator.journal import JOURNAL, JournalPage, state_dir, write_journal
from tests.conftest import PROJECT
from tests.curator.conftest import KBKIT, WRITING, batch, make_clone, row, validators_script

REVIEW = "general/review/rules"
PARAGRAPH = b"\nA paragraph a person added after the crash.\n"


def _page(clone: Path, doc: str) -> Path:
    return clone / "knowledge" / f"{doc}.md"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _validation(clone: Path, out: Path) -> dict[str, str]:
    """Three accepted rows on three pages, saved for `kb curate apply`; what each page will
    hold after the apply."""
    rows = [
        row("WRITE-3b"),
        row("KBK-3a", target=KBKIT, title="Locks are per clone"),
        row("REV-9a", target=REVIEW, title="Review the insertion point"),
    ]
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": rows}, batch())
    assert len(validation.accepted) == 3, validation.rejected
    out.write_text(json.dumps(validation.to_dict()))
    return {c.document_id: c.new_sha256 for c in curator.plan(validation).changes}


def _kb(*args: str, kill_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}")
    hooks = ["-m", "tests.step_hooks", *(["--kill-at", kill_at] if kill_at else []), "--"]
    return subprocess.run(
        [sys.executable, *hooks, *args],
        env=env,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _killed_apply(tmp_path: Path, pages_written: int) -> tuple[Path, dict[str, bytes]]:
    clone = make_clone(tmp_path / "clone")
    validation = tmp_path / "validation.json"
    written = _validation(clone, validation)
    bases = {doc: _page(clone, doc).read_bytes() for doc in written}
    done = _kb(
        "curate", "apply", "--repo", str(clone), "--validation", str(validation),
        "--today", "2026-12-01", kill_at=f"page-written@{pages_written}",
    )  # fmt: skip
    assert done.returncode == -9, done.stderr
    assert (state_dir(clone) / JOURNAL).exists()
    order = [WRITING, KBKIT, REVIEW]  # the reply's order is the write order
    for doc in order[:pages_written]:
        assert _sha(_page(clone, doc).read_bytes()) == written[doc]
    for doc in order[pages_written:]:
        assert _page(clone, doc).read_bytes() == bases[doc]
    return clone, bases


def _batch_file(tmp_path: Path) -> str:
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(batch().to_dict()))
    return str(path)


@pytest.mark.slow
def test_a_replay_after_a_kill_leaves_a_later_edit_and_says_so(tmp_path: Path) -> None:
    clone, bases = _killed_apply(tmp_path, pages_written=2)
    edited = _page(clone, WRITING)
    edited.write_bytes(edited.read_bytes() + PARAGRAPH)
    keep = edited.read_bytes()
    done = _kb("curate", "prompt", "--repo", str(clone), "--batch", _batch_file(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"knowledge/{WRITING}.md: it changed since the apply wrote it" in done.stderr
    assert "--keep-current" in done.stderr and "--restore-base" in done.stderr
    assert edited.read_bytes() == keep  # the paragraph (and the apply's section) are there
    assert _page(clone, KBKIT).read_bytes() == bases[KBKIT]  # held what the apply wrote
    assert _page(clone, REVIEW).read_bytes() == bases[REVIEW]  # never written
    again = _kb("curate", "prompt", "--repo", str(clone), "--batch", _batch_file(tmp_path))
    assert again.returncode == 1 and f"knowledge/{WRITING}.md" in again.stderr
    assert f"knowledge/{KBKIT}.md" not in again.stderr  # the journal keeps only what is left
    kept = _kb("curate", "recover", "--repo", str(clone), "--keep-current")
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout)["kept"] == [WRITING]
    assert edited.read_bytes() == keep
    assert not (state_dir(clone) / JOURNAL).exists()
    prompt = _kb("curate", "prompt", "--repo", str(clone), "--batch", _batch_file(tmp_path))
    assert prompt.returncode == 0, prompt.stderr


@pytest.mark.slow
def test_restore_base_is_a_decision_a_person_makes(tmp_path: Path) -> None:
    clone, bases = _killed_apply(tmp_path, pages_written=1)
    edited = _page(clone, WRITING)
    edited.write_bytes(edited.read_bytes() + PARAGRAPH)
    with pytest.raises(RecoveryConflict) as caught:
        KnowledgeCurator(clone).catalog()
    assert [c.document_id for c in caught.value.conflicts] == [WRITING]
    result = KnowledgeCurator(clone).recover("restore-base")
    assert result.restored == (WRITING,)  # the journal kept only the page left
    assert all(_page(clone, doc).read_bytes() == data for doc, data in bases.items())


@pytest.mark.slow
def test_an_unedited_crash_is_undone_as_before(tmp_path: Path) -> None:
    clone, bases = _killed_apply(tmp_path, pages_written=2)
    result = KnowledgeCurator(clone).recover()
    assert result.restored == tuple(sorted([WRITING, KBKIT])) and result.unchanged == (REVIEW,)
    assert all(_page(clone, doc).read_bytes() == data for doc, data in bases.items())


@pytest.mark.slow
def test_a_page_deleted_or_linked_since_is_left_as_it_is(tmp_path: Path) -> None:
    clone, _ = _killed_apply(tmp_path, pages_written=2)
    _page(clone, WRITING).unlink()
    kbkit = _page(clone, KBKIT)
    target = kbkit.with_name("elsewhere.txt")
    target.write_bytes(kbkit.read_bytes())
    kbkit.unlink()
    os.symlink(target.name, kbkit)
    with pytest.raises(RecoveryConflict) as caught:
        KnowledgeCurator(clone).recover()
    holds = {c.document_id: c.holds for c in caught.value.conflicts}
    assert "missing" in holds[WRITING] and "symlink" in holds[KBKIT]
    assert not _page(clone, WRITING).exists() and kbkit.is_symlink()
    # restoring the base writes a missing page back, but never over (or through) a symlink
    with pytest.raises(RecoveryConflict) as again:
        KnowledgeCurator(clone).recover("restore-base")
    assert [c.document_id for c in again.value.conflicts] == [KBKIT]
    assert _page(clone, WRITING).exists() and kbkit.is_symlink()
    assert KnowledgeCurator(clone).recover("keep-current").kept == (KBKIT,)


@pytest.mark.slow
def test_a_rollback_leaves_a_page_edited_while_the_gate_ran(tmp_path: Path) -> None:
    """A person saves the page while the validators run, and the gate fails: the rollback
    puts back nothing that the apply did not write."""
    clone = make_clone(tmp_path / "clone")
    page = _page(clone, WRITING)
    script = (
        f"from pathlib import Path\np = Path({str(page)!r})\n"
        f"p.write_bytes(p.read_bytes() + {PARAGRAPH!r})\n" + validators_script("fail")
    )
    (clone / "tools/check_wiki_lint.py").write_text(script)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals(
        {"proposals": [row(), row("KBK-3a", target=KBKIT)]}, batch()
    )
    kbkit_base = _page(clone, KBKIT).read_bytes()
    with pytest.raises(RecoveryConflict) as caught:
        curator.apply(validation)
    assert "validator" in str(caught.value) and caught.value.restored == (KBKIT,)
    assert page.read_bytes().endswith(PARAGRAPH) and b"### WRITE-3b" in page.read_bytes()
    assert _page(clone, KBKIT).read_bytes() == kbkit_base


BAD_JOURNALS = {
    "the issue's shape": '{"version":1,"knowledge_root":5,"pages":[]}',
    "wrong types": '{"version":2,"knowledge_root":5,"pages":[]}',
    "a list": "[]",
    "a string": '"journal"',
    "not JSON": "{half",
    "deep JSON": "[" * 100_000 + "]" * 100_000,
    "bad page entry": '{"version":2,"knowledge_root":"knowledge","pages":{"a":{"base64":5,'
    '"base_sha256":null,"written_sha256":"x"}}}',
    "bad base64": '{"version":2,"knowledge_root":"knowledge","pages":{"a":{"base64":"!!",'
    f'"base_sha256":"{"0" * 64}","written_sha256":"{"1" * 64}"}}}}}}',
    "digest mismatch": '{"version":2,"knowledge_root":"knowledge","pages":{"a":{"base64":"eA==",'
    f'"base_sha256":"{"0" * 64}","written_sha256":"{"1" * 64}"}}}}}}',
    "path escape": '{"version":2,"knowledge_root":"knowledge","pages":{"../../etc/x":'
    f'{{"base64":null,"base_sha256":null,"written_sha256":"{"1" * 64}"}}}}}}',
    "a trailing newline in a digest": '{"version":2,"knowledge_root":"knowledge","pages":{"a":'
    f'{{"base64":null,"base_sha256":null,"written_sha256":"{"1" * 64}\\n"}}}}}}',
}


@pytest.mark.parametrize("content", list(BAD_JOURNALS.values()), ids=list(BAD_JOURNALS))
def test_a_journal_of_the_wrong_shape_is_one_clear_error(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    journal = state_dir(clone) / JOURNAL
    journal.write_text(content)
    before = {p: p.read_bytes() for p in (clone / "knowledge").rglob("*.md")}
    code = main(["curate", "prompt", "--repo", str(clone), "--batch", _batch_file(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 1, err
    assert err.startswith(f"kb: error: {journal}: the crash journal cannot be used")
    assert "Traceback" not in err and "restore the pages with git" in err
    assert {p: p.read_bytes() for p in (clone / "knowledge").rglob("*.md")} == before
    assert journal.read_text() == content  # kept for the person who looks


def test_a_folder_in_place_of_the_journal_is_a_clear_error(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (state_dir(clone) / JOURNAL).mkdir()
    assert main(["curate", "recover", "--repo", str(clone)]) == 1
    assert "not a regular file" in capsys.readouterr().err


def test_the_journal_records_what_the_apply_writes(clone: Path) -> None:
    page = _page(clone, WRITING)
    base = page.read_bytes()
    applied = base + b"\n### WRITE-9z half\n"
    write_journal(clone, "knowledge", {WRITING: JournalPage(base, _sha(applied))})
    page.write_bytes(applied)
    assert KnowledgeCurator(clone).recover().restored == (WRITING,)
    assert page.read_bytes() == base
