"""The wire schema is portable and strict; the limits schema carries the local bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from kbkit.curator import KnowledgeCurator
from kbkit.curator.schema import limits_schema, wire_schema
from tests.curator.conftest import WRITING, batch, row

FORBIDDEN = {
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "format",
    "uniqueItems",
}


def _objects(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "object" or (isinstance(kind, list) and "object" in kind):
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_objects(value))
    return found


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _keys(v)}
    return set()


def test_wire_schema_is_strict_and_portable(clone: Path) -> None:
    curator = KnowledgeCurator(clone)
    b = batch("PR #101", "PR #102")
    schema = curator.proposal_schema(max_rules=b.max_rules, batch=b)
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    objects = _objects(schema)
    assert len(objects) == 5  # the reply, a proposal row, a table row, a new page, its index row
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    assert not _keys(schema) & FORBIDDEN
    item = schema["properties"]["proposals"]["items"]["properties"]
    assert WRITING in item["target"]["enum"]
    assert item["citations"]["items"]["enum"] == ["PR #101", "PR #102"]
    assert item["after"]["type"] == ["string", "null"]
    assert Draft202012Validator(schema).is_valid({"proposals": [row()]})
    assert not Draft202012Validator(schema).is_valid({"proposals": [{**row(), "extra": 1}]})
    assert not Draft202012Validator(schema).is_valid({"proposals": [row(target="x/rules")]})


def test_limits_schema_holds_the_bounds() -> None:
    limits = limits_schema(3)
    Draft202012Validator.check_schema(limits)
    assert limits["properties"]["proposals"]["maxItems"] == 3
    assert _keys(limits) & FORBIDDEN
    wire = wire_schema(["a"], ["PR #1"], 3)
    assert "maxItems" not in wire["properties"]["proposals"]


def test_schema_defaults_to_the_last_prompts_batch(clone: Path) -> None:
    import pytest

    from kbkit.curator import InvalidRequestError

    curator = KnowledgeCurator(clone)
    b = batch("PR #7")
    curator.build_prompt(b)
    schema = curator.proposal_schema(max_rules=b.max_rules)
    item = schema["properties"]["proposals"]["items"]["properties"]
    assert item["citations"]["items"]["enum"] == ["PR #7"]
    with pytest.raises(InvalidRequestError, match="batch"):
        curator.build_prompt({"events": []})  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError, match="validation"):
        curator.apply({"proposals": []})  # type: ignore[arg-type]


LIMIT_KEYWORDS = {"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
                  "minimum", "maximum"}  # fmt: skip


def _bounded_fields(spec: dict, path: str = "") -> list[str]:
    """Every field path of the local limits that carries a bound."""
    found = [path] if path and LIMIT_KEYWORDS & set(spec) else []
    for name, child in spec.get("properties", {}).items():
        found += _bounded_fields(child, f"{path}.{name}" if path else name)
    if isinstance(spec.get("items"), dict) and path:
        found += _bounded_fields(spec["items"], f"{path}[]")
    return found


def test_every_local_limit_is_stated_in_the_prompt_and_the_wire_schema(clone: Path) -> None:
    """A model is refused only for limits it was told: each bound of proposal_limits.json
    (the citation cap of 8 among them) is in the prompt's Limits and in the wire field's
    description, in words."""
    from kbkit.curator.schema import PATTERN_WORDS, limits_in_words

    item = limits_schema(3)["properties"]["proposals"]["items"]
    fields = _bounded_fields(item)
    assert "citations" in fields and "table_rows[].cells[]" in fields
    words = limits_in_words()
    assert sorted(words) == sorted(fields)
    assert words["citations"] == "1 to 8 entries, no entry twice"
    assert words["group"] == "2 to 120 characters, one line, without #"
    prompt = KnowledgeCurator(clone).build_prompt(batch("PR #7")).text
    limits = prompt.split("# Limits", 1)[1].split("\n# ", 1)[0]
    for path in fields:
        assert f"- `{path}`: {words[path]}" in limits
    wire = wire_schema(["a"], ["PR #1"], 3)["properties"]["proposals"]["items"]
    for path in fields:
        node = wire
        for step in path.replace("[]", ".[]").split("."):
            node = node["items"] if step == "[]" else node["properties"][step]
        if "description" in node:
            assert node["description"].endswith(f" Limit: {words[path]}.")
    patterns = [spec["pattern"] for spec in _walk(item) if "pattern" in spec]
    assert patterns and all(p in PATTERN_WORDS for p in patterns)


def _walk(spec: dict) -> list[dict]:
    found = [spec]
    for child in spec.get("properties", {}).values():
        found += _walk(child)
    if isinstance(spec.get("items"), dict):
        found += _walk(spec["items"])
    return found
