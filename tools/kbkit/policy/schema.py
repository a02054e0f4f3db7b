"""Policy validation: the shipped JSON Schema and a size cap.

A policy is configuration a team writes by hand, so every mistake is a usage error that
names the key and its line: an unquoted `roots: [5.1, 7.4]` is a list of numbers, not of
folder names, and must not silently check a third of the tree. (YAML aliases and huge
integers are the loader's limits: `kbkit.infra.bounded_yaml`.)
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.infra.config_file import read_config_text
from kbkit.infra.errors import UsageError
from kbkit.pages.frontmatter import FrontmatterLoader

MAX_POLICY_BYTES = 256 * 1024  # a real policy is a few KiB; a taxonomy of thousands of tags fits
SCHEMA_FILE = Path(__file__).with_name("policy.schema.json")


@functools.cache
def policy_schema() -> dict[str, Any]:
    """The policy JSON Schema shipped in the package (draft 2020-12)."""
    return dict(json.loads(SCHEMA_FILE.read_text("utf-8")))


def read_policy_text(path: Path) -> str:
    """The text of a policy file: a regular file of at most MAX_POLICY_BYTES, UTF-8."""
    return read_config_text(path, MAX_POLICY_BYTES, "the policy file")


def check_schema(data: dict[str, Any], text: str, source: str) -> None:
    """Raise a UsageError naming the first key (and its line) that breaks the schema, or a
    rule id that no validator has."""
    schema = policy_schema()
    error = first_error(data, schema, schema, [])
    if error is not None:
        raise UsageError(_located(source, text, error.path, error.message))
    for path, frontmatter_schema in _frontmatter_schemas(data):
        from jsonschema import Draft202012Validator, SchemaError

        try:
            Draft202012Validator.check_schema(frontmatter_schema)
        except SchemaError as exc:
            message = f"not a valid JSON Schema: {exc.message}"
            raise UsageError(_located(source, text, path, message)) from exc
        unresolved = _unresolved_ref(frontmatter_schema, path)
        if unresolved is not None:
            from kbkit.policy.frontmatter_schema import builtin_uris

            message = (
                f"$ref {unresolved[1]!r} names no schema kbkit has: refer inside the schema "
                f"('#/$defs/x') or to a built-in one ({', '.join(sorted(builtin_uris()))})"
            )
            raise UsageError(_located(source, text, unresolved[0], message))
    for path, rule_id in _severity_keys(data):
        if rule_id not in _known_rules():
            from kbkit.rulebook.rule import unknown_rule

            known = sorted(_known_rules())
            raise UsageError(_located(source, text, path, unknown_rule(rule_id, known)))


class SchemaProblem(NamedTuple):
    path: list[Any]  # keys and indexes down to the offending value
    message: str


def first_error(
    value: Any, schema: dict[str, Any], root: dict[str, Any], path: list[Any]
) -> SchemaProblem | None:
    """The first way `value` breaks `schema`, for the JSON Schema subset the policy schema
    uses. Hand-written because building a jsonschema validator costs more than a whole
    warm `kb check`; jsonschema stays the oracle (tests/policy/test_policy_schema.py)."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return first_error(value, root["$defs"][name], root, path)
    if "type" in schema:
        wanted = schema["type"]
        wanted = [wanted] if isinstance(wanted, str) else list(wanted)
        if not any(_is_type(value, kind) for kind in wanted):
            shown = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted)
            got = type(value).__name__
            return SchemaProblem(path, f"must be {shown}, got {got} {_short(value)}")
    if "const" in schema and not _same(value, schema["const"]):
        return SchemaProblem(path, f"must be {schema['const']!r}")
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        return SchemaProblem(path, _not_one_of(value, schema["enum"]))
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return SchemaProblem(path, "must not be empty")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return SchemaProblem(path, f"{value!r} does not match {schema['pattern']!r}")
        if schema.get("format") == "regex":
            try:
                re.compile(value)
            except re.error as exc:
                return SchemaProblem(path, f"{value!r} is not a valid regular expression ({exc})")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            return SchemaProblem(path, f"must be at least {schema['minimum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return SchemaProblem(path, f"must be more than {schema['exclusiveMinimum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return SchemaProblem(path, f"needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            for index, item in enumerate(value):
                found = first_error(item, schema["items"], root, [*path, index])
                if found is not None:
                    return found
    if isinstance(value, dict):
        return _object_error(value, schema, root, path)
    return None


def _object_error(
    value: dict[Any, Any], schema: dict[str, Any], root: dict[str, Any], path: list[Any]
) -> SchemaProblem | None:
    for name in schema.get("required", ()):
        if name not in value:
            return SchemaProblem(path, f"{name!r} is a required property")
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    names = schema.get("propertyNames", {}).get("pattern")
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        where = [*path, key]
        if not isinstance(key, str):
            return SchemaProblem(where, f"keys must be text, got {type(key).__name__}")
        if names is not None and not re.search(names, key):
            return SchemaProblem(where, f"{key!r} does not match {names!r}")
        matched = False
        if key in properties:
            matched = True
            found = first_error(item, properties[key], root, where)
            if found is not None:
                return found
        for pattern, subschema in patterns.items():
            if re.search(pattern, key):
                matched = True
                found = first_error(item, subschema, root, where)
                if found is not None:
                    return found
        if matched:
            continue
        if extra is False:
            known = ", ".join(sorted(properties))
            message = "unknown policy key" + did_you_mean(key, properties)
            message += f" (known here: {known})" if known else ""
            return SchemaProblem(where, message)
        if isinstance(extra, dict):
            found = first_error(item, extra, root, where)
            if found is not None:
                return found
    return None


def did_you_mean(typed: str, known: Iterable[str]) -> str:
    """`: did you mean 'x'?` for the known name closest to a typo, or nothing."""
    import difflib

    close = difflib.get_close_matches(str(typed), sorted(known), n=1, cutoff=0.6)
    return f": did you mean {close[0]!r}?" if close else ""


def _not_one_of(value: Any, options: list[Any]) -> str:
    """`'warn' is not one of: off, warning or error; did you mean 'warning'?` in plain
    words (an option YAML would read as false, as an unquoted off, is not listed twice)."""
    words = [o for o in options if isinstance(o, str)]
    shown = [*words, *(_yaml_word(o) for o in options if not isinstance(o, str))]
    shown = [word for word in dict.fromkeys(shown) if word not in ("false",) or "off" not in words]
    listed = ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]
    hint = did_you_mean(str(value), words).replace(": did", "; did", 1)
    return f"{_yaml_word(value)} is not one of: {listed}{hint}"


def _yaml_word(value: Any) -> str:
    """A value as a policy file writes it: text quoted, true/false/empty as YAML spells them."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "empty" if value is None else str(value)


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    python = {"string": str, "boolean": bool, "array": list, "object": dict}.get(kind)
    return value is None if kind == "null" else python is not None and isinstance(value, python)


def _same(value: Any, option: Any) -> bool:
    """JSON equality: `false` is not `0`."""
    return type(value) is type(option) and value == option


_TYPE_WORDS = {
    "array": "a list",
    "object": "a mapping",
    "string": "text (quote it)",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
}


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _frontmatter_schemas(data: dict[str, Any]) -> Iterable[tuple[list[Any], Any]]:
    schema = (data.get("frontmatter") or {}).get("schema")
    if schema is not None:
        yield ["frontmatter", "schema"], schema
    for i, override in enumerate(data.get("overrides") or []):
        schema = (override.get("frontmatter") or {}).get("schema")
        if schema is not None:
            yield ["overrides", i, "frontmatter", "schema"], schema


def _unresolved_ref(schema: Any, path: list[Any]) -> tuple[list[Any], str] | None:
    """The first `$ref` (its path, its value) that names neither a place in the schema
    itself, nor a resource it declares (`$id`), nor a built-in frontmatter schema: checked
    now, because jsonschema fails only when a page reaches it (a crash, not a finding)."""
    from kbkit.policy.frontmatter_schema import builtin_uris

    refs: list[tuple[list[Any], str]] = []
    ids: set[str] = set()
    stack: list[tuple[list[Any], Any]] = [(path, schema)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                ids.add(node["$id"].split("#", 1)[0])
            if isinstance(node.get("$ref"), str):
                refs.append(([*where, "$ref"], node["$ref"]))
            stack.extend(([*where, key], value) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend(([*where, i], value) for i, value in enumerate(node))
    known = ids | builtin_uris() | {""}
    return next((ref for ref in refs if ref[1].split("#", 1)[0] not in known), None)


def _severity_keys(data: dict[str, Any]) -> Iterable[tuple[list[Any], str]]:
    for key in data.get("rules") or {}:
        if "/" in str(key):
            yield ["rules", key], str(key)
    for i, override in enumerate(data.get("overrides") or []):
        for key in override.get("rules") or {}:
            yield ["overrides", i, "rules", key], str(key)


@functools.cache
def _known_rules() -> frozenset[str]:
    """Every rule id, from the schema's list (made from the rule declarations, which live
    with the checks above this layer: `kbkit.checks.rules.reference`)."""
    return frozenset(map(str, policy_schema()["$defs"]["rule_ids"]["enum"]))


def _located(source: str, text: str, path: list[Any], message: str) -> str:
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    line = key_line(text, path)
    prefix = f"{source}:{line}" if line else source
    return f"{prefix}: policy key {where or '(top level)'!r}: {message}"


def key_line(text: str, path: list[Any]) -> int:
    """The 1-based line of the node at `path` (mapping keys, list indexes) in YAML `text`,
    or of its nearest ancestor that exists; 0 when unknown."""
    try:
        node = yaml.compose(text, Loader=FrontmatterLoader)
    except yaml.YAMLError:
        return 0
    line = 0
    for step in path:
        if node is None:
            break
        line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if found is None:
                return line
            line, node = found[0].start_mark.line + 1, found[1]
            continue
        if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            line = node.start_mark.line + 1
            continue
        break
    return line
