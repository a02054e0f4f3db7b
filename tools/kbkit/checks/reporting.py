"""The check commands' report: findings printed in the chosen format, a baseline applied,
and the exit code `--fail-on` and `--exit-zero` ask for."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kbkit.infra import outward
from kbkit.rulebook.findings import (
    WARNING,
    Finding,
    count,
    markdown,
    render,
    sarif,
    use_color,
)

if TYPE_CHECKING:
    from kbkit.policy.model import Policy


class ReportOptions(NamedTuple):
    """How the check commands report: `--format`, `--fail-on`, `--exit-zero`, `--baseline`,
    `--write-baseline`, and the paths a run was narrowed to (`kb check PATH...`)."""

    format: str = "text"
    fail_on: str = "error"
    exit_zero: bool = False
    baseline: str | None = None
    write_baseline: bool = False
    named: list[str] | None = None  # repo-relative paths reported on (None: the whole tree)


def report(
    repo: Path,
    policy: Policy,
    args: ReportOptions,
    findings: list[Finding],
    pages: int,
    prefixes: tuple[str, ...],
) -> int:
    """Print the findings (only the new ones when a baseline applies); the exit code."""
    from kbkit.checks import baseline

    path = Path(args.baseline) if args.baseline else baseline.default_path(repo, policy)
    if args.baseline and not path.is_absolute() and not path.exists():
        path = repo / args.baseline
    if args.write_baseline:
        keep = [e for e in _entries_if_any(path) if not _ours(e.rule, prefixes)]
        written = baseline.write(path, findings, repo, keep)
        sys.stderr.write(f"kbkit: recorded {written} finding(s) in {path}\n")
        return 0
    if not args.baseline and not path.is_file():
        sys.stdout.write(_render(args, repo, findings, pages))
        return exit_code(args, findings)
    entries = [e for e in baseline.read(path) if _ours(e.rule, prefixes)]
    named = args.named
    if named is not None:
        from kbkit.checks.bearing import bearing

        entries = [e for e in entries if bearing([Finding(e.path, 0, e.rule, "", "")], named)]
    compared = baseline.compare(findings, entries, repo)
    out = _render(args, repo, compared.new, pages)
    summary = {
        "file": str(path),
        "known": len(compared.known),
        "fixed": [e._asdict() for e in compared.fixed],
    }
    if args.format in ("json", "sarif"):
        import json

        document = json.loads(out)
        if args.format == "json":
            document["baseline"] = summary
        else:  # a SARIF run's property bag
            document["runs"][0]["properties"] = {"baseline": summary}
        out = outward.json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n"
    else:
        out += (
            f"baseline {outward.line(str(path))}: {len(compared.known)} known finding(s) not shown, "
            f"{len(compared.fixed)} fixed (removable: kb check --write-baseline)\n"
        )
    sys.stdout.write(out)
    return exit_code(args, compared.new)


def exit_code(args: ReportOptions, findings: list[Finding]) -> int:
    """1 when a finding is at least as severe as `--fail-on`, 0 otherwise or with --exit-zero."""
    return 0 if args.exit_zero else int(failing(args, findings))


def failing(args: ReportOptions, findings: list[Finding]) -> bool:
    """Whether a finding is at least as severe as `--fail-on`: what the verdict line says
    (`--exit-zero` changes the exit code, not the verdict)."""
    errors, warnings = count(findings)
    return bool(errors) or (args.fail_on == WARNING and bool(warnings))


def _render(args: ReportOptions, repo: Path, findings: list[Finding], pages: int) -> str:
    if args.format == "sarif":
        from kbkit import __version__
        from kbkit.checks.baseline import fingerprints
        from kbkit.checks.rules.reference import sarif_rules

        return sarif(findings, sarif_rules(), __version__, fingerprints(findings, repo))
    if args.format == "markdown":
        return markdown(findings, "kbkit check", {"pages": pages}, failing(args, findings))
    color = args.format == "text" and use_color(sys.stdout)
    from kbkit.checks.rules import all_rules

    fixable = frozenset(rule.id for rule in all_rules().values() if rule.fixable)
    totals = {"pages": pages}
    return render(findings, args.format, "kbkit check", totals, color, failing(args, findings), fixable)  # fmt: skip


def _ours(rule: str, prefixes: tuple[str, ...]) -> bool:
    """Whether this run's validators report `rule` (kb/ rules come from every run)."""
    return rule.startswith((*prefixes, "kb/"))


def _entries_if_any(path: Path) -> list[Any]:
    from kbkit.checks import baseline

    return baseline.read(path) if path.is_file() else []
