"""Findings are data; reporters render them as text, JSON, GitHub annotations or SARIF."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, NamedTuple

from kbkit.infra import outward

ERROR = "error"
WARNING = "warning"


class Finding(NamedTuple):
    """One problem at one place: repo-relative POSIX path, 1-based line (0 = whole file) and
    1-based column in Unicode code points (0 = not known, or the whole line)."""

    path: str
    line: int
    rule_id: str
    severity: str
    message: str
    column: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule_id,
            "severity": self.severity,
            "message": self.message,
        }


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Deterministic order: by path, line, column, rule, message."""
    return sorted(set(findings), key=lambda f: (f.path, f.line, f.column, f.rule_id, f.message))


def count(findings: Iterable[Finding]) -> tuple[int, int]:
    """Return (errors, warnings)."""
    errors = warnings = 0
    for finding in findings:
        if finding.severity == ERROR:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def shown(text: str) -> str:
    """Text safe for a terminal or a log line (`kbkit.infra.outward.line`)."""
    return outward.line(text)


def quote(value: object) -> str:
    """A value inside a message, quoted plainly (not Python's repr: no doubled backslashes)."""
    return f"'{value}'"


def use_color(stream: IO[str]) -> bool:
    """Colour on a terminal only; NO_COLOR turns it off, FORCE_COLOR on (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "").lower() not in ("", "0", "false"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_STYLE = {"path": "1", ERROR: "1;31", WARNING: "1;33", "rule": "36", "failed": "1;31"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_STYLE[style]}m{text}\x1b[0m" if color else text


def _location(finding: Finding) -> str:
    path = shown(finding.path)
    if not finding.line:
        return path
    return f"{path}:{finding.line}:{finding.column}" if finding.column else f"{path}:{finding.line}"


def _totals_text(totals: dict[str, int]) -> str:
    return "".join(f", {number} {noun.rstrip('s')}(s)" for noun, number in totals.items())


def render(
    findings: list[Finding],
    fmt: str,
    tool: str,
    totals: dict[str, int] | None = None,
    color: bool = False,
    failed: bool | None = None,
) -> str:
    """The one printer of findings: `text` (severity shown, colour optional), `json`
    (carrying `version`) or `github` (workflow annotations); paths are repo-relative."""
    totals = totals or {}
    errors, warnings = count(findings)
    if fmt == "json":
        document = {
            "version": 1,
            "findings": [f.to_dict() for f in findings],
            "summary": {"errors": errors, "warnings": warnings, **totals},
        }
        import json  # only the JSON report needs it

        return outward.json_text(json.dumps(document, ensure_ascii=False, indent=2)) + "\n"
    if fmt == "github":
        lines = [_annotation(f) for f in findings]
        lines.append(f"{tool}: {errors} error(s), {warnings} warning(s){_totals_text(totals)}")
        return "\n".join(lines) + "\n"
    if fmt != "text":
        raise ValueError(f"unknown report format {fmt!r}")
    lines = [
        f"{_paint(_location(f), 'path', color)}: {_paint(f.rule_id, 'rule', color)} "
        f"{_paint('[' + f.severity + ']', f.severity, color)} {shown(f.message)}"
        for f in findings
    ]
    failing = bool(errors) if failed is None else failed  # `--fail-on warning`: warnings fail
    verdict = _paint("failed", "failed", color) if failing else "passed"
    lines.append(
        f"{tool} {verdict}: {errors} error(s), {warnings} warning(s){_totals_text(totals)}"
    )
    return "\n".join(lines) + "\n"


escape_annotation = outward.annotation  # GitHub workflow-command data
escape_property = outward.annotation_property  # a workflow-command property


def _annotation(f: Finding) -> str:
    level = "error" if f.severity == ERROR else "warning"
    line = f",line={f.line}" if f.line else ""
    if f.line and f.column:
        line += f",col={f.column}"
    message = escape_annotation(f"{f.rule_id} {f.message}")
    title = escape_property(f.rule_id)
    return f"::{level} file={escape_property(f.path)}{line},title={title}::{message}"


FORMATS = ("text", "json", "github")
CHECK_FORMATS = (*FORMATS, "sarif", "markdown")  # what `kb check` prints
MARKDOWN_ROWS = 200  # a job summary holds at most 1 MiB: the rest is counted, not listed


def markdown(
    findings: list[Finding],
    tool: str,
    totals: dict[str, int] | None = None,
    failed: bool | None = None,
) -> str:
    """A markdown report for a CI job summary (`$GITHUB_STEP_SUMMARY`): the verdict and
    counts, then one table row per finding (at most MARKDOWN_ROWS). Every cell is inert:
    no raw HTML, no table break, no live link, image, @mention or #reference
    (`kbkit.infra.outward.markdown`)."""
    errors, warnings = count(findings)
    verdict = "failed" if (bool(errors) if failed is None else failed) else "passed"
    lines = [
        f"### {tool} {verdict}: {errors} error(s), {warnings} warning(s){_totals_text(totals or {})}",
        "",
    ]
    if findings:
        lines += ["| | location | rule | message |", "|---|---|---|---|"]
        for f in findings[:MARKDOWN_ROWS]:
            mark = "❌" if f.severity == ERROR else "⚠️"
            where, message = _md_location(f), outward.markdown(f.message)
            lines.append(f"| {mark} | {where} | `{_md_cell(f.rule_id)}` | {message} |")
        if len(findings) > MARKDOWN_ROWS:
            lines += ["", f"... and {len(findings) - MARKDOWN_ROWS} more (run `kb check` locally)."]
    return "\n".join(lines) + "\n"


def _md_location(finding: Finding) -> str:
    where = outward.markdown(finding.path)
    if not finding.line:
        return where
    return f"{where}:{finding.line}" + (f":{finding.column}" if finding.column else "")


def _md_cell(text: str) -> str:
    """kbkit's own text (a rule id) inside a code span in a table cell."""
    return text.replace("|", "\\|").replace("`", "'")


SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


class SarifRule(NamedTuple):
    """What a SARIF log says of one rule (`tool.driver.rules[]`)."""

    id: str
    severity: str  # the default: `defaultConfiguration.level`
    summary: str
    help: str  # why, and how to fix a finding (`kb rule ID`)
    full: str = ""  # `fullDescription`: what a finding means and why it matters


def sarif(
    findings: list[Finding],
    rules: dict[str, SarifRule],
    version: str,
    fingerprints: list[str] | None = None,
) -> str:
    """A SARIF 2.1.0 log of one run (GitHub code scanning reads it): every rule that has a
    finding in `tool.driver.rules`, each finding a result with its repo-relative location
    (line and column when known) and, when given, its line-independent fingerprint
    (`kbkit.checks.baseline`) so an alert survives edits above it."""
    import json
    from urllib.parse import quote as uri_quote

    used = sorted({f.rule_id for f in findings})
    index = {rule_id: i for i, rule_id in enumerate(used)}
    described = [
        _sarif_rule(rules.get(rule_id) or SarifRule(rule_id, WARNING, rule_id, ""))
        for rule_id in used
    ]
    results = []
    for i, f in enumerate(findings):
        region: dict[str, int] = {}
        if f.line:
            region["startLine"] = f.line
            if f.column:
                region["startColumn"] = f.column
        elif "." in f.path.rsplit("/", 1)[-1]:
            region["startLine"] = 1  # a whole-file finding: code scanning shows the file's top
        physical: dict[str, object] = {
            "artifactLocation": {"uri": uri_quote(f.path), "uriBaseId": "SRCROOT"}
        }
        if region:
            physical["region"] = region
        result: dict[str, object] = {
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": _sarif_level(f.severity),
            "message": {"text": outward.sarif(f.message)},
            "locations": [{"physicalLocation": physical}],
        }
        if fingerprints is not None:
            result["partialFingerprints"] = {"kbkitFingerprint/v1": fingerprints[i]}
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kbkit",
                        "version": version,
                        "informationUri": "https://github.com/kbkit-dev/kbkit",
                        "rules": described,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return outward.json_text(json.dumps(log, ensure_ascii=False, indent=2)) + "\n"


def _sarif_level(severity: str) -> str:
    return "error" if severity == ERROR else "warning"


def _sarif_rule(rule: SarifRule) -> dict[str, object]:
    described: dict[str, object] = {
        "id": rule.id,
        "shortDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": _sarif_level(rule.severity)},
    }
    if rule.full:
        described["fullDescription"] = {"text": rule.full}
    if rule.help:
        described["help"] = {"text": rule.help}
    return described
