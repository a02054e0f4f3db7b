"""The fix flow of `kb fix` and `kb check --fix` / `--diff`: check, plan the mechanical fixes
(`kbkit.checks.fixes`) on the named paths, preview them or apply and re-check them
(`kbkit.checks.fix_apply`), then report what is left as `kb check` does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kbkit.checks.reporting import report
from kbkit.infra.regular_file import read_regular_text
from kbkit.rulebook.findings import Finding

if TYPE_CHECKING:
    from kbkit.checks.fixes import Context
    from kbkit.policy.model import Policy


Checked = Callable[[], tuple[Path, "Policy", list[Finding], int]]


def run_fix(args: argparse.Namespace, validators: tuple[str, ...], checked: Checked) -> int:
    """The fix flow of `kb fix` and `kb check --fix` / `--diff`."""
    from kbkit.checks.bearing import bearing, named_paths
    from kbkit.checks.fix_apply import apply_fixes, new_texts
    from kbkit.checks.fixes import plan
    from kbkit.checks.registry import PREFIX_BY_VALIDATOR

    if args.write_baseline:
        from kbkit.infra.errors import UsageError

        raise UsageError("--write-baseline and the fixes are separate runs: fix first")
    repo, policy, findings, pages = checked()
    named = named_paths(repo, args.paths) if args.paths else [""]
    mine = [f for f in bearing(findings, named) if _inside(f.path, named)]
    context = _context(repo, policy)
    changed = [
        rel
        for rel in sorted(context.changed)
        if rel.endswith(".md")
        and rel.startswith(f"{policy.knowledge_root}/")
        and _inside(rel, named)
        and (repo / rel).is_file()
    ]
    edits = plan(mine, changed, context)
    if args.diff:
        changes = new_texts(repo, edits)
        sys.stdout.write(_diff(changes))
        return 1 if changes else 0
    fixed = apply_fixes(repo, edits, findings, lambda: checked()[2])
    if fixed.files:
        count = sum(1 for edit in fixed.edits if edit.fixes[0])
        bumps = len(fixed.edits) - count
        extra = f" and bumped `updated:` on {bumps} page(s)" if bumps else ""
        sys.stderr.write(
            f"kbkit: fixed {count} finding(s){extra} in {len(fixed.files)} file(s): "
            f"{', '.join(fixed.files)}\n"
        )
    after = bearing(fixed.after, named) if args.paths else fixed.after
    if args.paths:
        args.named = named
    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in validators)
    return report(repo, policy, args, after, pages, prefixes)


def _inside(path: str, named: list[str]) -> bool:
    return "" in named or any(path == rel or path.startswith(f"{rel}/") for rel in named)


def _context(repo: Path, policy: Policy) -> Context:
    from kbkit.checks.fixes import Context
    from kbkit.infra import clock
    from kbkit.vcs import git

    try:
        changed = git.changed_files(repo)
    except git.GitError:  # no git here: no dates from history, no changes known
        changed = None

    def text(path: str) -> str | None:
        try:
            return read_regular_text(repo / path)  # never a FIFO
        except (OSError, UnicodeDecodeError):
            return None

    def dates(path: str) -> tuple[str, str] | None:
        return git.commit_dates(repo, path) if changed is not None else None

    def committed(path: str) -> str | None:
        return git.committed_text(repo, path) if changed is not None else None

    return Context(
        repo,
        clock.today(),
        tuple(map(str, policy.data["frontmatter"]["required"])),
        str(policy.data["index_page"]),
        frozenset(changed or ()),
        dates,
        text,
        committed,
    )


def _diff(changes: dict[str, tuple[bytes, bytes]]) -> str:
    import difflib

    from kbkit.rulebook.findings import shown

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
