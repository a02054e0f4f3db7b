"""Incident pages (T19-T22): every page under an `incidents` folder at any depth.

Fields are exact bullet lines (`- <label>：value`, full-width or ASCII colon, the label
optionally in bold); the state must equal one of the allowed states; ids are compared with or
without backticks, and the first page in sorted path order keeps an id.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from datetime import date
from typing import NamedTuple

from kbkit.checks.rules.tree import (
    INCIDENT_FIELD,
    INCIDENT_ID_DUPLICATE,
    INCIDENT_NAME,
    INCIDENT_STATE,
)
from kbkit.infra.errors import UsageError
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding, quote


class Field(NamedTuple):
    value: str
    line: int


def is_incident(rel: str, policy: Policy) -> bool:
    """Is this root-relative page an incident page (not an index, below an incidents folder)?"""
    parts = rel.split("/")
    return parts[-1] != policy.data["index_page"] and policy.data["incidents"]["dir"] in parts[:-1]


@functools.lru_cache(maxsize=8)
def _field_pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(label) for label in labels)
    return re.compile(
        r"^[-*][ \t]+(?:\*\*)?(" + alternatives + r")(?:\*\*)?[ \t]*[:：](?:\*\*)?[ \t]*(.*)$",
        re.M,
    )


def incident_fields(text: str, policy: Policy) -> dict[str, Field]:
    """The first occurrence of each configured field, by field key (id, owner, state...)."""
    labels: dict[str, str] = {str(v): str(k) for k, v in policy.data["incidents"]["fields"].items()}
    found: dict[str, Field] = {}
    for match in _field_pattern(tuple(labels)).finditer(text):
        key = labels[match.group(1)]
        if key not in found:
            line = text.count("\n", 0, match.start()) + 1
            found[key] = Field(_clean(match.group(2)), line)
    return found


def _colon(label: str) -> str:
    return ":" if label.isascii() else "："


def _clean(value: str) -> str:
    value = value.strip()
    if len(value) >= 4 and value.startswith("**") and value.endswith("**"):
        value = value[2:-2].strip()
    if len(value) >= 2 and value[0] == value[-1] == "`":
        value = value.strip("`").strip()
    return value


@functools.lru_cache(maxsize=8)
def name_pattern(pattern: str) -> re.Pattern[str]:
    """The policy's incident name pattern, compiled; a bad pattern is a usage error."""
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise UsageError(
            f"policy key 'incidents.name_pattern': invalid regular expression ({exc})"
        ) from exc


def _real_date_prefix(name: str) -> bool:
    """A name that starts with YYYY-MM-DD must start with a real date (no 2026-13-01)."""
    if not re.match(r"\d{4}-\d{2}-\d{2}", name):
        return True  # the policy's pattern decides about names without a date
    try:
        date.fromisoformat(name[:10])
    except ValueError:
        return False
    return True


def incident_findings(rel: str, path: str, page: Page, policy: Policy) -> list[Finding]:
    """T19-T21 for one incident page."""
    config = policy.data["incidents"]
    findings: list[Finding] = []
    name = rel.rsplit("/", 1)[-1]
    if not name_pattern(str(config["name_pattern"])).match(name) or not _real_date_prefix(name):
        findings.append(
            INCIDENT_NAME.at(
                path, 0, f"incident page name {quote(name)} is not YYYY-MM-DD-<slug>.md"
            )
        )
    fields = incident_fields(page.text, policy)
    for key, label in config["fields"].items():
        field = fields.get(str(key))
        if field is None:
            findings.append(
                INCIDENT_FIELD.at(path, 0, f"missing field line `- {label}{_colon(str(label))}`")
            )
        elif not field.value:
            findings.append(INCIDENT_FIELD.at(path, field.line, f"field `{label}` is empty"))
    state = fields.get("state")
    states = [str(s) for s in config["states"]]
    if state is not None and state.value and state.value not in states:
        findings.append(
            INCIDENT_STATE.at(
                path, state.line, f"state {quote(state.value)} is not one of: {', '.join(states)}"
            )
        )
    return findings


def incident_id(page: Page, policy: Policy) -> Field | None:
    """The page's incident id field, when present and not empty."""
    field = incident_fields(page.text, policy).get("id")
    return field if field is not None and field.value else None


def duplicate_id_findings(ids: Iterable[tuple[str, Field | None]]) -> list[Finding]:
    """T22: an incident id (repo path, id field) used by an earlier page (sorted by path)."""
    first: dict[str, str] = {}
    findings: list[Finding] = []
    for path, field in sorted(ids, key=lambda item: item[0]):
        if field is None:
            continue
        owner = first.setdefault(field.value, path)
        if owner != path:
            findings.append(
                INCIDENT_ID_DUPLICATE.at(
                    path, field.line, f"incident id {quote(field.value)} is already used by {owner}"
                )
            )
    return findings
