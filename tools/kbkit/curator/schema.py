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
    """The wire schema with the enums of this call (catalog pages, batch events)."""
    schema: dict[str, Any] = json.loads(_load("proposal_schema.json"))
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


def item_schemas(targets: list[str], source_ids: list[str], max_rules: int) -> list[dict[str, Any]]:
    """The wire and the limits schema of one proposal row."""
    wire = wire_schema(targets, source_ids, max_rules)["properties"]["proposals"]["items"]
    local = limits_schema(max_rules)["properties"]["proposals"]["items"]
    return [wire, local]
