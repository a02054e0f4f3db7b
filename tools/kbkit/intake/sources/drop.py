"""Bugfix drop records, v1: the producer (`drop`) and the consumer (`collect`).

The producer writes one JSON file per run only when the fix landed (a real, non-dry-run
push and at least one group with both root cause and verification) and is fail-open: it
never breaks the run it reports on. The consumer imports drop files idempotently and moves
an invalid one to `quarantine/` with a `.reason` file beside it, never deleting anything.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra import inert
from kbkit.infra.charset import visible
from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.file_lock import locked
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import atomic_write_text
from kbkit.infra.paths import named_folder
from kbkit.intake.ledger import Row, record_events, timestamp
from kbkit.intake.repo_identity import RepoIdentity, parse_slug
from kbkit.intake.schemas import DROP_RECORD, fit_to_schema, load_schema, schema_errors

DROP_DIR_ENV = "KBKIT_DROP_DIR"  # (old name: KNOWLEDGE_INTAKE_DIR)
QUARANTINE = "quarantine"
MAX_DROP_BYTES = 1 << 20
MARKER = "<!-- kbkit:bugfix-record:v1 -->"
NAME = "drop"
VIA = "drop"
KIND = "bugfix_run"
TITLE_CAP = load_schema(DROP_RECORD)["properties"]["title"]["maxLength"]


class DropOutcome(NamedTuple):
    """Where the record was written (None: nothing written) and an honest one-line summary."""

    path: Path | None
    summary: str
    lost: bool = False  # a landed fix's record that could not be written (`--strict`: exit 1)


class CollectResult(NamedTuple):
    imported: list[str]
    already: list[str]
    quarantined: list[tuple[str, str]]  # (file name, reason)


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def neutral_title(title: str) -> str:
    """A title as one inert line: controls, bidi and zero-width characters become visible
    `<U+XXXX>` tokens, line breaks and runs of spaces one space, capped (never empty)."""
    flat = " ".join(visible(title).split())[:TITLE_CAP].strip()
    return flat or "(no title)"


def parse_aliases(pairs: list[str]) -> dict[str, str]:
    """`OLD=OWNER/NAME` pairs (OLD may be a bare name such as `app`), keyed by lower-case OLD."""
    aliases: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        target = parse_slug(new)
        if not sep or not old.strip() or target is None:
            raise UsageError(f"--alias {pair!r}: write it as OLD=OWNER/NAME (e.g. app=acme/app)")
        aliases[parse_slug(old) or old.strip().lower()] = target
    return aliases


def landed_record(
    run: Any, label: str, aliases: dict[str, str] | None = None
) -> tuple[dict[str, Any] | None, str]:
    """The drop record of a run whose fix landed, else (None, why nothing is written).

    Over-long fields are cut to the schema's limits with a visible marker, and an alias-form
    repo (`app`) becomes its OWNER/NAME; the second value then says what was cut.
    A RUN.json of the wrong shape is a producer bug and raises InputError.
    """
    if not isinstance(run, dict):
        raise InputError("expected a JSON object (the drop record plus `push`)", path=label)
    push = run.get("push")
    if not isinstance(push, dict) or not all(
        isinstance(push.get(k), bool) for k in ("dry_run", "ok")
    ):
        raise InputError('missing `"push": {"dry_run": bool, "ok": bool}`', path=label)
    run_id = run.get("run_id")
    if push["dry_run"]:
        return None, f"run {run_id}: dry run, nothing landed; no drop record written"
    if not push["ok"]:
        return None, f"run {run_id}: the push failed, nothing landed; no drop record written"
    record = {key: value for key, value in run.items() if key != "push"}
    if isinstance(record.get("title"), str):
        record["title"] = neutral_title(record["title"])
    groups = record.get("groups")
    if not isinstance(groups, list):
        raise InputError("`groups` must be a list of fix groups", path=label)
    record["groups"] = [
        g
        for g in groups
        if isinstance(g, dict) and _filled(g.get("root_cause")) and _filled(g.get("verification"))
    ]
    if not record["groups"]:
        return None, (
            f"run {run_id}: no fix group has both a root cause and a verification; "
            "no drop record written"
        )
    repo = record.get("repo")
    if isinstance(repo, str):
        canonical = parse_slug(repo)
        record["repo"] = (aliases or {}).get(canonical or repo.strip().lower(), canonical or repo)
    cuts: list[str] = []
    record = fit_to_schema(record, load_schema(DROP_RECORD), "", cuts)
    errors = schema_errors(DROP_RECORD, record)
    if errors:
        raise InputError(f"not a valid drop record v1: {errors[0]}", path=label)
    return record, (f"; cut to the limits: {', '.join(cuts[:5])}" if cuts else "")


def write_drop_record(
    run: Any,
    drop_dir: Path | None,
    label: str = "RUN.json",
    aliases: dict[str, str] | None = None,
) -> DropOutcome:
    """Write `OWNER+NAME+<run_id>.json` atomically into `drop_dir` when the fix landed;
    fail-open."""
    if drop_dir is None:
        return DropOutcome(
            None, f"{DROP_DIR_ENV} is not set and no --dir given; no drop record written"
        )
    record, why = landed_record(run, label, aliases)
    if record is None:
        return DropOutcome(None, why)
    path = drop_dir / drop_file_name(record)
    try:
        atomic_write_text(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        return DropOutcome(
            None,
            f"run {record['run_id']}: could not write {path} "
            f"({exc.strerror}); no drop record written",
            lost=True,
        )
    groups = len(record["groups"])
    return DropOutcome(
        path, f"run {record['run_id']}: wrote {path} ({groups} verified group(s)){why}"
    )


def drop_file_name(record: dict[str, Any]) -> str:
    """`OWNER+NAME+RUN_ID.json`: run ids are timestamps, so two repositories dropping into one
    folder must not share a name (`+` is in neither a slug nor a run id)."""
    return f"{str(record['repo']).replace('/', '+')}+{record['run_id']}.json"


def repo_id(text: str) -> str | None:
    """The GitHub `owner/name` a drop record names (see `parse_slug`)."""
    return parse_slug(text)


def change_id(repo: str, key: str) -> str:
    """The bugfix run `key` (its run_id) of `repo`: `owner/name:RUN_ID`."""
    return run_source_id(repo, key)


def run_source_id(repo: str, run_id: str) -> str:
    """A bugfix run's source id, `owner/name:RUN_ID`: run ids are timestamps, unique only
    within one repository, and the ledger's key must never join two repositories' runs."""
    return f"{repo}:{run_id}"


def render_comment(record: dict[str, Any]) -> str:
    """The mailbox comment for a record: the marker, one line of prose, one fenced JSON block."""
    # A backtick inside a string could close the fence; \u0060 is the same JSON value.
    block = json.dumps(record, indent=2, ensure_ascii=False).replace("`", "\\u0060")
    # a title quoting @team or #12 must not notify or cross-link from the mailbox issue
    title = inert.markdown(" ".join(str(record.get("title", "")).split()).replace("`", "'")[:200])
    return (
        f"{MARKER}\nBugfix record for `{record['repo']}`, run `{record['run_id']}`: "
        f"{title}\n\n```json\n{block}\n```\n"
    )


def bugfix_row(record: dict[str, Any], identity: RepoIdentity, via: str) -> Row:
    """The events row of a valid drop record, its repo normalized to the watched slug.

    The title is neutralised here too: a drop file or mailbox comment written by hand
    (not by `kb intake drop`) may carry ESC, CR, bidi or newlines in it.
    """
    record = dict(
        record, repo=identity.normalize(record["repo"]), title=neutral_title(record["title"])
    )
    return {
        "source_kind": "bugfix_run",
        "source_id": run_source_id(record["repo"], record["run_id"]),
        "repo": record["repo"],
        "title": record["title"],
        "pr": record["pr"],
        "via": via,
        "record": record,
        "recorded_at": timestamp(),
    }


def read_drop_file(path: Path, drop_dir: Path) -> dict[str, Any]:
    """The record in one drop file; InputError with the reason when it is not usable."""
    label = path.name
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise InputError("a dangling symlink or a symlink loop", path=label) from exc
        if not target.is_relative_to(drop_dir.resolve()):
            raise InputError("a symlink pointing outside the drop directory", path=label)
    if path.is_dir():
        raise InputError("a directory, not a drop file", path=label)
    if not path.is_file():
        raise InputError("not a regular file", path=label)
    if path.suffix != ".json":
        raise InputError(
            "not a .json file; drop files are named OWNER+NAME+<run_id>.json", path=label
        )
    if path.stat().st_size > MAX_DROP_BYTES:
        raise InputError(f"larger than {MAX_DROP_BYTES} bytes", path=label)
    try:
        record = loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", path=label) from exc
    except ValueError as exc:
        raise InputError(f"malformed JSON ({str(exc)[:120]})", path=label) from exc
    errors = schema_errors(DROP_RECORD, record)
    if errors:
        raise InputError(f"not a valid drop record v1: {'; '.join(errors[:3])}", path=label)
    return record


def quarantine(path: Path, drop_dir: Path, reason: str) -> Path:
    """Move `path` (never its symlink target) into quarantine/ with a `.reason` beside it."""
    folder = drop_dir / QUARANTINE
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    suffix = 0
    while target.exists() or target.is_symlink():
        suffix += 1
        target = folder / f"{path.name}.{suffix}"
    os.rename(path, target)
    atomic_write_text(target.with_name(target.name + ".reason"), reason + "\n")
    return target


def collect_drops(drop_dir: Path, intake_dir: Path, identity: RepoIdentity) -> CollectResult:
    """Import every drop file of `drop_dir` once; quarantine the invalid ones."""
    named_folder(drop_dir, "pass --drops the folder the producer writes to")
    rows: list[Row] = []
    quarantined: list[tuple[str, str]] = []
    with locked(drop_dir / ".collect"):
        for entry in sorted(drop_dir.iterdir()):
            if entry.name.startswith(".") or entry.name == QUARANTINE:
                continue  # temp files of atomic writes, our lock, and quarantine itself
            try:
                record = read_drop_file(entry, drop_dir)
                if not identity.watches(str(record["repo"])):
                    raise InputError(
                        f"a record for {record['repo']}, not the watched repository "
                        f"{identity.slug}",
                        path=str(entry),
                    )
                rows.append(bugfix_row(record, identity, "drop"))
            except InputError as exc:
                quarantine(entry, drop_dir, str(exc))
                quarantined.append((entry.name, str(exc)))
        result = record_events(intake_dir, rows)
    return CollectResult(
        [key[1] for key in result.added], [key[1] for key in result.already], quarantined
    )
