"""The intake JSON Schemas, shipped as files in the package, and one validator per schema.

They are the one source of every limit on both sides: the writers (`record-git`,
`record-prs`, `drop`, `collect`, the mailbox) shape their rows with the limits read here,
and `kb intake check` validates with the same files, so no writer records a row its
checker rejects (tests/intake/test_row_schema.py holds them to it with generated input).
"""

from __future__ import annotations

import functools
import json
import math
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
    """Every violation of schema `name`, as `at <json path>: message` strings (empty = valid).
    A row that jsonschema-rs finds valid is valid (`_surely_valid`); any other is validated
    and its errors worded by jsonschema, the oracle."""
    if _surely_valid(name, instance):
        return []
    return oracle_errors(name, instance)


def oracle_errors(name: str, instance: Any) -> list[str]:
    """`schema_errors` as jsonschema alone gives them."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"at {error.json_path}: {_short(error.message)}" for error in errors]


# jsonschema walks each row through Python objects (its `$ref`s and `if`/`then`s), ~0.3 ms
# a row: 30 s for a 100k-row ledger in `kb intake check`, the pre-commit hook of the
# ledgers. jsonschema-rs, compiled, takes 3 us; it is trusted only to say that a row is
# valid. Its regex engine reads `\s` as Unicode's White_Space, where Python's re (which
# jsonschema uses) also counts these characters, so a row holding one of them in any
# string goes to jsonschema (tests/intake/test_fast_schema.py compares every code point
# under every pattern of the schemas, and whole rows). So do numbers outside what both read
# alike (integers beyond 64 bits, floats that are not finite).
DIVERGENT_SPACES = "\x1c\x1d\x1e\x1f\x85\ufeff"
_DIVERGENT: re.Pattern[str] = re.compile(f"[{DIVERGENT_SPACES}]")
_INT_BOUND = 1 << 63


@functools.cache
def _fast_validator(name: str) -> Any:
    """jsonschema-rs's validator of schema `name` (the other schemas registered for its
    `$ref`s), or None where its wheel cannot be imported or cannot build it."""
    try:
        import jsonschema_rs
    except ImportError:  # no wheel for this platform: jsonschema decides every row
        return None
    try:
        registry = jsonschema_rs.Registry([(other, load_schema(other)) for other in NAMES])
        return jsonschema_rs.validator_for(load_schema(name), registry=registry)
    except Exception:  # a release that cannot build it (the pin is tested): the same
        return None


def _surely_valid(name: str, instance: Any) -> bool:
    """Whether jsonschema-rs finds `instance` valid, where it reads it as jsonschema does."""
    fast = _fast_validator(name)
    if fast is None or not _read_alike(instance):
        return False
    try:
        return bool(fast.is_valid(instance))
    except Exception:  # a value it cannot take (a lone surrogate): jsonschema decides
        return False


def _read_alike(value: Any) -> bool:
    """Whether every string, key and number of a JSON value is one both validators read
    alike (see DIVERGENT_SPACES). One pass without recursion, and one search over all the
    value's strings: this runs on every ledger row."""
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            texts.append(item)
        elif kind is dict:
            texts.extend(item)  # JSON keys are strings
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not -_INT_BOUND <= item < _INT_BOUND:
                return False
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif item is not None and kind is not bool:
            return False  # not a JSON value as json.loads gives it
    try:
        joined = "".join(texts)
    except TypeError:  # a key that is not a string: no row json.loads gives
        return False
    return _DIVERGENT.search(joined) is None


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
