"""Reading task records: strict UTF-8, strict JSON, validated against the shipped schema.

Unlike the store's own logs (where a torn line is tolerated), an input file is all or
nothing: the first problem is reported with its file (and line, for JSONL) and nothing is
written.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

from kbkit.infra.errors import InputError
from kbkit.infra.json_input import loads
from kbkit.infra.paths import named_file

SCHEMA_PATH = Path(__file__).with_name("task_record.schema.json")


@functools.cache
def _validator() -> Any:
    import jsonschema  # lazy: only commands that read task records pay for it

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_problem(record: object) -> str | None:
    """The first schema violation of a task record, as one readable sentence."""
    if not isinstance(record, dict):
        return f"a task record must be a JSON object, got {type(record).__name__}"
    if _plainly_valid(record):
        return _reference_problem(record)
    errors = sorted(_validator().iter_errors(record), key=lambda e: list(e.absolute_path))
    if not errors:
        return _reference_problem(record)
    error = errors[0]
    where = "/".join(str(part) for part in error.absolute_path) or "(the record)"
    message = error.message[:200]
    if error.validator == "not":  # the identifiers' control-character rule
        message = f"{error.instance!r} must not contain control characters"
    return f"task record does not match the schema at {where}: {message}"


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _ident(value: object) -> bool:
    return type(value) is str and 0 < len(value) <= 200 and not _CONTROL.search(value)


def _word(value: object) -> bool:
    return type(value) is str and 0 < len(value) <= 64


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})")


def _rfc3339(value: object) -> bool:
    """A `date-time` every format checker accepts: RFC 3339's shape and a real moment."""
    if type(value) is not str or not _RFC3339.fullmatch(value):
        return False
    from datetime import datetime

    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _optional_text(record: dict[str, Any], key: str, cap: int) -> bool:
    value = record.get(key)
    return value is None or (type(value) is str and len(value) <= cap)


def _plainly_valid(record: dict[str, Any]) -> bool:
    """A fast, conservative reading of the schema for the everyday shape of a record.

    True only when the schema certainly accepts the record (a property test holds it to
    that); anything unusual (a closed_at to format-check, a float count, a wrong type)
    returns False and goes to jsonschema, which decides and words the error. A `closed_at`
    in RFC 3339's exact shape naming a real moment passes every date-time format checker.
    """
    if not (_ident(record.get("id")) and _word(record.get("status"))):
        return False
    if not (_optional_text(record, "company", 200) and _optional_text(record, "category", 200)):
        return False
    closed_at = record.get("closed_at")
    if closed_at is not None and not _rfc3339(closed_at):
        return False
    findings = record.get("findings", [])
    retests = record.get("retests", [])
    metrics = record.get("metrics", {})
    if type(findings) is not list or type(retests) is not list or type(metrics) is not dict:
        return False
    for finding in findings:
        if not (
            type(finding) is dict
            and _ident(finding.get("id"))
            and _word(finding.get("status"))
            and _optional_text(finding, "class", 200)
            and _optional_text(finding, "summary", 20000)
        ):
            return False
    for retest in retests:
        if not (
            type(retest) is dict
            and _ident(retest.get("id"))
            and _ident(retest.get("finding_id"))
            and _word(retest.get("verdict"))
        ):
            return False
    for key in ("tokens", "tool_calls"):
        value = metrics.get(key, 0)
        if type(value) is not int or value < 0:
            return False
    return True


def _reference_problem(record: dict[str, Any]) -> str | None:
    from kbkit.lessons.outcomes import FINDING_STATUSES, normalize_status

    findings = record.get("findings") or []
    ids = [f["id"] for f in findings]
    if len(ids) != len(set(ids)):
        return "task record has two findings with the same id"
    for finding in findings:
        # an unknown status would silently count as "reported" in every outcome card
        if normalize_status(finding["status"]) not in FINDING_STATUSES:
            known = ", ".join(sorted(FINDING_STATUSES))
            return (
                f"finding {str(finding['id'])[:80]!r} has the unknown status "
                f"{str(finding['status'])[:64]!r}; expected one of {known}"
            )
    return None


def _decode(data: bytes, path: str, line: int | None = None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "re-save the file as UTF-8",
            path=path,
            line=line,
        ) from exc


def parse_record(
    raw: bytes, path: str, line: int | None = None, *, validate: bool = True
) -> dict[str, Any]:
    """One task record from its bytes, checked (an InputError names `path` and `line`)."""
    if not validate:
        record: dict[str, Any] = loads(raw)
        return record
    return _parse(_decode(raw, path, line), path, line)


def read_input(path: str) -> bytes:
    """The bytes of an input file (`-` reads stdin), with a clear error when unreadable."""
    return _read_bytes(path)


def _parse(text: str, path: str, line: int | None = None) -> dict[str, Any]:
    try:
        record = loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg} (column {exc.colno})"
            if line
            else f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            path=path,
            line=line,
        ) from exc
    problem = schema_problem(record)
    if problem:
        raise InputError(problem, path=path, line=line)
    return record


def _read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    named_file(path, "pass a task record file (JSON) or - for stdin")
    try:
        return Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise InputError(
            "no such file; pass a task record (JSON) or - for stdin", path=path
        ) from exc
    except IsADirectoryError as exc:
        raise InputError("is a directory; pass a task record file", path=path) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=path) from exc


def read_task(path: str) -> dict[str, Any]:
    """One task record from a JSON file (`-` reads stdin)."""
    shown = "<stdin>" if path == "-" else path
    return _parse(_decode(_read_bytes(path), shown), shown)


def read_tasks_jsonl(path: str) -> list[dict[str, Any]]:
    """Every task record of a JSONL file (`-` reads stdin); blank lines are ignored."""
    shown = "<stdin>" if path == "-" else path
    records = []
    for number, raw in enumerate(_read_bytes(path).split(b"\n"), start=1):
        if raw.strip():
            records.append(_parse(_decode(raw, shown, number), shown, number))
    return records
