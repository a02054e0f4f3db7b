"""The two proposal schemas shipped with the package, loaded once and filled in per call.

`proposal_schema.json` is the portable wire schema handed to a model provider: strict
(`additionalProperties: false`, every property required, optional values nullable) and
free of length, pattern and range keywords. `proposal_limits.json` holds the stricter local
limits. The prompt renderer reads the field descriptions from the wire schema, and the
validator checks every row against both.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.cache
def _load(name: str) -> str:
    return resources.files("kbkit.curator").joinpath(name).read_text("utf-8")


def wire_schema(targets: list[str], source_ids: list[str], max_rules: int) -> dict[str, Any]:
    """The wire schema with the enums of this call (catalog pages, batch events), each
    field's local limit stated in its description (the wire schema carries no length or
    count keyword, and a model must not be refused for a limit it was never told)."""
    schema: dict[str, Any] = json.loads(_load("proposal_schema.json"))
    _describe_limits(schema["properties"]["proposals"]["items"])
    items = schema["properties"]["proposals"]["items"]["properties"]
    items["target"]["enum"] = list(targets)
    if source_ids:  # without a batch there is nothing to enumerate (an empty enum admits nothing)
        items["citations"]["items"]["enum"] = list(source_ids)
    proposals = schema["properties"]["proposals"]
    proposals["description"] = f"{proposals['description']} At most {max_rules} entries."
    return schema


def limits_schema(max_rules: int) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(_load("proposal_limits.json"))
    schema["properties"]["proposals"]["maxItems"] = max_rules
    return schema


def field_descriptions() -> dict[str, str]:
    """Each proposal field and what it means, in schema order (for the prompt)."""
    schema = json.loads(_load("proposal_schema.json"))
    props = schema["properties"]["proposals"]["items"]["properties"]
    return {name: str(spec["description"]) for name, spec in props.items()}


def limits_in_words() -> dict[str, str]:
    """Every local limit of a proposal row in words, by field path (`new_page.title`,
    `table_rows[].cells`): what the prompt lists, so each limit the validator applies is
    one the model was told."""
    item = json.loads(_load("proposal_limits.json"))["properties"]["proposals"]["items"]
    return dict(_limit_lines(item, ""))


# Patterns in proposal_limits.json, in words; a new one without words fails the schema test.
PATTERN_WORDS = {"^[^\\n\\r]+$": "one line", "^[^\\n\\r#]+$": "one line, without #"}


def _limit_lines(spec: dict[str, Any], path: str) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    words = _limit_words(spec)
    if words and path:
        lines.append((path, words))
    for name, child in spec.get("properties", {}).items():
        lines += _limit_lines(child, f"{path}.{name}" if path else name)
    if isinstance(spec.get("items"), dict) and path:
        lines += _limit_lines(spec["items"], f"{path}[]")
    return lines


def _limit_words(spec: dict[str, Any]) -> str:
    """One field's own bounds in words ("3 to 60 characters, one line")."""
    parts = []
    low, high = spec.get("minLength"), spec.get("maxLength")
    if high is not None:
        parts.append(f"{low} to {high} characters" if low else f"at most {high} characters")
    elif low:
        parts.append(f"at least {low} characters")
    if "pattern" in spec:
        parts.append(PATTERN_WORDS.get(spec["pattern"], f"matching {spec['pattern']}"))
    low, high = spec.get("minItems"), spec.get("maxItems")
    if high is not None:
        parts.append(f"{low} to {high} entries" if low else f"at most {high} entries")
    elif low:
        parts.append(f"at least {low} entries")
    if spec.get("uniqueItems"):
        parts.append("no entry twice")
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and high is not None:
        parts.append(f"from {low} to {high}")
    return ", ".join(parts)


def _describe_limits(wire_item: dict[str, Any]) -> None:
    """Append each limit to the description of the wire field it bounds."""
    for path, words in limits_in_words().items():
        node: dict[str, Any] | None = wire_item
        for step in path.replace("[]", ".[]").split("."):
            if node is None:
                break
            node = node.get("items") if step == "[]" else node.get("properties", {}).get(step)
        if node is not None and "description" in node:
            node["description"] = f"{node['description']} Limit: {words}."


def item_schemas(targets: list[str], source_ids: list[str], max_rules: int) -> list[dict[str, Any]]:
    """The wire and the limits schema of one proposal row."""
    wire = wire_schema(targets, source_ids, max_rules)["properties"]["proposals"]["items"]
    local = limits_schema(max_rules)["properties"]["proposals"]["items"]
    return [wire, local]
