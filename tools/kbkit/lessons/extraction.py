"""Deterministic extraction of lessons from one closed task record.

No model summarises anything: each lesson is a fixed sentence built from one finding or
retest, and every lesson keeps the id of the finding or retest it came from. The same
inputs always produce the same lesson ids (a hash of kind, scope keys, cue and action).

A source id is `TASK/ID` with `%` and `/` in the task id written `%25` and `%2F`, so task
`A/B` finding `C` (`A%2FB/C`) and task `A` finding `B/C` (`A/B/C`) never share one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Any, NamedTuple

from kbkit.infra.errors import InputError
from kbkit.intake.ledger import timestamp
from kbkit.lessons.moments import normalize_time as normalize_time
from kbkit.lessons.outcomes import CONFIRMED, NEGATIVE, SILENT, normalize_status, outcome_card
from kbkit.lessons.redaction import clean_scope, clean_text, key_text, scope_key

TERMINAL_STATUSES = frozenset({"done", "failed", "timeout"})
POSITIVE_STATUSES = CONFIRMED
NEGATIVE_STATUSES = NEGATIVE
SILENT_STATUSES = SILENT
REPRODUCED_VERDICTS = frozenset({"reproduced"})
CAUTION_VERDICTS = frozenset({"fixed", "inconclusive"})

SCOPE_CAP = 200


class Candidate(NamedTuple):
    """One lesson plus the one piece of evidence that supports it."""

    lesson_id: str
    kind: str
    company: str | None
    category: str | None
    cue: str
    action: str
    subject: str
    source_kind: str  # "finding" or "retest"
    source_id: str  # `source_id(task, finding or retest id)`
    task: str
    at: str
    company_key: str | None  # `redaction.scope_key`: what compares and keys, never shown
    category_key: str | None


class RefusedLesson(NamedTuple):
    """A rule fired but the gate refused it: empty cue, action or source."""

    task: str
    source: str
    reason: str


class Extraction(NamedTuple):
    task: str
    terminal: bool
    candidates: list[Candidate]
    refusals: list[RefusedLesson]
    outcome: dict[str, Any] | None
    # `record_digest` of the bytes the record was read from, when known: an unchanged
    # record is then recognised without being parsed again (`kb lessons extract`)
    digest: str | None = None


# Part of every record digest: a change to what extraction makes of a record changes it,
# so records extracted by an earlier version are read again.
EXTRACTION_FORMAT = b"kbkit-lessons-extraction-2\n"


def record_digest(raw: bytes) -> str:
    """The digest of one task record's bytes, as `Extraction.digest` holds it."""
    return hashlib.sha256(EXTRACTION_FORMAT + raw).hexdigest()[:32]


@functools.lru_cache(maxsize=65536)
def lesson_id(kind: str, company: str | None, category: str | None, cue: str, action: str) -> str:
    """The dedupe key over kind, scope keys, cue and action, as a short stable id.

    `company` and `category` are scope keys (`redaction.scope_key`); for names already in
    that form (`acme`, `web`) the ids are those earlier versions wrote.
    """
    key = json.dumps([kind, company, category, cue, action], ensure_ascii=False)
    return "L" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


_ESCAPED = re.compile("%(25|2F)")


def _escape_task(task: str) -> str:
    return task.replace("%", "%25").replace("/", "%2F") if "%" in task or "/" in task else task


def source_id(task: str, local_id: str) -> str:
    """The id of a finding or retest: `TASK/ID`, `%` and `/` in TASK escaped (no collision)."""
    return f"{_escape_task(task)}/{local_id}"


def split_source(value: str) -> tuple[str, str]:
    """(task id, finding or retest id) of a `source_id`; ValueError when it has no `/`."""
    head, sep, local = value.partition("/")
    if not sep:
        raise ValueError(f"{value!r} is not TASK/ID")
    task = _ESCAPED.sub(lambda m: "%" if m.group(1) == "25" else "/", head) if "%" in head else head
    return task, local


def migrate_source(raw: str, task: str) -> str:
    """A source id as this version writes it, from one an earlier version wrote for `task`
    (`TASK/ID` with TASK unescaped); ids already in this form come back unchanged."""
    escaped = _escape_task(task)
    if escaped == task or raw.startswith(escaped + "/") or not raw.startswith(task + "/"):
        return raw
    return escaped + raw[len(task) :]


def utc_now() -> str:
    """The ledger's timestamp format (one writer of it: kbkit.intake.ledger.timestamp)."""
    return timestamp()


class _Fired(NamedTuple):
    kind: str
    cue: str
    action: str
    subject: str
    source_kind: str
    local_id: str
    key_cue: str  # cue and action before redaction: the dedupe key hashes these
    key_action: str


