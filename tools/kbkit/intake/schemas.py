"""The intake JSON Schemas, shipped as files in the package, and one validator per schema."""

from __future__ import annotations

import functools
import json
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


def schema_errors(name: str, instance: Any) -> list[str]:
    """Every violation of schema `name`, as `at <json path>: message` strings (empty = valid)."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"at {error.json_path}: {_short(error.message)}" for error in errors]


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
