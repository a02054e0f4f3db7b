"""`kb fix` as a transaction: a second run writes nothing; Ctrl-C at any write leaves every
page as it was; kill -9 leaves whole pages and a temp file the next run removes and names;
one odd page is skipped or refused alone; CRLF pages stay CRLF. Real git repositories, real
processes and real signals, delivered at a write the test chooses (never by a timer)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.gitrepo import git
from tests.kbtree import kb, make_tree

from kbkit.checks.fix_apply import FixFailed, apply_fixes
from kbkit.checks.fixes import Edit, apply_edits
from kbkit.rulebook.findings import ERROR, Finding


def page(title: str, *, updated: str = "2026-01-01", eol: str = "\n") -> str:
    """A page whose only finding is its unquoted title."""
    text = (
        f"---\ntitle: {title}\ncreated: 2026-01-01\nupdated: {updated}\ntype: guide\n"
        f"tags: [general]\nsources: []\n---\n\n# {title}\n\nSome text.\n"
    )
    return text.replace("\n", eol)


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "pages")


def tree_with(tmp_path: Path, count: int) -> Path:
    """A committed tree of `count` registered pages with unquoted titles, in folders of 50,
    every index dated before today."""
    repo = make_tree(tmp_path / "team")
    git(repo, "init", "-q", "-b", "main")
    general = repo / "knowledge/general"
    index = general / "_index.md"
    rows = []
    for folder in range((count + 49) // 50):
        sub = general / f"part{folder}"
        sub.mkdir()
        links = []
        for n in range(folder * 50, min(count, folder * 50 + 50)):
            (sub / f"p{n}.md").write_text(page(f"Page {n}"))
            links.append(f"- [Page {n}](p{n}.md)\n")
        (sub / "_index.md").write_text(
            f'---\ntitle: "Part {folder}"\ncreated: 2026-01-01\nupdated: 2026-01-01\n'
            f"type: index\ntags: [general]\nsources: []\n---\n\n# Part {folder}\n\n"
            + "".join(links)
        )
        rows.append(f"- [Part {folder}](part{folder}/_index.md)\n")
    index.write_text(
        index.read_text().replace("updated: 2026-11-30", "updated: 2026-01-01")
        + "\n"
        + "".join(rows)
    )
    commit(repo)
    return repo


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file's bytes (symlinks as their target), .git and kbkit's parse cache aside."""
    out = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if rel.split("/")[0] in (".git", ".kbkit-cache"):
            continue
        if path.is_symlink():
            out[rel] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


def temp_files(repo: Path) -> list[str]:
    return sorted(p.relative_to(repo).as_posix() for p in (repo / "knowledge").rglob(".*.tmp"))


# --- a second run writes nothing -------------------------------------------------------


@pytest.mark.parametrize("committed_between", [False, True])
def test_a_second_fix_writes_nothing(tmp_path: Path, committed_between: bool) -> None:
    repo = tree_with(tmp_path, 3)
    part = repo / "knowledge/general/part0"
    (part / "new.md").write_text(page("New one"))  # not linked: the run edits the index
    first = kb(repo, "fix")
    assert first.returncode == 0, first.stdout + first.stderr
    if committed_between:
        commit(repo)
    before = snapshot(repo)
    second = kb(repo, "fix")
    assert second.returncode == 0, second.stdout + second.stderr
    assert snapshot(repo) == before
    assert "fixed" not in second.stderr and "bumped" not in second.stderr
    index = (part / "_index.md").read_text()
    assert "- [New one](new.md)\n" in index
    assert "updated: 2026-11-30\n" in index  # what the index says changed: bumped at once


# --- signals at a chosen write ---------------------------------------------------------

