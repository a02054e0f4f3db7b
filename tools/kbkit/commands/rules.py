"""`kb rules`: every rule the validators report, with its default severity."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """List the rules of both validators (ids are stable)."""
    parser = argparse.ArgumentParser(
        prog="kb rules",
        description="List every rule of the validators: id, default severity, what it checks. "
        "`kb rule RULE-ID` explains one.",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    from kbkit.checks.rules import all_rules

    rules = sorted(all_rules().values())
    if args.format == "json":
        listed = [
            {"id": r.id, "severity": r.severity, "fixable": r.fixable, "what": r.summary}
            for r in rules
        ]
        print(json.dumps({"version": 1, "rules": listed}, ensure_ascii=False, indent=2))
        return 0
    width = max(len(rule.id) for rule in rules)
    for rule in rules:
        mark = "[*]" if rule.fixable else "   "
        print(f"{rule.id:<{width}}  {rule.severity:<7}  {mark}  {rule.summary}")
    print("\n[*]: `kb fix` fixes findings of this rule.")
    return 0
