"""Findings are data; reporters render them as text, JSON or GitHub annotations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

ERROR = "error"
WARNING = "warning"


class Finding(NamedTuple):
    """One problem at one place: repo-relative POSIX path, 1-based line (0 = whole file)."""

    path: str
    line: int
    rule_id: str
    severity: str
    message: str

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "rule": self.rule_id,
            "severity": self.severity,
            "message": self.message,
        }


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Deterministic order: by path, line, rule, message."""
    return sorted(set(findings), key=lambda f: (f.path, f.line, f.rule_id, f.message))


def count(findings: Iterable[Finding]) -> tuple[int, int]:
    """Return (errors, warnings)."""
    errors = warnings = 0
    for finding in findings:
        if finding.severity == ERROR:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def _location(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}" if finding.line else finding.path


def render_text(findings: list[Finding], pages: int) -> str:
    lines = [f"{_location(f)}: {f.rule_id} {f.message}" for f in findings]
    errors, warnings = count(findings)
    verdict = "failed" if errors else "passed"
    lines.append(
        f"kbkit check {verdict}: {errors} error(s), {warnings} warning(s), {pages} page(s)"
    )
    return "\n".join(lines) + "\n"


def render_json(findings: list[Finding], pages: int) -> str:
    errors, warnings = count(findings)
    document = {
        "version": 1,
        "findings": [f.to_dict() for f in findings],
        "summary": {"errors": errors, "warnings": warnings, "pages": pages},
    }
    import json  # only the JSON report needs it

    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def escape_annotation(value: str) -> str:
    """GitHub workflow-command escaping: untrusted text cannot forge another annotation."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(findings: list[Finding], pages: int) -> str:
    lines = []
    for f in findings:
        level = "error" if f.severity == ERROR else "warning"
        line = f",line={f.line}" if f.line else ""
        message = escape_annotation(f"{f.rule_id} {f.message}")
        lines.append(f"::{level} file={f.path}{line},title={f.rule_id}::{message}")
    errors, warnings = count(findings)
    lines.append(f"kbkit check: {errors} error(s), {warnings} warning(s), {pages} page(s)")
    return "\n".join(lines) + "\n"


REPORTER_BY_NAME: dict[str, Callable[[list[Finding], int], str]] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
}
