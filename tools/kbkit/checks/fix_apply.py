"""Apply planned fixes, re-check the tree, keep the fixes that hold, put back the rest.

The edits (`kbkit.checks.fixes`) are written file by file (temp file and rename each, so a
page is always whole: its old bytes or its new ones), then the validators run again. The
fixes hold when every fixed finding is gone and no finding is new: compared by rule, path
and message (digits aside), so a finding whose line moved, or whose line a fix rewrote (a
secret on a title line that got quoted), is not new.

A problem is blamed on the files whose edits touch its page: the file itself, or a file
whose edit fixes a finding of that page (the index a page is linked from). Those files get
their bytes back and the tree is checked again, so one odd page does not cost every other
page its fixes. A problem no written file can be blamed for (a finding on a folder, say),
more rounds of blame than `ROUNDS`, an error, or Ctrl-C puts back every file the run wrote
(`Journal`): the all-or-nothing the run falls back to when it cannot tell what went wrong.
Ctrl-C is held while files are written or put back (`kbkit.infra.interrupts`), so no file
is replaced without the journal knowing it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from kbkit.checks.fixes import Edit, apply_edits
from kbkit.infra import boundary
from kbkit.infra.errors import KbkitError
from kbkit.infra.interrupts import held_interrupts
from kbkit.infra.jsonl import atomic_write_bytes
from kbkit.rulebook.findings import Finding

ROUNDS = 4  # re-checks after blaming files before the run puts every file back


class FixFailed(KbkitError):
    """The fixes did not hold on the re-check: every file was restored."""

    exit_code = 1


class Fixed(NamedTuple):
    edits: list[Edit]  # the edits kept
    files: list[str]  # repo-relative, sorted: the files written and kept
    after: list[Finding]  # the findings of the last re-check
    refused: dict[str, str] = {}  # a file whose fixes were put back -> why


class Journal:
    """The bytes every file had before the run first wrote it: what a rollback puts back."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.originals: dict[str, bytes] = {}
        self.where: dict[str, Path] = {}  # a path -> where it is written (`targets`)

    def _at(self, path: str) -> Path:
        return self.where.get(path, self.repo / path)

    def write(self, texts: dict[str, tuple[bytes, bytes]]) -> None:
        """Write each path's new bytes (old, new), noting its old ones first."""
        with held_interrupts():
            for path, (old, new) in texts.items():
                self.originals.setdefault(path, old)
                _write(self._at(path), new)

    def put_back(self, texts: dict[str, bytes]) -> None:
        """Give each path the bytes it is given, unless it has them already."""
        with held_interrupts():
            for path, data in texts.items():
                try:
                    if self._at(path).read_bytes() == data:
                        continue
                except OSError:
                    pass
                _write(self._at(path), data)

    def rollback(self) -> None:
        """Every file the run wrote gets the bytes it had before the run."""
        self.put_back(self.originals)


def _write(path: Path, data: bytes) -> None:
    atomic_write_bytes(path, data)


def targets(repo: Path, edits: list[Edit], top: Path | None = None) -> dict[str, Path]:
    """Where each edited file is read and written: its real path, which must lie inside
    `top` (the knowledge root; default the repository), else OutsideRepository (exit 2)
    before any read (`kbkit.infra.boundary`). A symlinked page inside is written through,
    so the link stays a link. Two names of one file (a link and its target) are edited
    once, under the target's own name when it has edits, else under the first name."""
    top = top if top is not None else repo
    out: dict[str, Path] = {}
    taken: dict[Path, str] = {}
    for path in sorted(
        {edit.path for edit in edits}, key=lambda p: (boundary.is_link(repo / p), p)
    ):
        real = boundary.write_target(top, repo / path, "the page", repo=repo)
        if real not in taken:
            taken[real] = path
            out[path] = real
    return out


def new_texts(
    repo: Path, edits: list[Edit], top: Path | None = None
) -> dict[str, tuple[bytes, bytes]]:
    """Each edited file's (old bytes, new bytes), read at its real path inside `top`."""
    return _changes(targets(repo, edits, top), edits)


