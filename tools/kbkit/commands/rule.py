"""`kb rule RULE-ID`: what a rule checks, why, how to fix a finding, how to suppress it."""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Sequence

from kbkit.infra.errors import UsageError


def explain(rule_id: str) -> dict[str, str]:
    """Everything the rule's declaration says: id, severity, what, why, fix, whether `kb fix`
    fixes it, an example and how to suppress it."""
    from kbkit.checks.rules import all_rules

    rules = all_rules()
    rule = rules.get(rule_id)
    if rule is None:
        close = difflib.get_close_matches(rule_id, list(rules), n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise UsageError(f"unknown rule {rule_id!r}{hint} (`kb rules` lists them)")
    return {
        "id": rule.id,
        "severity": rule.severity,
        "validator": "kb check" if rule.id.startswith("kb/") else _validator(rule.id),
        "what": rule.summary,
        "why": rule.why,
        "fix": rule.fix,
        "fixable": "yes: `kb fix` fixes it" if rule.fixable else "no: fix it by hand",
        "example": rule.example,
        "suppress": rule.suppression,
    }


def _validator(rule_id: str) -> str:
    return "kb check-knowledge-tree" if rule_id.startswith("tree/") else "kb check-wiki-lint"


def main(argv: Sequence[str] | None = None) -> int:
    """Print one rule's explanation."""
    parser = argparse.ArgumentParser(
        prog="kb rule",
        description="Explain a rule: what it checks, why it exists, how to fix a finding and "
        "how to suppress one (as `ruff rule` does).",
    )
    parser.add_argument("rule_id", metavar="RULE-ID", help="a rule id, e.g. tree/link-broken")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    entry = explain(args.rule_id)
    if args.format == "json":
        print(json.dumps({"version": 1, "rule": entry}, ensure_ascii=False, indent=2))
        return 0
    print(f"{entry['id']} ({entry['severity']}, {entry['validator']})\n")
    for label in ("what", "why", "fix", "fixable"):
        if entry[label]:
            print(f"{label.capitalize() + ':':<10}{entry[label]}")
    if entry["example"]:
        print("Example:")
        for line in entry["example"].splitlines():
            print(f"          {line}")
    print(f"{'Suppress:':<10}{entry['suppress']}")
    return 0
