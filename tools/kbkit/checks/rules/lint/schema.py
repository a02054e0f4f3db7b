"""A team's own frontmatter JSON Schema (`frontmatter.schema`, per glob in `overrides:`).

The schema is written inline in the policy (YAML or JSON syntax), so it is part of the
policy's fingerprint and every cache follows it. Pages are validated with jsonschema
(draft 2020-12, format checker on: `format: date` accepts only real `YYYY-MM-DD` dates,
which the frontmatter loader keeps as written). Each problem is `lint/frontmatter-schema`
on the line of the top-level key it concerns.

A team's schema may `$ref` a built-in profile's schema (`urn:kbkit:frontmatter:<profile>`,
`kbkit.policy.frontmatter_schema`): its demands are the ones the hand-written checks already report
under their own rule ids, so an error that comes from it is dropped when the fast path
reported the same key (one cause, one finding); the rest of it still applies.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

from kbkit.checks.rules.lint import FRONTMATTER_SCHEMA
from kbkit.checks.rules.lint.fields import key_line, key_lines
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.page import Page
from kbkit.policy.frontmatter_schema import profile_uri, shipped
from kbkit.policy.model import PROFILES
from kbkit.rulebook.findings import Finding

_VALIDATORS: dict[str, Any] = {}
_MISSING = lazy(r"^required frontmatter field `(.*)` is missing$")
_BUILTIN_RULES = frozenset(
    {
        "lint/field-missing",
        "lint/type-invalid",
        "lint/date-invalid",
        "lint/tags-empty",
        "lint/tag-unknown",
        "lint/confidence-invalid",
    }
)


@functools.cache
def _builtin() -> tuple[Any, frozenset[int]]:
    """The registry of the built-in profiles' schemas and the ids of their subschemas (an
    error whose failing subschema is one of them comes from a built-in schema)."""
    from referencing import Registry, Resource

    schemas = [shipped(name) for name in PROFILES]
    registry = Registry().with_resources(
        (profile_uri(name), Resource.from_contents(schema))
        for name, schema in zip(PROFILES, schemas, strict=True)
    )
    return registry, frozenset(_node_ids(schemas))


def _node_ids(value: Any) -> Iterable[int]:
    if isinstance(value, dict):
        yield id(value)
        for inner in value.values():
            yield from _node_ids(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _node_ids(inner)


def _validator(schema: dict[str, Any]) -> Any:
    key = json.dumps(schema, sort_keys=True, default=str)
    found = _VALIDATORS.get(key)
    if found is None:
        from jsonschema import Draft202012Validator, FormatChecker

        found = Draft202012Validator(schema, registry=_builtin()[0], format_checker=FormatChecker())
        _VALIDATORS[key] = found
    return found


def reported_keys(page: Page, findings: Iterable[Finding]) -> set[str]:
    """The top-level frontmatter keys the built-in frontmatter findings of a page concern."""
    lines = {line: key for key, line in reversed(key_lines(page).items())}
    keys = set()
    for finding in findings:
        if finding.rule_id not in _BUILTIN_RULES:
            continue
        missing = _MISSING.match(finding.message)
        key = missing[1] if missing else lines.get(finding.line)
        if key is not None:
            keys.add(key)
    return keys


def error_key(error: Any) -> str | None:
    """The top-level key a jsonschema error concerns (a missing one for `required`)."""
    if error.absolute_path:
        return str(error.absolute_path[0])
    if error.validator == "required":  # one error per missing key, named in its message
        for key in error.validator_value:
            if error.message == f"{key!r} is a required property":
                return str(key)
    return None


def schema_findings(
    page: Page, schema: dict[str, Any] | None, reported: set[str] | None = None
) -> list[Finding]:
    """One finding per schema error of the page's frontmatter mapping (`reported`: the keys
    the built-in checks reported, whose errors from a built-in schema are dropped)."""
    meta = page.frontmatter.data
    if schema is None or meta is None:
        return []
    errors = sorted(_validator(schema).iter_errors(meta), key=lambda e: [str(p) for p in e.path])
    if reported:
        builtin = _builtin()[1]
        errors = [e for e in errors if not (id(e.schema) in builtin and error_key(e) in reported)]
    if not errors:
        return []
    lines = key_lines(page)
    out = []
    for error in errors:
        path = list(error.absolute_path)
        if not path and error.instance is not meta:
            # jsonschema leaves the path empty for a `false` subschema: find the key by identity
            path = [key for key, value in meta.items() if value is error.instance][:1]
        where = ".".join(map(str, path)) or "frontmatter"
        line = key_line(page, str(path[0]), lines) if path else page.frontmatter.start_line or 1
        out.append(FRONTMATTER_SCHEMA.at(page.path, line, f"{where}: {error.message}"))
    return out
