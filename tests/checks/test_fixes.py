"""`kb fix` / `kb check --fix` / `--diff`: mechanical fixes, re-checked, idempotent,
put back per file when they do not hold, never changing what a page says."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.gitrepo import git
from tests.kbtree import kb, make_tree
from tests.reads_alike import assert_reads_alike, joined

from kbkit.checks.fix_apply import FixFailed, apply_fixes
from kbkit.checks.fixes import Edit, apply_edits
from kbkit.rulebook.findings import ERROR, Finding

UNQUOTED = "---\ntitle: Notes on things\ntype: guide\ntags: [general]\n---\n\n# Notes on things\n\nText 192.0.2.1 here.\n"
OLD = (
    '---\ntitle: "Old"\ncreated: 2026-01-01\nupdated: 2026-01-02\ntype: guide\n'
    "tags: [general]\nsources: []\n---\n\n# Old\n\n<!-- kb-disable-next-line tree/link-broken: "
    "moved -->\nNothing broken here.\n"
)


def _digest(repo: Path) -> str:
    h = hashlib.sha256()
    for path in sorted((repo / "knowledge").rglob("*.md")):
        h.update(path.relative_to(repo).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = make_tree(tmp_path / "team", {"old": "x"})
    git(made, "init", "-q", "-b", "main")
    (made / "knowledge/general/old.md").write_text(OLD)
    git(made, "add", "-A")
    git(made, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "init")
    (made / "knowledge/general/notes.md").write_text(UNQUOTED)  # new, not registered
    return made


def _rules(out: str) -> list[tuple[str, str]]:
    return [(f["path"], f["rule"]) for f in json.loads(out)["findings"]]


@pytest.mark.slow
def test_fix_applies_every_mechanical_fix_and_a_second_run_changes_nothing(repo: Path) -> None:
    before = kb(repo, "check", "--format", "json")
    assert sorted(r for _, r in _rules(before.stdout)) == [
        "kb/suppression-unused",
        "lint/field-missing",
        "lint/field-missing",
        "lint/orphan",
        "lint/title-unquoted",
        "tree/page-unregistered",
    ]
    done = kb(repo, "fix", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _rules(done.stdout) == []
    assert "fixed 5 finding(s) in 3 file(s)" in done.stderr
    notes = (repo / "knowledge/general/notes.md").read_text()
    assert notes.startswith('---\ntitle: "Notes on things"\ntype: guide\ntags: [general]\n')
    assert "created: 2026-11-30\nupdated: 2026-11-30\n---\n" in notes  # not in git: today
    assert notes.endswith("# Notes on things\n\nText 192.0.2.1 here.\n")  # the text as it was
    old = (repo / "knowledge/general/old.md").read_text()
    assert "kb-disable" not in old and old.endswith("# Old\n\nNothing broken here.\n")
    assert "updated: 2026-01-02" in old  # committed as it is: no bump
    index = (repo / "knowledge/general/_index.md").read_text()
    assert "- [old](old.md)\n- [Notes on things](notes.md)\n" in index
    digest = _digest(repo)
    again = kb(repo, "fix")
    assert again.returncode == 0
    assert "fixed" not in again.stderr
    assert _digest(repo) == digest  # idempotent
    assert kb(repo, "fix", "--diff").returncode == 0


def test_diff_previews_and_writes_nothing(repo: Path) -> None:
    digest = _digest(repo)
    done = kb(repo, "check", "--diff")
    assert done.returncode == 1
    assert "--- a/knowledge/general/notes.md\n+++ b/knowledge/general/notes.md\n" in done.stdout
    assert '-title: Notes on things\n+title: "Notes on things"\n' in done.stdout
    assert "+- [Notes on things](notes.md)\n" in done.stdout
    assert _digest(repo) == digest


def test_a_page_with_uncommitted_changes_gets_updated_bumped(repo: Path) -> None:
    old = repo / "knowledge/general/old.md"
    old.write_text(old.read_text() + "A new paragraph.\n")
    done = kb(repo, "check", "--fix", "knowledge/general/old.md")
    assert done.returncode == 0, done.stdout
    assert "bumped `updated:` on 1 page(s)" in done.stderr
    text = old.read_text()
    assert "created: 2026-01-01\nupdated: 2026-11-30\n" in text
    # only the named page was touched
    assert (repo / "knowledge/general/notes.md").read_text() == UNQUOTED


def test_fixes_that_do_not_hold_are_put_back_for_their_file(repo: Path) -> None:
    # registering notes.md makes the index long enough to be near the split limit: a new
    # finding on the index, so the index keeps its bytes; the other pages keep their fixes
    index = repo / "knowledge/general/_index.md"
    lines = index.read_text().count("\n")
    policy = repo / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + f"limits:\n  near_lines: {lines - 3}\n")
    old_index = index.read_bytes()
    assert "page-near-limit" not in kb(repo, "check").stdout
    done = kb(repo, "fix")
    assert done.returncode == 1
    assert (
        "kbkit: left knowledge/general/_index.md as it was: its fixes did not hold "
        "(new tree/page-near-limit at knowledge/general/_index.md:0)"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    assert index.read_bytes() == old_index
    assert (repo / "knowledge/general/notes.md").read_text().startswith('---\ntitle: "Notes')


def _page(tmp_path: Path) -> tuple[Path, bytes]:
    (tmp_path / "knowledge").mkdir(exist_ok=True)
    page = tmp_path / "knowledge/p.md"
    page.write_bytes(b"title: x\nline two\n")
    return tmp_path, page.read_bytes()


def test_an_interrupt_during_the_recheck_restores_the_files(tmp_path: Path) -> None:
    repo, original = _page(tmp_path)
    edit = Edit("knowledge/p.md", 0, 1, ('title: "x"',), ("lint/title-unquoted", "knowledge/p.md"))
    before = [Finding("knowledge/p.md", 1, "lint/title-unquoted", ERROR, "quote it")]

    def interrupted() -> list[Finding]:
        assert (repo / "knowledge/p.md").read_bytes() == b'title: "x"\nline two\n'
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_fixes(repo, [edit], before, interrupted)
    assert (repo / "knowledge/p.md").read_bytes() == original
    # a fix the re-check still reports is refused too
    with pytest.raises(FixFailed, match="lint/title-unquoted at knowledge/p.md is still reported"):
        apply_fixes(repo, [edit], before, lambda: before)
    assert (repo / "knowledge/p.md").read_bytes() == original
    kept = apply_fixes(repo, [edit], before, lambda: [])
    assert kept.files == ["knowledge/p.md"]
    assert (repo / "knowledge/p.md").read_bytes() == b'title: "x"\nline two\n'


def test_insertions_at_one_place_keep_their_planned_order() -> None:
    edits = [
        Edit("p", 1, 1, ("a: 1",), ("r", "p")),
        Edit("p", 1, 1, ("b: 2",), ("r", "p")),
        Edit("p", 0, 1, ("---",), ("r", "p")),
    ]
    assert apply_edits("---\n---\n", edits) == "---\na: 1\nb: 2\n---\n"


# --- the line patterns, linear where the lazy ones they replace read blanks again and again ---

_LAZY_LINES = {
    "_TITLE": r"^title:[ \t]*(?P<value>.*?)[ \t]*$",
    "_UPDATED": r"^updated:[ \t]*(?P<value>[^#\n]*?)[ \t]*$",
    "_HEADING": r"^#[ \t]+(?P<text>.+?)[ \t#]*$",
}


@settings(max_examples=800, deadline=None)
@given(
    st.sampled_from(sorted(_LAZY_LINES)),
    joined(("title:", "updated:", "#", " ", "\t", "a", "b", "#", "\r", "\n"), 14),
)
def test_line_patterns_read_what_the_lazy_ones_read(name: str, line: str) -> None:
    from kbkit.checks import fixes

    assert_reads_alike(getattr(fixes, name), _LAZY_LINES[name], line)
