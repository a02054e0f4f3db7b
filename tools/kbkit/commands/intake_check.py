"""`kb intake check`: validate every line of every ledger (for CI and pre-commit)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kbkit.infra.paths import named_file, rel_posix, repo_root
from kbkit.intake import options
from kbkit.intake.validation import check_intake
from kbkit.rulebook.findings import FORMATS, count, render, sort_findings, use_color


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
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    args = parser.parse_args(argv)
    for file in args.files:
        named_file(file, "pass an intake ledger (events*.jsonl, status*.jsonl)")
    repo = repo_root(args.repo)
    found = check_intake(options.intake_dir(args.repo), args.files)
    # one path convention for every report: repo-relative (absolute outside the repository)
    findings = sort_findings(
        f._replace(path=rel_posix(Path(f.path).absolute(), repo)) for f in found
    )
    color = args.format == "text" and use_color(sys.stdout)
    sys.stdout.write(render(findings, args.format, "kb intake check", color=color))
    errors, _ = count(findings)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