def _sentences(kind: str, status: str, verdict: str, cls: str, summary: str) -> str:
    """The fixed sentence of one rule (the same builder for stored and key text)."""
    if kind == "positive":
        return f"Confirmed {cls}: {summary}"
    if kind == "negative":
        return f"Do not re-report without new mechanics: {summary} (prior {status})"
    if kind == "reproduced":
        return f"Reproduced {cls} on retest: {summary}"
    return f"Recheck before reporting {cls}: a prior retest was {verdict}"


def _rules(task: dict[str, Any]) -> list[_Fired]:
    """Every rule that fires, with its stored (redacted) and key (unredacted) text."""
    fired = []
    cleaned = {}  # finding id -> (status, class, summary, key class, key summary)
    for finding in task.get("findings") or []:
        status = normalize_status(finding.get("status"))
        cls = clean_text(finding.get("class"), SCOPE_CAP)
        summary = clean_text(finding.get("summary"))
        kcls = key_text(finding.get("class"), SCOPE_CAP)
        ksummary = key_text(finding.get("summary"))
        cleaned[finding["id"]] = (status, cls, summary, kcls, ksummary)
        kind = (
            "positive"
            if status in POSITIVE_STATUSES
            else "negative"
            if status in NEGATIVE_STATUSES
            else ""
        )
        if kind:
            action = _sentences(kind, status, "", cls, summary)
            key_action = _sentences(kind, status, "", kcls, ksummary)
            fired.append(
                _Fired(kind, cls, action, summary, "finding", finding["id"], kcls, key_action)
            )
    for retest in task.get("retests") or []:
        verdict = normalize_status(retest.get("verdict"))
        status, cls, summary, kcls, ksummary = cleaned.get(
            retest["finding_id"], ("", "", "", "", "")
        )
        if verdict in REPRODUCED_VERDICTS and status in POSITIVE_STATUSES:
            kind, rule = "positive", "reproduced"
        elif verdict in CAUTION_VERDICTS and status not in SILENT_STATUSES:
            kind = rule = "caution"
        else:
            continue
        action = _sentences(rule, status, verdict, cls, summary)
        key_action = _sentences(rule, status, verdict, kcls, ksummary)
        fired.append(_Fired(kind, cls, action, summary, "retest", retest["id"], kcls, key_action))
    return fired


def extract(task: dict[str, Any], *, now: str | None = None, validate: bool = True) -> Extraction:
    """Lessons of one task record; non-terminal tasks yield nothing.

    The record is checked against the shipped schema first (an InputError names the task);
    callers that already validated it, like `kb lessons extract`, pass `validate=False`.
    """
    if validate:
        from kbkit.lessons.task_records import schema_problem

        problem = schema_problem(task)
        if problem:
            raise InputError(
                problem,
                path=f"task {str(task.get('id'))[:80]!r}" if isinstance(task, dict) else "task",
            )
    task_id = str(task["id"])
    if normalize_status(task.get("status")) not in TERMINAL_STATUSES:
        return Extraction(task_id, False, [], [], None)
    closed_at = task.get("closed_at")
    at = normalize_time(closed_at, now or (utc_now() if not closed_at else ""))
    if not at:
        at = now or utc_now()
    company, category = clean_scope(task.get("company")), clean_scope(task.get("category"))
    company_key, category_key = scope_key(task.get("company")), scope_key(task.get("category"))
    candidates: list[Candidate] = []
    refusals: list[RefusedLesson] = []
    for kind, cue, action, subject, source_kind, local_id, key_cue, key_action in _rules(task):
        local_source = source_id(task_id, local_id)
        source = f"{source_kind}:{local_source}"
        reason = _gate(cue, subject if kind != "caution" else cue, task_id, local_id)
        if reason:
            refusals.append(RefusedLesson(task_id, source, reason))
            continue
        # keyed on the text before redaction: "session_id: not rotated" and "... always
        # rotated" stay two lessons even if a redaction ever made them read alike
        lid = lesson_id(kind, company_key, category_key, key_cue, key_action)
        candidates.append(
            Candidate(
                lid,
                kind,
                company,
                category,
                cue,
                action,
                subject,
                source_kind,
                local_source,
                task_id,
                at,
                company_key,
                category_key,
            )
        )
    return Extraction(task_id, True, candidates, refusals, outcome_card(task))


def _gate(cue: str, action_part: str, task_id: str, local_id: str) -> str:
    """Why a fired rule may not become a lesson ('' when it may)."""
    if not cue:
        return "empty cue (the finding has no class, or the retest names an unknown finding)"
    if not action_part:
        return "empty action (the finding has no summary)"
    if not task_id.strip() or not str(local_id).strip():
        return "empty source id"
    return ""
