"""Apply planned fixes all together, re-check the tree, and put every byte back on failure.

The edits (`kbkit.checks.fixes`) are written file by file (temp file and rename each), then
the validators run again. The fixes hold when every fixed finding is gone and no finding is
new: compared by rule, path and message (digits aside), so a finding whose line moved, or
whose line a fix rewrote (a secret on a title line that got quoted), is not new. Otherwise, and on any error or interrupt while writing or checking, every
file is restored to the bytes it had and the run fails naming what went wrong.
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
from kbkit.infra.jsonl import atomic_write_bytes
from kbkit.rulebook.findings import Finding


class FixFailed(KbkitError):
    """The fixes did not hold on the re-check: every file was restored."""

    exit_code = 1


class Fixed(NamedTuple):
    edits: list[Edit]
    files: list[str]  # repo-relative, sorted
    after: list[Finding]  # the findings of the re-check


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
) -> Fixed:
    """Write the edits, re-check with `recheck`, keep them only if they hold (see module).
    Every file is read and written at its real path inside `top` (`targets`)."""
    where = targets(repo, edits, top)
    edits = [edit for edit in edits if edit.path in where]
    changes = _changes(where, edits)
    if not changes:
        return Fixed([], [], before)
    written: list[str] = []
    try:
        for path, (_, new) in changes.items():
            atomic_write_bytes(where[path], new)
            written.append(path)
        after = recheck()
        problems = _problems(edits, before, after)
        if problems:
            raise FixFailed(
                "the fixes did not hold, every file is as it was: " + "; ".join(problems)
            )
    except BaseException:
        for path in written:
            atomic_write_bytes(where[path], changes[path][0])
        raise
    return Fixed(edits, sorted(changes), after)


def _problems(edits: list[Edit], before: list[Finding], after: list[Finding]) -> list[str]:
    known = _keys(before)
    problems = []
    for finding in after:
        key = _key(finding)
        if known[key] > 0:
            known[key] -= 1
        else:
            problems.append(f"new {finding.rule_id} at {finding.path}:{finding.line}")
    counts_before = Counter((f.rule_id, f.path) for f in before)
    counts_after = Counter((f.rule_id, f.path) for f in after)
    fixed = Counter(edit.fixes for edit in edits if edit.fixes[0])
    for (rule, path), number in sorted(fixed.items()):
        if counts_after[(rule, path)] > max(counts_before[(rule, path)] - number, 0):
            problems.append(f"{rule} at {path} is still reported")
    return problems


_DIGITS = re.compile(r"\d+")


def _key(finding: Finding) -> tuple[str, str, str]:
    return finding.rule_id, finding.path, _DIGITS.sub("0", finding.message)


def _keys(findings: Iterable[Finding]) -> Counter[tuple[str, str, str]]:
    return Counter(map(_key, findings))