# Runs `kb fix` in this process with os.write and os.replace watched: at the AT-th write of a
# page's temp file (MODE write-int / write-kill) or the AT-th rename onto a page (MODE
# replace-int; replace-int-every: at that one and every rename after it, the rollback's
# too: Ctrl-C pressed again and again) it sends itself SIGINT or SIGKILL, after writing a part
# of the bytes or after the rename. Where it happens is the test's choice, never the
# machine's speed.
DRIVER = """
import os, signal, sys
# Ctrl-C as a terminal delivers it: a run started in the background by a non-interactive
# shell (`make test &`, nohup) inherits SIGINT ignored, and the signal would never land
signal.signal(signal.SIGINT, signal.default_int_handler)
mode, at = sys.argv[1], int(sys.argv[2])
real_write, real_replace = os.write, os.replace
seen = [0]
def page_temp(fd):
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    return name.endswith(".tmp") and ".md." in os.path.basename(name)
def write(fd, data):
    if mode.startswith("write") and page_temp(fd):
        seen[0] += 1
        if seen[0] == at:
            real_write(fd, bytes(data)[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL if mode == "write-kill" else signal.SIGINT)
    return real_write(fd, data)
def replace(src, dst, **kw):
    real_replace(src, dst, **kw)
    if mode.startswith("replace-int") and str(dst).endswith(".md"):
        seen[0] += 1
        if seen[0] == at or (mode == "replace-int-every" and seen[0] > at):
            os.kill(os.getpid(), signal.SIGINT)
os.write, os.replace = write, replace
from kbkit.__main__ import main
sys.exit(main(["fix"]))
"""


def drive(repo: Path, mode: str, at: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, mode, str(at)],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=600,
    )


def reference(repo: Path, tmp_path: Path) -> dict[str, bytes]:
    """The tree as one uninterrupted `kb fix` leaves it (run on a copy)."""
    copy = tmp_path / "reference"
    shutil.copytree(repo, copy, symlinks=True)
    done = kb(copy, "fix")
    assert done.returncode == 0, done.stdout + done.stderr
    return snapshot(copy)


PAGES = 120
KILLS = [(400, at) for at in (1, 2, 200, 399, 400)]  # pages, the write the signal lands on


