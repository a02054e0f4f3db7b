"""A team's own frontmatter JSON Schema (`frontmatter.schema`, per glob in `overrides:`).

The schema is written inline in the policy (YAML or JSON syntax), so it is part of the
policy's fingerprint and every cache follows it. Pages are validated with jsonschema
(draft 2020-12, format checker on: `format: date` accepts only real `YYYY-MM-DD` dates,
which the frontmatter loader keeps as written). Each problem is `lint/frontmatter-schema`
on the line of the top-level key it concerns.
"""

from __future__ import annotations

import json
from typing import Any

from kbkit.checks.lint_fields import key_line, key_lines
from kbkit.findings import ERROR, Finding
from kbkit.page import Page

_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict[str, Any]) -> Any:
    key = json.dumps(schema, sort_keys=True, default=str)
    found = _VALIDATORS.get(key)
    if found is None:
        from jsonschema import Draft202012Validator, FormatChecker

        found = Draft202012Validator(schema, format_checker=FormatChecker())
        _VALIDATORS[key] = found
    return found


def schema_findings(page: Page, schema: dict[str, Any] | None) -> list[Finding]:
    """One finding per schema error of the page's frontmatter mapping."""
    meta = page.frontmatter.data
    if schema is None or meta is None:
        return []
    errors = sorted(_validator(schema).iter_errors(meta), key=lambda e: [str(p) for p in e.path])
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
        out.append(
            Finding(page.path, line, "lint/frontmatter-schema", ERROR, f"{where}: {error.message}")
        )
    return out
