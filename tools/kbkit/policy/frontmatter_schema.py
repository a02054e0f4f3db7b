"""The built-in frontmatter rules as a JSON Schema (draft 2020-12), generated from a policy.

The hand-written checks (`kbkit.checks.rules.lint.fields`) stay the fast path and report the rule
ids; this schema says the same in a form a team can read, copy and `$ref` from its own
`frontmatter.schema`, and jsonschema (format checker on) holds the fast path to it
(tests/checks/test_lint_frontmatter_oracle.py). Generated rather than hand-written, so a
policy that changes `frontmatter.types` or `required` gets the schema that matches; the
built-in profiles' schemas are shipped as `profiles/frontmatter/<profile>.schema.json` (a
test keeps them equal to this module's output; `python -m tests.checks.test_lint_frontmatter_oracle`
rewrites them) and registered under `profile_uri(NAME)`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbkit.infra.json_input import loads

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SHIPPED = Path(__file__).parent / "profiles" / "frontmatter"
_DATE = {"type": "string", "format": "date"}  # format: real YYYY-MM-DD dates only


def profile_uri(profile: str) -> str:
    """The `$id` a team's schema uses to `$ref` a built-in profile's frontmatter schema."""
    return f"urn:kbkit:frontmatter:{profile}"


def frontmatter_schema(
    frontmatter: dict[str, Any],
    required: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """The JSON Schema of what `frontmatter` (a policy's `frontmatter:` mapping) demands.

    `required` replaces the policy's list (a per-glob override), `tags` adds the taxonomy
    as the allowed tag values, `profile` names the schema (`$id`, title)."""
    item: dict[str, Any] = {"type": "string"}
    if tags is not None:
        item["enum"] = sorted(set(tags))
    schema: dict[str, Any] = {"$schema": DRAFT}
    if profile is not None:
        schema["$id"] = profile_uri(profile)
        schema["title"] = f"kbkit frontmatter, built-in profile {profile!r}"
    schema.update(
        {
            "type": "object",
            "required": list(map(str, frontmatter["required"] if required is None else required)),
            "properties": {
                "title": {"type": "string", "pattern": r"\S"},
                "type": {"enum": list(frontmatter["types"])},
                "created": dict(_DATE),
                "updated": dict(_DATE),
                "tags": {"type": "array", "minItems": 1, "items": item},
                "confidence": {"enum": list(frontmatter["confidence"])},
            },
        }
    )
    return schema


def builtin_uris() -> set[str]:
    """The `$id`s of the shipped built-in schemas."""
    return {
        profile_uri(path.name[: -len(".schema.json")]) for path in SHIPPED.glob("*.schema.json")
    }


@functools.cache
def shipped(profile: str) -> dict[str, Any]:
    """The shipped schema of a built-in profile (`profiles/frontmatter/<profile>.schema.json`)."""
    path = SHIPPED / f"{profile}.schema.json"
    value: dict[str, Any] = loads(path.read_text("utf-8"))
    return value