@pytest.mark.parametrize("mode", ["replace-int", "write-int", "replace-int-every"])
def test_ctrl_c_at_a_chosen_write_puts_every_page_back(tmp_path: Path, mode: str) -> None:
    _interrupt(tmp_path, mode, PAGES, PAGES // 3)


@pytest.mark.stress
@pytest.mark.parametrize("mode", ["replace-int", "write-int", "replace-int-every"])
@pytest.mark.parametrize(("pages", "at"), KILLS)
def test_ctrl_c_at_any_write_of_400_pages_puts_every_page_back(
    tmp_path: Path, mode: str, pages: int, at: int
) -> None:
    _interrupt(tmp_path, mode, pages, at)


def _interrupt(tmp_path: Path, mode: str, pages: int, at: int) -> None:
    repo = tree_with(tmp_path, pages)
    before = snapshot(repo)
    done = drive(repo, mode, at)
    assert done.returncode == 130, done.stdout + done.stderr
    assert "kb: interrupted" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(repo) == before  # every page whole and as it was: the rollback held
    assert temp_files(repo) == []


def test_kill_9_leaves_whole_pages_and_the_next_run_finishes_and_says_so(
    tmp_path: Path,
) -> None:
    _kill(tmp_path, PAGES, PAGES // 3)


@pytest.mark.stress
@pytest.mark.parametrize(("pages", "at"), KILLS)
def test_kill_9_at_any_write_of_400_pages_then_the_next_run_finishes(
    tmp_path: Path, pages: int, at: int
) -> None:
    _kill(tmp_path, pages, at)


def _kill(tmp_path: Path, count: int, at: int) -> None:
    repo = tree_with(tmp_path, count)
    before = snapshot(repo)
    fixed = reference(repo, tmp_path)
    done = drive(repo, "write-kill", at)
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = temp_files(repo)
    assert len(left) == 1  # the page being written when the kill came
    now = snapshot(repo)
    pages = [rel for rel in before if rel.endswith(".md")]
    assert {rel for rel in now if not rel.endswith(".tmp")} == set(before)
    assert all(now[rel] in (before[rel], fixed[rel]) for rel in pages)  # each page whole
    assert sum(now[rel] == fixed[rel] != before[rel] for rel in pages) == at - 1
    again = kb(repo, "fix")
    assert again.returncode == 0, again.stdout + again.stderr
    lines = [line for line in again.stderr.splitlines() if "temp file" in line]
    assert lines == [f"kbkit: removed 1 temp file(s) an interrupted run left: {left[0]}"]
    assert temp_files(repo) == []
    assert snapshot(repo) == fixed  # finished as one uninterrupted run would have


# --- one bad page does not cost the others their fixes -------------------------------


def test_odd_names_a_folder_without_index_and_a_cr_page_cost_no_other_fix(
    tmp_path: Path,
) -> None:
    repo = tree_with(tmp_path, 2)
    part = repo / "knowledge/general/part0"
    odd = ["a#b", "c%d", "e?f", "g)h", "i(j", "k l", "caf\u00e9", "m&amp;n", "o]p"]
    for name in odd:
        (part / f"{name}.md").write_text(page(f"Odd {name}"))
    (part / "cr.md").write_bytes(page("Carriage", eol="\r").encode())
    (part / "crlf.md").write_bytes(page("Windows", eol="\r\n").encode())
    lonely = repo / "knowledge/general/lonely"
    lonely.mkdir()
    (lonely / "alone.md").write_text(page("Alone"))
    done = kb(repo, "fix", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr  # the skipped pages' findings
    assert "did not hold" not in done.stderr
    skipped = sorted(line for line in done.stderr.splitlines() if "skipped" in line)
    assert skipped == [
        "kbkit: skipped the fixes of knowledge/general/lonely: this folder has no _index.md "
        "(or not one in UTF-8) to link to",
        "kbkit: skipped the fixes of knowledge/general/part0/cr.md: its lines end in a bare "
        "carriage return (CR), which the fixes do not edit",
    ]
    index = (part / "_index.md").read_text()
    for name in odd:  # linked, the link names the file (not a fragment, query or more)
        assert f"Odd {name.replace(']', chr(92) + ']')}](" in index, name
        assert f'title: "Odd {name}"' in (part / f"{name}.md").read_text()
    left = {(f["path"], f["rule"]) for f in json.loads(done.stdout)["findings"]}
    assert not any(path.startswith(f"knowledge/general/part0/{odd[0]}") for path, _ in left)
    assert ("knowledge/general/part0/cr.md", "lint/title-unquoted") in left
    assert ("knowledge/general/lonely", "tree/child-unregistered") in left
    assert (part / "cr.md").read_bytes() == page("Carriage", eol="\r").encode()
    # the CRLF page was fixed and is CRLF throughout
    crlf = (part / "crlf.md").read_bytes()
    assert crlf.startswith(b'---\r\ntitle: "Windows"\r\n')
    assert crlf.count(b"\n") == crlf.count(b"\r\n") and b"\r" not in crlf.replace(b"\r\n", b"")
    before = snapshot(repo)
    assert kb(repo, "fix").returncode == 1
    assert snapshot(repo) == before


def test_crlf_index_stays_crlf_when_a_link_and_a_bump_go_in(tmp_path: Path) -> None:
    repo = tree_with(tmp_path, 2)
    index = repo / "knowledge/general/part0/_index.md"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    commit(repo)
    (index.parent / "new.md").write_bytes(page("New", eol="\r\n").encode())
    done = kb(repo, "fix")
    assert done.returncode == 0, done.stdout + done.stderr
    text = index.read_bytes()
    assert b"updated: 2026-11-30\r\n" in text and b"- [New](new.md)\r\n" in text
    assert text.count(b"\n") == text.count(b"\r\n")


def test_a_fix_that_does_not_hold_is_refused_for_its_file_alone(tmp_path: Path) -> None:
    # registering the new page makes part0's index near the line limit: a new finding on
    # that index, so the index keeps its bytes; the new page's own title fix is kept
    repo = tree_with(tmp_path, 2)
    index = repo / "knowledge/general/part0/_index.md"
    lines = sum(1 for line in index.read_text().splitlines() if line.strip())
    policy = repo / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + f"limits:\n  near_lines: {lines + 1}\n")
    commit(repo)
    assert "page-near-limit" not in kb(repo, "check").stdout
    (index.parent / "new.md").write_text(page("New"))
    other = repo / "knowledge/general/part0/p0.md"
    old_index = index.read_bytes()
    done = kb(repo, "fix")
    assert done.returncode == 1
    assert (
        "kbkit: left knowledge/general/part0/_index.md as it was: its fixes did not hold "
        "(new tree/page-near-limit at knowledge/general/part0/_index.md:0)"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    assert index.read_bytes() == old_index
    assert 'title: "New"' in (index.parent / "new.md").read_text()
    assert 'title: "Page 0"' in other.read_text()


def test_a_problem_no_written_file_explains_puts_every_file_back(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    for name in ("p", "q"):
        (tmp_path / f"knowledge/{name}.md").write_bytes(b"title: x\nline two\n")
    edits = [
        Edit(
            f"knowledge/{n}.md", 0, 1, ('title: "x"',), ("lint/title-unquoted", f"knowledge/{n}.md")
        )
        for n in ("p", "q")
    ]
    before = [Finding(e.path, 1, "lint/title-unquoted", ERROR, "quote it") for e in edits]
    elsewhere = [Finding("knowledge", 0, "tree/index-missing", ERROR, "no index")]
    with pytest.raises(FixFailed, match="every file is as it was: new tree/index-missing"):
        apply_fixes(tmp_path, edits, before, lambda: elsewhere)
    for name in ("p", "q"):
        assert (tmp_path / f"knowledge/{name}.md").read_bytes() == b"title: x\nline two\n"
    # blamed on p alone: q keeps its fix
    still = [before[0]]
    kept = apply_fixes(tmp_path, edits, before, lambda: still)
    assert kept.files == ["knowledge/q.md"] and list(kept.refused) == ["knowledge/p.md"]
    assert (tmp_path / "knowledge/p.md").read_bytes() == b"title: x\nline two\n"
    assert (tmp_path / "knowledge/q.md").read_bytes() == b'title: "x"\nline two\n'


@pytest.mark.parametrize(
    ("text", "edits", "expected"),
    [
        # a replaced line ends as it did; an inserted one as the line before it
        ("a\r\nb\r\n", [Edit("p", 0, 1, ("A",), ("r", "p"))], "A\r\nb\r\n"),
        ("a\r\nb\r\n", [Edit("p", 1, 1, ("x",), ("r", "p"))], "a\r\nx\r\nb\r\n"),
        ("a\nb\r\n", [Edit("p", 1, 1, ("x",), ("r", "p"))], "a\nx\nb\r\n"),
        # at the very end of a CRLF file with no last line break: the old last line gets a
        # CRLF, the new last line none (no bare CR anywhere)
        ("a\r\nb", [Edit("p", 2, 2, ("", "x"), ("r", "p"))], "a\r\nb\r\n\r\nx"),
        ("a\r\nb\r\n", [Edit("p", 2, 2, ("x",), ("r", "p"))], "a\r\nb\r\nx\r\n"),
        ("a\nb\n", [Edit("p", 0, 1, ("A",), ("r", "p"))], "A\nb\n"),
    ],
)
def test_new_lines_take_the_line_ending_around_them(
    text: str, edits: list[Edit], expected: str
) -> None:
    assert apply_edits(text, edits) == expected
