"""The intake JSON Schemas, shipped as files in the package, and one validator per schema.

They are the one source of every limit on both sides: the writers (`record-git`,
`record-prs`, `drop`, `collect`, the mailbox) shape their rows with the limits read here,
and `kb intake check` validates with the same files, so no writer records a row its
checker rejects (tests/intake/test_row_schema.py holds them to it with generated input).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).with_name("schemas")
EVENTS = "events.schema.json"
STATUS = "status.schema.json"
DROP_RECORD = "drop-record-v1.schema.json"
NAMES = (EVENTS, STATUS, DROP_RECORD)


def schema_path(name: str) -> Path:
    """The file of one schema (pass it to `check-jsonschema --schemafile`)."""
    return SCHEMA_DIR / name


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema document."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


@functools.cache
def _validator(name: str) -> Any:
    # jsonschema costs ~100 ms to import: only commands that validate pay for it.
    import jsonschema
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resources(
        (other, Resource.from_contents(load_schema(other))) for other in NAMES
    )
    cls = jsonschema.validators.validator_for(load_schema(name))
    return cls(load_schema(name), registry=registry)


def definition(name: str, key: str) -> dict[str, Any]:
    """A `$defs` entry of a schema (e.g. the events schema's `merged_pr` row)."""
    found: dict[str, Any] = load_schema(name)["$defs"][key]
    return found


def full_match(name: str, key: str) -> re.Pattern[str]:
    """A `$defs` string's `pattern` and `maxLength` as one regex for `re.match`."""
    found = definition(name, key)
    length = found.get("maxLength")
    body = str(found["pattern"]).removeprefix("^")
    bound = rf"(?=[\s\S]{{0,{length}}}(?![\s\S]))" if isinstance(length, int) else ""
    return re.compile(f"^{bound}{body}")


CUT_MARKER = "… [cut by kbkit: {} more chars]"


def fit_to_schema(value: Any, schema: dict[str, Any], where: str, cuts: list[str]) -> Any:
    """`value` with every over-long string cut to the schema's `maxLength` (ending in a
    visible marker) and every over-long list cut to `maxItems`; `cuts` names each cut."""
    if isinstance(value, str):
        limit = schema.get("maxLength")
        if isinstance(limit, int) and len(value) > limit:
            kept = max(0, limit - len(CUT_MARKER.format(len(value))))  # the widest marker
            cuts.append(f"{where} ({len(value)} > {limit} chars)")
            return value[:kept] + CUT_MARKER.format(len(value) - kept)
        return value
    if isinstance(value, list):
        limit = schema.get("maxItems")
        if isinstance(limit, int) and len(value) > limit:
            cuts.append(f"{where} ({len(value)} > {limit} items)")
            value = value[:limit]
        found = schema.get("items")
        items: dict[str, Any] = found if isinstance(found, dict) else {}
        return [fit_to_schema(v, items, f"{where}[{i}]", cuts) for i, v in enumerate(value)]
    if isinstance(value, dict):
        given = schema.get("properties")
        props: dict[str, Any] = given if isinstance(given, dict) else {}
        return {
            k: fit_to_schema(v, props.get(k, {}), f"{where}.{k}" if where else k, cuts)
            for k, v in value.items()
        }
    return value


def schema_errors(name: str, instance: Any) -> list[str]:
    """Every violation of schema `name`, as `at <json path>: message` strings (empty = valid)."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"at {error.json_path}: {_short(error.message)}" for error in errors]


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
