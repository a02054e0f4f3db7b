"""The fix flow of `kb fix` and `kb check --fix` / `--diff`: check, plan the mechanical fixes
(`kbkit.checks.fixes`) on the named paths, preview them or apply and re-check them
(`kbkit.checks.fix_apply`), then report what is left as `kb check` does."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kbkit.checks.reporting import ReportOptions, report
from kbkit.infra import boundary
from kbkit.rulebook.findings import Finding, shown

if TYPE_CHECKING:
    from kbkit.checks.fix_apply import Fixed
    from kbkit.checks.fixes import Context, Edit, Planned
    from kbkit.policy.model import Policy


Checked = Callable[[], tuple[Path, "Policy", list[Finding], int]]
ROUNDS = 3  # plan-apply-check rounds of one run: a fix left out for an overlap gets in


def run_fix(
    args: ReportOptions,
    paths: list[str],
    diff: bool,
    validators: tuple[str, ...],
    checked: Checked,
) -> int:
    """The fix flow of `kb fix` and `kb check --fix` / `--diff` on the named `paths` (none:
    the whole tree); with `diff`, print the fixes and change nothing."""
    from kbkit.checks.bearing import bearing, named_paths
    from kbkit.checks.fix_apply import new_texts
    from kbkit.checks.fixes import FIXES, plan
    from kbkit.checks.registry import PREFIX_BY_VALIDATOR

    if args.write_baseline:
        from kbkit.infra.errors import UsageError

        raise UsageError("--write-baseline and the fixes are separate runs: fix first")
    repo, policy, findings, pages = checked()
    named = named_paths(repo, paths) if paths else [""]
    top = repo / policy.knowledge_root  # (inside the repository: load_policy saw to it)
    context, has_git = _context(repo, policy)
    changed = [
        rel
        for rel in sorted(context.changed)
        if rel.endswith(policy.page_suffixes)
        and rel.startswith(f"{policy.knowledge_root}/")
        and _inside(rel, named)
        and (repo / rel).is_file()
    ]

    def planned(found: list[Finding]) -> Planned:
        # a finding on a path that leads out of the knowledge root (a symlinked page) is
        # never fixed: its page is neither read nor written (`kbkit.infra.boundary`)
        mine = [
            f
            for f in bearing(found, named)
            if _inside(f.path, named)
            and (f.rule_id not in FIXES or boundary.within(top, repo / f.path))
        ]
        return plan(mine, changed, context, bump_edited=has_git)

    if diff:
        changes = new_texts(repo, planned(findings).edits, top)
        sys.stdout.write(_diff(changes))
        return 1 if changes else 0
    _sweep_temp_files(repo, policy)
    fixed = _fix_in_rounds(repo, findings, planned, lambda: checked()[2], top)
    if fixed.files:
        count = sum(1 for edit in fixed.edits if edit.fixes[0])
        bumps = len(fixed.edits) - count
        extra = f" and bumped `updated:` on {bumps} page(s)" if bumps else ""
        sys.stderr.write(
            f"kbkit: fixed {count} finding(s){extra} in {len(fixed.files)} file(s): "
            f"{', '.join(map(shown, fixed.files))}\n"
        )
    for path, why in fixed.refused.items():
        line = f"left {path} as it was: its fixes did not hold ({why})"
        sys.stderr.write(f"kbkit: {shown(line)}\n")
    after = bearing(fixed.after, named) if paths else fixed.after
    if paths:
        args = args._replace(named=named)
    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in validators)
    code = report(repo, policy, args, after, pages, prefixes)
    return max(code, 1) if fixed.refused else code


def _fix_in_rounds(
    repo: Path,
    findings: list[Finding],
    planned: Callable[[list[Finding]], Planned],
    recheck: Callable[[], list[Finding]],
    top: Path | None = None,
) -> Fixed:
    """Plan, apply and re-check until nothing is left to fix (an edit that overlapped another
    is planned again on the fixed text), so a second `kb fix` has nothing to write. Pages
    skipped get one line each; a file refused in one round is not edited in the next."""
    from kbkit.checks.fix_apply import Fixed, Journal, apply_fixes

    journal = Journal(repo)
    edits: list[Edit] = []
    refused: dict[str, str] = {}
    skipped: dict[str, str] = {}
    after = findings
    try:
        for _ in range(ROUNDS):
            plan = planned(after)
            for path, why in plan.skipped.items():
                if path not in skipped:
                    skipped[path] = why
                    sys.stderr.write(f"kbkit: skipped the fixes of {shown(path)}: {shown(why)}\n")
            todo = [edit for edit in plan.edits if edit.path not in refused]
            if not todo:
                break
            fixed = apply_fixes(repo, todo, after, recheck, top, journal)
            edits += fixed.edits
            refused.update(fixed.refused)
            after = fixed.after
            if not fixed.edits:
                break
    except BaseException:
        journal.rollback()
        raise
    files = sorted(path for path, old in journal.originals.items() if _now(repo, path) != old)
    return Fixed(edits, files, after, {p: why for p, why in refused.items() if p not in files})


def _now(repo: Path, path: str) -> bytes | None:
    try:
        return (repo / path).read_bytes()
    except OSError:
        return None


def _sweep_temp_files(repo: Path, policy: Policy) -> None:
    """Remove the temp files a killed writer left in the knowledge tree, and say so."""
    import os

    from kbkit.infra.jsonl import sweep_temp_files

    removed: list[Path] = []
    for folder, dirs, _files in os.walk(repo / policy.knowledge_root):
        dirs[:] = [name for name in dirs if name != ".git"]
        removed += sweep_temp_files(Path(folder))
    if removed:
        names = ", ".join(shown(path.relative_to(repo).as_posix()) for path in sorted(removed))
        sys.stderr.write(
            f"kbkit: removed {len(removed)} temp file(s) an interrupted run left: {names}\n"
        )


def _inside(path: str, named: list[str]) -> bool:
    return "" in named or any(path == rel or path.startswith(f"{rel}/") for rel in named)


def _context(repo: Path, policy: Policy) -> tuple[Context, bool]:
    """What the fixes read, and whether git is there (no git: no dates, no changes known)."""
    from kbkit.checks.fixes import Context
    from kbkit.infra import clock
    from kbkit.vcs import git

    try:
        changed = git.changed_files(repo)
    except git.GitError:  # no git here: no dates from history, no changes known
        changed = None

    top = repo / policy.knowledge_root

    def text(path: str) -> str | None:  # line endings as written; None when it leads out
        return boundary.text_within(top, repo / path)

    def dates(path: str) -> tuple[str, str] | None:
        return git.commit_dates(repo, path) if changed is not None else None

    def committed(path: str) -> str | None:
        return git.committed_text(repo, path) if changed is not None else None

    context = Context(
        repo,
        clock.today(),
        tuple(map(str, policy.data["frontmatter"]["required"])),
        str(policy.data["index_page"]),
        frozenset(changed or ()),
        dates,
        text,
        committed,
    )
    return context, changed is not None


def _diff(changes: dict[str, tuple[bytes, bytes]]) -> str:
    import difflib

    out: list[str] = []
    for path, (old, new) in changes.items():
        lines = difflib.unified_diff(
            old.decode("utf-8").splitlines(keepends=True),
            new.decode("utf-8").splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
        out.extend(shown(line.rstrip("\n")) + "\n" for line in lines)
    return "".join(out)
