"""The small JSON state files intake keeps beside its ledgers (the PR cursor, the mailbox's
remembered refusals): `{"version": 1, KEY: {...}}`, read whole, replaced atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbkit.infra.errors import InputError
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import atomic_write_text


def read_state(path: Path, key: str, *, invalid: str, expected: str) -> dict[str, Any]:
    """The object under `key` ({} while the file does not exist); an InputError naming the file
    says `invalid` when it is not JSON, `expected` when its shape is another."""
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(invalid, path=str(path)) from exc
    found = data.get(key) if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise InputError(expected, path=str(path))
    return found


def write_state(path: Path, key: str, values: dict[str, str]) -> None:
    """Replace the file atomically with `values`, sorted, under `key` (the caller holds its lock)."""
    document = {"version": 1, key: dict(sorted(values.items()))}
    atomic_write_text(path, json.dumps(document, indent=2) + "\n")
