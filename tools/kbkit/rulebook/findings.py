"""Findings are data; reporters render them as text, JSON or GitHub annotations."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import IO, NamedTuple

from kbkit.infra.charset import INVISIBLE

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


# Characters no report may print raw: controls (ESC, CR, ...), invisible and bidi
# characters (kbkit.infra.charset), newlines (a forged next line) and lone surrogates (undecodable
# file-name bytes, which would crash the write).
_UNSAFE = re.compile(INVISIBLE.pattern[:-1] + "\n\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(text: str) -> str:
    """Text safe for a terminal or a log: every unsafe character becomes a visible token."""
    return _UNSAFE.sub(_token, text)


def _token(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n":
        return "\\n"
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a file name's byte that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"  # as backslashreplace shows it
    return f"<U+{code:04X}>"


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
    return f"{path}:{finding.line}" if finding.line else path


def _totals_text(totals: dict[str, int]) -> str:
    return "".join(f", {number} {noun.rstrip('s')}(s)" for noun, number in totals.items())


def render(
    findings: list[Finding],
    fmt: str,
    tool: str,
    totals: dict[str, int] | None = None,
    color: bool = False,
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

        text = json.dumps(document, ensure_ascii=False, indent=2)
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
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
    verdict = _paint("failed", "failed", color) if errors else "passed"
    lines.append(
        f"{tool} {verdict}: {errors} error(s), {warnings} warning(s){_totals_text(totals)}"
    )
    return "\n".join(lines) + "\n"


def escape_annotation(value: str) -> str:
    """GitHub workflow-command data: untrusted text cannot forge another annotation."""
    return shown(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """A workflow-command property (`file=`, `title=`): also `,` and `:` are escaped."""
    return escape_annotation(value).replace(":", "%3A").replace(",", "%2C")


def _annotation(f: Finding) -> str:
    level = "error" if f.severity == ERROR else "warning"
    line = f",line={f.line}" if f.line else ""
    message = escape_annotation(f"{f.rule_id} {f.message}")
    title = escape_property(f.rule_id)
    return f"::{level} file={escape_property(f.path)}{line},title={title}::{message}"


FORMATS = ("text", "json", "github")
