"""`kb intake check`: validate every line of every ledger (for CI and pre-commit)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kbkit.findings import ERROR, count, escape_annotation, sort_findings
from kbkit.intake import options
from kbkit.intake.validation import check_intake


def main(argv: list[str] | None = None) -> int:
    """Exit 1 when a ledger line is unreadable or breaks its schema; a torn tail warns."""
    parser = argparse.ArgumentParser(
        prog="kb intake check",
        description="Validate every line of intake/events.jsonl and intake/status.jsonl "
        "against the JSON Schemas shipped in kbkit/intake/schemas/, and the cursor file.",
    )
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="ledger files to check (default: the ledgers under --repo)",
    )
    options.add_repo(parser)
    parser.add_argument("--format", choices=("text", "json", "github"), default="text")
    args = parser.parse_args(argv)
    findings = sort_findings(check_intake(options.intake_dir(args), args.files))
    errors, warnings = count(findings)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "version": 1,
                    "findings": [f.to_dict() for f in findings],
                    "summary": {"errors": errors, "warnings": warnings},
                },
                indent=2,
            )
        )
    elif args.format == "github":
        for f in findings:
            level = "error" if f.severity == ERROR else "warning"
            line = f",line={f.line}" if f.line else ""
            text = escape_annotation(f"{f.rule_id} {f.message}")
            print(f"::{level} file={f.path}{line},title={f.rule_id}::{text}")
    else:
        for f in findings:
            print(f"{f.path}:{f.line}: {f.rule_id} {f.message}")
        verdict = "failed" if errors else "passed"
        print(f"kb intake check {verdict}: {errors} error(s), {warnings} warning(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
