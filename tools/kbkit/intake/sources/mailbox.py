"""The mailbox: bugfix drop records posted as issue comments by other hosts.

Only comments by an OWNER, MEMBER or COLLABORATOR that carry a bugfix-record marker and
exactly one fenced JSON block, whose record names the watched repository, are recorded. A
marked comment by anyone else is ignored with a warning, once (anyone may comment on a
public issue: that is no failure of the mailbox); a collaborator's record that cannot be
used is refused, once.

A recorded event never changes (a second recording of the same source adds nothing, and the
event may already be distilled into a published rule), so a collaborator comment edited
after its run was recorded is not taken again: the edit is reported once, with what to do
(post the corrected record with a new run id), instead of being dropped without a word.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.closed_spans import closed_spans
from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.file_lock import locked
from kbkit.infra.json_input import loads
from kbkit.intake.json_pages import Page, page_items
from kbkit.intake.ledger import Row, load_events, same_source
from kbkit.intake.repo_identity import RepoIdentity, parse_slug
from kbkit.intake.schemas import DROP_RECORD, schema_errors
from kbkit.intake.sources.drop import MARKER, bugfix_row, run_source_id
from kbkit.intake.state_file import read_state, write_state

MARKERS = (MARKER, "<!-- infermatrix-copilot:bugfix-record:v1 -->")
TRUSTED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
MAX_COMMENT = 65536  # GitHub's own limit on a comment body
# A fenced ```json block: `^```[ \t]*json[ \t]*\r?\n(.*?)\r?\n```[ \t]*$` (re.M | re.S),
# found by `closed_spans`: a block left open ends the search (no later one can close
# either) instead of having every later line tried for each such fence, seconds for a
# comment of 65,536 characters of them
_JSON_OPEN = re.compile(r"^```[ \t]*json[ \t]*\r?\n", re.MULTILINE)
_JSON_CLOSE = re.compile(r"\r?\n```[ \t]*$", re.MULTILINE)


def json_blocks(body: str) -> list[str]:
    """The text of each fenced ```json block of a comment body, in order."""
    spans = closed_spans(body, _JSON_OPEN, _JSON_CLOSE)
    return [body[span.inner_start : span.inner_end] for span in spans]


class RefusedComment(NamedTuple):
    """A mailbox comment (or drop file) that was not recorded, and why."""

    where: str
    reason: str
    comment_id: str | None = None  # GitHub's comment id, how a refusal is remembered
    stranger: bool = False  # its author is no collaborator: ignored, never a failure


class StrangerComment(ValueError):
    """A marked comment by someone who is not OWNER, MEMBER or COLLABORATOR."""


ISSUE_REF = re.compile(r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})$")
REFUSED_FILE = "mailbox-refused.json"
NAME = "mailbox"
VIA = "mailbox"
KIND = "bugfix_run"


def repo_id(text: str) -> str | None:
    """The GitHub `owner/name` of a mailbox issue's repository (see `parse_slug`)."""
    return parse_slug(text)


def change_id(repo: str, key: str) -> str:
    """The bugfix run `key` (its run_id) of `repo`, as a drop file would name it."""
    return run_source_id(repo, key)


def unconfigured(text: str) -> bool:
    """An issue reference that names no issue: empty, or `OWNER/NAME#` (a workflow whose
    mailbox variable is unset). The mailbox is optional: that is a notice, not an error."""
    return not text.strip() or text.strip().endswith("#")


def parse_issue_ref(text: str) -> tuple[str, int]:
    """`OWNER/NAME#N` as (slug, N); a UsageError otherwise."""
    found = ISSUE_REF.match(text.strip())
    slug = parse_slug(found.group(1)) if found else None
    if not found or slug is None:
        raise UsageError(f"{text!r} is not an issue reference; write it as OWNER/NAME#N")
    return slug, int(found.group(2))


def comments_endpoint(slug: str, number: int) -> str:
    return f"repos/{slug}/issues/{number}/comments?per_page=100"


def read_refused(intake_dir: Path) -> dict[str, str]:
    """comment id -> why it was refused, for refusals already reported once."""
    refused = read_state(
        intake_dir / REFUSED_FILE,
        "refused",
        invalid="not valid JSON; delete it to report refusals again",
        expected='expected {"version": 1, "refused": {"ID": "reason"}}',
    )
    return {str(k): str(v) for k, v in refused.items()}


def remember_refused(intake_dir: Path, refusals: list[RefusedComment]) -> list[RefusedComment]:
    """The refusals not reported before; they are remembered from now on."""
    path = intake_dir / REFUSED_FILE
    with locked(path):
        known = read_refused(intake_dir)
        new = [r for r in refusals if r.comment_id is None or r.comment_id not in known]
        fresh = {r.comment_id: r.reason for r in new if r.comment_id is not None}
        if fresh:
            write_state(path, "refused", {**known, **fresh})
    return new


class MailboxScan(NamedTuple):
    rows: list[Row]
    refused: list[RefusedComment]
    ignored: int  # comments without a marker: ordinary conversation
    origins: tuple[tuple[str, str | None], ...] = ()  # per row: where, and the comment's id


def _record_text(record: Any) -> str:
    """A recorded drop record as compared for edits: its repository in canonical spelling
    (rows recorded before slugs were normalized may spell it otherwise)."""
    if isinstance(record, dict) and isinstance(record.get("repo"), str):
        record = dict(record, repo=parse_slug(record["repo"]) or record["repo"])
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def edited_comments(intake_dir: Path, scan: MailboxScan) -> list[RefusedComment]:
    """The comments whose record differs from the one recorded for their run: edited after
    it was recorded (or a second comment for the same run). Their text is not taken; each
    is reported once per version (remembered like a refusal, by comment id and digest)."""
    recorded = {same_source(*key): row for key, row in load_events(intake_dir).items()}
    edited: list[RefusedComment] = []
    for row, (where, comment_id) in zip(scan.rows, scan.origins, strict=False):
        earlier = recorded.get(same_source(row["source_kind"], row["source_id"]))
        if earlier is None or (now := _record_text(row["record"])) == _record_text(
            earlier.get("record")
        ):
            continue
        digest = hashlib.sha256(now.encode()).hexdigest()[:16]
        edited.append(
            RefusedComment(
                where,
                f"edited after run {row['record']['run_id']} was recorded from its earlier "
                "text; the edit is not taken (a recorded event never changes); to record the "
                "correction, post it as a new comment with a new run_id",
                f"{comment_id}:edited:{digest}" if comment_id is not None else None,
                stranger=True,
            )
        )
    return edited


def comment_record(body: str, association: str, identity: RepoIdentity) -> dict[str, Any]:
    """The drop record carried by a marked comment; ValueError says why it is refused."""
    if association not in TRUSTED:
        raise StrangerComment(
            f"author association {association} is not OWNER, MEMBER or "
            "COLLABORATOR; only collaborators may post records"
        )
    if len(body) > MAX_COMMENT:
        raise ValueError(f"body of {len(body)} characters is longer than GitHub allows")
    blocks = json_blocks(body)
    if len(blocks) != 1:
        raise ValueError(f"expected exactly one fenced ```json block, found {len(blocks)}")
    try:
        record = loads(blocks[0])
    except ValueError as exc:
        raise ValueError(f"the fenced block is not valid JSON ({str(exc)[:120]})") from exc
    errors = schema_errors(DROP_RECORD, record)
    if errors:
        raise ValueError(f"not a valid drop record v1: {'; '.join(errors[:3])}")
    if not identity.watches(record["repo"]):
        raise ValueError(f"record for {record['repo']}, not the watched repository {identity.slug}")
    return record


def parse_comments(label: str, pages: list[Page], identity: RepoIdentity) -> MailboxScan:
    """Sort every comment into recorded rows, refusals and ordinary conversation."""
    if identity.slug is None:
        raise UsageError(
            "the mailbox needs the watched repository: pass --slug OWNER/NAME "
            "or set `repo:` in intake/config.yaml"
        )
    rows: list[Row] = []
    origins: list[tuple[str, str | None]] = []
    refused: list[RefusedComment] = []
    ignored = 0
    for where, item in page_items(label, pages, "issue comment"):
        body, association = item.get("body"), item.get("author_association")
        if not isinstance(body, str) or not isinstance(association, str):
            raise InputError(
                f"{where}: expected `body` and `author_association` strings; is "
                "this GitHub's issue comments JSON?",
                path=label,
            )
        if not any(marker in body for marker in MARKERS):
            ignored += 1
            continue
        user = item.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        where = f"{where} (comment {item.get('id', '?')} by {login or 'unknown'})"
        comment_id = item.get("id")
        ident = str(comment_id) if type(comment_id) is int else None
        try:
            rows.append(
                bugfix_row(comment_record(body, association, identity), identity, "mailbox")
            )
            origins.append((where, ident))
        except ValueError as exc:
            refused.append(RefusedComment(where, str(exc), ident, isinstance(exc, StrangerComment)))
    return MailboxScan(rows, refused, ignored, tuple(origins))
