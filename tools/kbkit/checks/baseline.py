"""The findings baseline: today's findings recorded so that only new ones fail.

A finding is known by a line-independent fingerprint: the SHA-256 of its rule, its path,
its message with digit runs normalised (line numbers and counts in messages move) and the
text of the line it points at (stripped), plus its occurrence index among findings that
agree on all four. Editing lines above a finding keeps its fingerprint; editing the
offending line itself, or adding a second identical problem, makes a new one.

`baseline.json` lives beside the policy (`<knowledge root>/baseline.json` when the policy is
built in): `{"version": 1, "findings": [{"rule", "path", "fingerprint", "message"}, ...]}`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra import json_input
from kbkit.infra.config_file import read_config_bytes
from kbkit.infra.errors import UsageError
from kbkit.infra.lazy_pattern import lazy
from kbkit.infra.regular_file import read_regular_bytes
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding

FILE_NAME = "baseline.json"
FORMAT = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024
_DIGITS = lazy(r"\d+")


def fingerprints(findings: Sequence[Finding], repo_root: Path) -> list[str]:
    """One fingerprint per finding, in the same order (see the module docstring)."""
    lines_by_path: dict[str, list[str]] = {}
    seen: Counter[str] = Counter()
    out = []
    for finding in findings:
        text = _line_text(repo_root, finding, lines_by_path)
        message = _DIGITS.sub("0", finding.message)
        key = "\0".join((finding.rule_id, finding.path, message, text))
        seen[key] += 1
        blob = f"{key}\0{seen[key] - 1}".encode("utf-8", "surrogatepass")
        out.append(hashlib.sha256(blob).hexdigest())
    return out


def _line_text(repo_root: Path, finding: Finding, cache: dict[str, list[str]]) -> str:
    if finding.line <= 0:
        return ""
    lines = cache.get(finding.path)
    if lines is None:
        try:
            data = read_regular_bytes(repo_root / finding.path)  # never a FIFO
            lines = data.decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        cache[finding.path] = lines
    return lines[finding.line - 1].strip() if finding.line <= len(lines) else ""


def default_path(repo: Path, policy: Policy) -> Path:
    """`baseline.json` beside the policy file, or in the knowledge root for a built-in one."""
    if policy.path is not None:
        return policy.path.parent / FILE_NAME
    return repo / policy.knowledge_root / FILE_NAME


class Entry(NamedTuple):
    rule: str
    path: str
    fingerprint: str
    message: str


class Comparison(NamedTuple):
    new: list[Finding]  # not in the baseline: these are reported and can fail
    known: list[Finding]  # in the baseline: hidden
    fixed: list[Entry]  # in the baseline but no longer found: removable


def write(
    path: Path, findings: Sequence[Finding], repo_root: Path, keep: Sequence[Entry] = ()
) -> int:
    """Record `findings` (and the entries `keep`, e.g. another validator's) in `path`
    atomically; returns how many entries it holds."""
    from kbkit.infra.jsonl import atomic_write_text

    prints = fingerprints(findings, repo_root)
    rows = sorted(
        [
            *(
                {"rule": f.rule_id, "path": f.path, "fingerprint": fp, "message": f.message}
                for f, fp in zip(findings, prints, strict=True)
            ),
            *(entry._asdict() for entry in keep),
        ],
        key=lambda row: (row["path"], row["rule"], row["fingerprint"]),
    )
    document = {"version": FORMAT, "findings": rows}
    atomic_write_text(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return len(rows)


def read(path: Path) -> list[Entry]:
    """The entries of a baseline file; a missing, oversized or malformed file is a usage
    error naming it."""
    data = read_config_bytes(path, MAX_BASELINE_BYTES, "the baseline")
    try:
        document = json_input.loads(data)
    except ValueError as exc:
        raise UsageError(f"{path}: not a kbkit baseline (invalid JSON: {exc})") from exc
    return _entries(document, path)


def _entries(document: Any, path: Path) -> list[Entry]:
    if not isinstance(document, dict) or document.get("version") != FORMAT:
        raise UsageError(f"{path}: not a kbkit baseline (expected version {FORMAT})")
    rows = document.get("findings")
    if not isinstance(rows, list):
        raise UsageError(f"{path}: not a kbkit baseline ('findings' must be a list)")
    entries = []
    for index, row in enumerate(rows):
        values = [row.get(k) if isinstance(row, dict) else None for k in Entry._fields]
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) != len(values):
            raise UsageError(
                f"{path}: findings[{index}] needs text fields {', '.join(Entry._fields)}"
            )
        entries.append(Entry(*texts))
    return entries


def compare(findings: Sequence[Finding], entries: Sequence[Entry], repo_root: Path) -> Comparison:
    """Split `findings` into new and known against a baseline; list its fixed entries."""
    remaining = Counter(entry.fingerprint for entry in entries)
    new: list[Finding] = []
    known: list[Finding] = []
    for finding, fp in zip(findings, fingerprints(findings, repo_root), strict=True):
        if remaining[fp] > 0:
            remaining[fp] -= 1
            known.append(finding)
        else:
            new.append(finding)
    fixed = []
    for entry in entries:
        if remaining[entry.fingerprint] > 0:
            remaining[entry.fingerprint] -= 1
            fixed.append(entry)
    return Comparison(new, known, fixed)
