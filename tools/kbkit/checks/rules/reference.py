"""What is made from the rule declarations for readers outside `kb check`: SARIF's rule
metadata, the policy schema's list of rule ids and the rule reference page.

The policy schema (`kbkit/policy/policy.schema.json`, read by the policy layer, which sits
below the checks) and the reference page (`docs/reference/rules.md`) are files written from
the declarations: `python -m kbkit.checks.rules.reference --write` (`make generate`) rewrites
them, and tests/checks/rules/test_reference.py fails when either differs from the
declarations.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

from kbkit.checks.rules import all_rules
from kbkit.rulebook.findings import SarifRule
from kbkit.rulebook.rule import Rule

POLICY_SCHEMA = Path(__file__).resolve().parents[2] / "policy" / "policy.schema.json"
REFERENCE_PAGE = Path("docs") / "reference" / "rules.md"  # relative to a checkout
RULE_IDS_KEY = "rule_ids"  # `$defs.rule_ids` in the policy schema

FAMILIES = {
    "tree": "The tree: structure, registration, links, size, sensitive and dangerous text "
    "(`kb check-knowledge-tree`).",
    "lint": "Page contents: frontmatter, tags, staleness, orphans, rule pages and adapter "
    "manifests (`kb check-wiki-lint`).",
    "kb": "kbkit's own: what cannot be read, and suppression comments (every run).",
}


def sarif_rules() -> dict[str, SarifRule]:
    """Every rule as a SARIF log describes it."""
    described = {}
    for rule in all_rules().values():
        steps = f"Why: {rule.why}.\nFix: {rule.fix}.\n" if rule.why else ""
        help_text = f"{steps}Suppress: {rule.suppression}."
        full = f"{rule.summary}: {rule.why}." if rule.why else rule.summary
        described[rule.id] = SarifRule(rule.id, rule.severity, rule.summary, help_text, full)
    return described


def policy_schema_text(current: str) -> str:
    """The policy schema `current` with its list of rule ids (`$defs.rule_ids`, one line
    kept in place; the rest of the hand-written file is left as it is) made from the
    declarations."""
    entry = {
        "description": "Every rule id, made from the rule declarations "
        "(tools/kbkit/checks/rules): `python -m kbkit.checks.rules.reference --write`.",
        "enum": sorted(all_rules()),
    }
    line = f'    "{RULE_IDS_KEY}": {json.dumps(entry, ensure_ascii=False)},'
    lines = current.split("\n")
    at = next(
        (i for i, text in enumerate(lines) if text.startswith(f'    "{RULE_IDS_KEY}": ')), None
    )
    if at is None:
        at = lines.index('  "$defs": {') + 1
        lines.insert(at, line)
    else:
        lines[at] = line
    return "\n".join(lines)


def reference_page() -> str:
    """The rule reference: one section per family, one entry per rule."""
    rules = sorted(all_rules().values(), key=lambda rule: rule.id)
    out = [
        "# Rules",
        "",
        "<!-- Written by `python -m kbkit.checks.rules.reference --write` from the rule "
        "declarations under tools/kbkit/checks/rules/; do not edit by hand. -->",
        "",
        f"kbkit checks {len(rules)} rules in {len(FAMILIES)} families. `kb rules` lists them, "
        "`kb rule RULE-ID` explains one, and the policy's `rules:` and `overrides:` change a "
        "rule's severity (`error`, `warning` or `off`) for the whole tree or per path.",
        "",
        "| Rule | Default | Fix | What it reports |",
        "| --- | --- | --- | --- |",
    ]
    for rule in rules:
        fix = "`kb fix`" if rule.fixable else ""
        out.append(
            f"| [`{rule.id}`](#{_anchor(rule.id)}) | {rule.severity} | {fix} | {rule.summary} |"
        )
    for name, words in FAMILIES.items():
        out += ["", f"## {name}/", "", words]
        for rule in rules:
            if rule.id.startswith(f"{name}/"):
                out += _entry(rule)
    return "\n".join(out) + "\n"


def _entry(rule: Rule) -> list[str]:
    lines = [
        "",
        f"### {rule.id}",
        "",
        f"{rule.summary.capitalize()}. Default: **{rule.severity}**.",
    ]
    if rule.fixable:
        lines[-1] += " `kb fix` fixes it."
    if rule.why:
        lines += ["", f"**Why.** {rule.why.capitalize()}."]
    if rule.fix:
        lines += ["", f"**Fix.** {rule.fix.capitalize()}."]
    if rule.example:
        fence = _fence(rule.example)
        lines += ["", "**Example** (reported):", "", f"{fence}text", rule.example, fence]
    lines += ["", f"**Suppress.** {rule.suppression.capitalize()}."]
    return lines


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text`, so an example that holds
    a fenced block stays one block (CommonMark closes a fence at a run as long as it)."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    return "`" * max(3, max(runs, default=0) + 1)


def _anchor(rule_id: str) -> str:
    """The heading id GitHub and most generators give `### tree/link-broken`."""
    return "".join(c for c in rule_id.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")


def main(argv: Sequence[str] | None = None) -> int:
    """Print what is made from the declarations, or `--write` it into the checkout."""
    parser = argparse.ArgumentParser(prog="python -m kbkit.checks.rules.reference")
    parser.add_argument("--write", metavar="CHECKOUT", nargs="?", const=".", default=None)
    args = parser.parse_args(argv)
    schema = policy_schema_text(POLICY_SCHEMA.read_text(encoding="utf-8"))
    page = reference_page()
    if args.write is None:
        print(page, end="")
        return 0
    POLICY_SCHEMA.write_text(schema, encoding="utf-8")
    target = Path(args.write) / REFERENCE_PAGE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