def _changes(where: dict[str, Path], edits: list[Edit]) -> dict[str, tuple[bytes, bytes]]:
    by_path: dict[str, list[Edit]] = {}
    for edit in edits:
        if edit.path in where:
            by_path.setdefault(edit.path, []).append(edit)
    out = {}
    for path, mine in sorted(by_path.items()):
        old = where[path].read_bytes()
        new = apply_edits(old.decode("utf-8"), mine).encode("utf-8")
        if new != old:
            out[path] = (old, new)
    return out


def apply_fixes(
    repo: Path,
    edits: list[Edit],
    before: list[Finding],
    recheck: Callable[[], list[Finding]],
    top: Path | None = None,
    journal: Journal | None = None,
) -> Fixed:
    """Write the edits, re-check with `recheck`, keep the files whose fixes hold (see module).
    Every file is read and written at its real path inside `top` (`targets`). `journal`: the
    run's, when it writes in several rounds (a rollback undoes them all)."""
    where = targets(repo, edits, top)
    edits = [edit for edit in edits if edit.path in where]
    changes = _changes(where, edits)
    if not changes:
        return Fixed([], [], before)
    journal = journal if journal is not None else Journal(repo)
    journal.where.update(where)
    earlier = set(journal.originals)
    kept = set(changes)
    refused: dict[str, str] = {}
    try:
        journal.write(changes)
        for _ in range(ROUNDS):
            after = recheck()
            mine = [edit for edit in edits if edit.path in kept]
            problems = _problems(mine, before, after)
            if not problems:
                return Fixed(mine, sorted(kept), after, refused)
            if any(not culprits & kept for _, culprits in problems):
                break  # no written file to blame: every file back
            blamed = sorted(set().union(*(culprits for _, culprits in problems)) & kept)
            if set(blamed) == kept and not earlier:
                break  # nothing would be kept: the plain refusal
            for path in blamed:
                refused[path] = "; ".join(t for t, culprits in problems if path in culprits)
            journal.put_back({path: changes[path][0] for path in blamed})
            kept -= set(blamed)
            if not kept:
                return Fixed([], [], recheck(), refused)
        journal.rollback()
        raise FixFailed(
            "the fixes did not hold, every file is as it was: "
            + "; ".join(text for text, _ in problems)
        )
    except BaseException:
        journal.rollback()
        raise


def _problems(
    edits: list[Edit], before: list[Finding], after: list[Finding]
) -> list[tuple[str, set[str]]]:
    """What went wrong, each with the files it is blamed on."""
    touching: dict[str, set[str]] = {}  # a page -> the files whose edits touch it
    for edit in edits:
        touching.setdefault(edit.path, set()).add(edit.path)
        touching.setdefault(edit.fixes[1], set()).add(edit.path)
    known = _keys(before)
    problems = []
    for finding in after:
        key = _key(finding)
        if known[key] > 0:
            known[key] -= 1
        else:
            problems.append(
                (
                    f"new {finding.rule_id} at {finding.path}:{finding.line}",
                    touching.get(finding.path, set()),
                )
            )
    counts_before = Counter((f.rule_id, f.path) for f in before)
    counts_after = Counter((f.rule_id, f.path) for f in after)
    fixed = Counter(edit.fixes for edit in edits if edit.fixes[0])
    for (rule, path), number in sorted(fixed.items()):
        if counts_after[(rule, path)] > max(counts_before[(rule, path)] - number, 0):
            problems.append(
                (
                    f"{rule} at {path} is still reported",
                    {edit.path for edit in edits if edit.fixes == (rule, path)},
                )
            )
    return problems


_DIGITS = re.compile(r"\d+")


def _key(finding: Finding) -> tuple[str, str, str]:
    return finding.rule_id, finding.path, _DIGITS.sub("0", finding.message)


def _keys(findings: Iterable[Finding]) -> Counter[tuple[str, str, str]]:
    return Counter(map(_key, findings))
