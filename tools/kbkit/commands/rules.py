"""`kb rules`: every rule the validators report, and at what severity this repository's
policy checks it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kbkit.infra.errors import UsageError


def main(argv: Sequence[str] | None = None) -> int:
    """List the rules of both validators (ids are stable) under the active policy."""
    parser = argparse.ArgumentParser(
        prog="kb rules",
        description="List every rule of the validators: id, the severity this repository's "
        "policy gives it (its default beside it when the policy changes it; `off`: not "
        "checked), whether `kb fix` fixes it ([*]) and what it checks. Outside a repository, "
        "or with --defaults, the built-in defaults. `kb rule RULE-ID` explains one.",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--repo", metavar="DIR", default=None, help="the repository (default: here)"
    )
    parser.add_argument("--policy", metavar="FILE|PROFILE", default=None)
    parser.add_argument(
        "--defaults", action="store_true", help="the built-in defaults, whatever the policy says"
    )
    args = parser.parse_args(argv)
    from kbkit.checks.rules import all_rules

    rules = sorted(all_rules().values())
    policy = None if args.defaults else _active_policy(args.repo, args.policy)
    where = policy.source if policy is not None else "the built-in defaults"
    rows = [_row(rule, policy) for rule in rules]
    if args.format == "json":
        print(
            json.dumps({"version": 1, "policy": where, "rules": rows}, ensure_ascii=False, indent=2)
        )
        return 0
    width = max(len(rule.id) for rule in rules)
    shown = [_severity_text(row) for row in rows]
    column = max(len(text) for text in shown)
    print(f"the rules, as {where} sets them:\n")
    for row, severity in zip(rows, shown, strict=True):
        mark = "[*]" if row["fixable"] else "   "
        print(f"{row['id']:<{width}}  {severity:<{column}}  {mark}  {row['what']}")
    print("\n[*]: `kb fix` fixes findings of this rule.")
    return 0


def _active_policy(repo_arg: str | None, spec: str | None) -> Any:
    """The repository's policy (`kb check`'s), or None outside a repository."""
    from kbkit.infra.paths import find_repo_root
    from kbkit.policy.model import load_policy

    try:
        repo = Path(repo_arg) if repo_arg else find_repo_root(Path.cwd())
    except UsageError:
        if spec is None:
            return None  # outside a repository: the defaults
        repo = Path.cwd()
    return load_policy(repo, spec)


def _row(rule: Any, policy: Any) -> dict[str, Any]:
    """One rule under the policy: its severity for the whole tree, its default, and how many
    of the policy's path globs change it."""
    severity, overrides = rule.severity, 0
    if policy is not None:
        from kbkit.checks.scopes import scopes

        scope = scopes(policy)
        severity = scope.rules.get(rule.id, rule.severity)
        overrides = sum(1 for override in scope.overrides if rule.id in override.rules)
    return {
        "id": rule.id,
        "severity": severity,
        "default": rule.severity,
        "overrides": overrides,
        "fixable": rule.fixable,
        "what": rule.summary,
    }


def _severity_text(row: dict[str, Any]) -> str:
    text = row["severity"]
    if row["severity"] != row["default"]:
        text += f" (default {row['default']})"
    if row["overrides"]:
        text += f", {row['overrides']} path glob(s) differ"
    return text
