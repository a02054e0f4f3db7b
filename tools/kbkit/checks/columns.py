"""Columns for the findings a run reports whose checks know only the line: link findings.

Cross-page checks read page summaries, which keep each link's line but not its column (a
column per link would cost every cached summary memory for the few links that are ever
reported). So once a run's findings are final, each link finding's line is read again from
its page and the link is found on it by its target as written: the finding then points at
the target's first character, in Unicode code points, 1-based. A finding whose link cannot
be found on its line (the file changed since, an escape the parser decoded) keeps column 0,
which every report shows as "line only".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from kbkit.checks.rules.tree.links import link_parts
from kbkit.infra.regular_file import read_regular_bytes
from kbkit.rulebook.findings import Finding

ReadLines = Callable[[str], list[str] | None]  # repo-relative path -> its lines, or None


def with_columns(
    findings: list[Finding], repo: Path, read: ReadLines | None = None
) -> list[Finding]:
    """The findings, each link finding that has a line and no column given its column.
    `read` gives a page's lines (default: from disk; the editor passes its open buffers)."""
    read = read or _disk_reader(repo)
    cache: dict[str, list[str] | None] = {}
    out = []
    for finding in findings:
        parts = link_parts(finding) if finding.line and not finding.column else None
        if parts is None or not parts.written:
            out.append(finding)
            continue
        if finding.path not in cache:
            cache[finding.path] = read(finding.path)
        lines = cache[finding.path]
        text = lines[finding.line - 1] if lines and finding.line <= len(lines) else ""
        column = link_column(text, parts.written)
        out.append(finding._replace(column=column) if column else finding)
    return out


def link_column(line: str, written: str) -> int:
    """The 1-based column of a link target (as a finding quotes it) on its line, 0 if absent."""
    if written.startswith(("[[", "![[")):  # a wikilink: point at its brackets
        name = written.removesuffix("]]")
        at = line.find(name)
        return at + 1 if at >= 0 else 0
    candidates = [written]
    encoded = quote(written, safe="/#?&=:@+!$,;~*'()%")
    if encoded != written:
        candidates.append(encoded)
    for candidate in candidates:
        for lead in ("](", "]: ", "<", "]:"):
            at = line.find(lead + candidate)
            if at >= 0:
                return at + len(lead) + 1
    for candidate in candidates:
        at = line.find(candidate)
        if at >= 0:
            return at + 1
    return 0


def _disk_reader(repo: Path) -> ReadLines:
    def read(path: str) -> list[str] | None:
        try:
            data = read_regular_bytes(repo / path)  # never a FIFO
        except OSError:
            return None
        return data.decode("utf-8", "replace").split("\n")

    return read
