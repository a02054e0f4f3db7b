"""Policies: every threshold, label, pattern, root and folder name the checks use.

A policy is the built-in `default` profile with overrides merged over it (mappings merge key
by key, lists and scalars replace). Sources, first match wins: `--policy FILE`, `--policy
NAME` (a built-in profile), `<repo>/knowledge/policy.yaml`, the `default` profile. A policy
file may say `extends: NAME` to start from another built-in profile.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.errors import UsageError
from kbkit.frontmatter import FrontmatterLoader

PROFILES = ("default", "infermatrix")
POLICY_FILE = "policy.yaml"


class Policy(NamedTuple):
    data: dict[str, Any]
    source: str  # where it came from, for messages

    def __getitem__(self, key: str) -> Any:  # type: ignore[override]
        return self.data[key]

    def limit(self, name: str) -> int:
        return int(self.data["limits"][name])

    @property
    def knowledge_root(self) -> str:
        return str(self.data["knowledge_root"]).strip("/")

    @property
    def fingerprint(self) -> str:
        """A stable hash of the effective policy (part of every cache key)."""
        blob = json.dumps(self.data, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@functools.cache
def _profile_text(name: str) -> str:
    return (Path(__file__).parent / "policies" / f"{name}.yaml").read_text("utf-8")


def _load_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        value = yaml.load(text, Loader=FrontmatterLoader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        line = (exc.problem_mark.line + 1) if exc.problem_mark else 1
        raise UsageError(f"{source}:{line}: invalid policy YAML: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise UsageError(f"{source}: invalid policy YAML: {exc}") from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{source}: a policy must be a YAML mapping, got {type(value).__name__}")
    return value


def _merge(
    base: dict[str, Any],
    override: dict[str, Any],
    schema: dict[str, Any],
    source: str,
    prefix: str = "",
) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        where = f"{prefix}{key}"
        if key not in schema:
            known = ", ".join(sorted(map(str, schema)))
            raise UsageError(f"{source}: unknown policy key {where!r} (known here: {known})")
        expected = schema[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise UsageError(f"{source}: policy key {where!r} must be a mapping")
            merged[key] = _merge(base.get(key, {}), value, expected, source, f"{where}.")
            continue
        _check_type(where, value, expected, source)
        merged[key] = value
    return merged


def _check_type(where: str, value: Any, expected: Any, source: str) -> None:
    if expected is None or value is None:
        return
    if isinstance(expected, bool):
        ok = isinstance(value, bool)
    elif isinstance(expected, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(expected, list):
        ok = isinstance(value, list)
    else:
        ok = isinstance(value, type(expected))
    if not ok:
        raise UsageError(
            f"{source}: policy key {where!r} must be a {type(expected).__name__}, "
            f"got {type(value).__name__}"
        )


def builtin_policy(name: str) -> Policy:
    if name not in PROFILES:
        raise UsageError(
            f"unknown policy profile {name!r}; built-in profiles: {', '.join(PROFILES)}"
        )
    base = _load_yaml(_profile_text("default"), "default policy")
    if name == "default":
        return Policy(base, "built-in profile 'default'")
    override = _load_yaml(_profile_text(name), f"built-in profile {name!r}")
    return Policy(
        _merge(base, override, base, f"built-in profile {name!r}"), f"built-in profile {name!r}"
    )


def policy_from_file(path: Path) -> Policy:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{path}: cannot read the policy file ({exc.__class__.__name__}: {exc})"
        ) from exc
    override = _load_yaml(text, str(path))
    parent = override.pop("extends", "default")
    if not isinstance(parent, str):
        raise UsageError(f"{path}: 'extends' must name a built-in profile")
    base = builtin_policy(parent)
    return Policy(_merge(base.data, override, base.data, str(path)), str(path))


def load_policy(repo: Path, spec: str | None = None) -> Policy:
    """The effective policy for `repo` (see the module docstring for the lookup order)."""
    if spec:
        candidate = Path(spec)
        if candidate.suffix in (".yaml", ".yml") or "/" in spec or candidate.is_file():
            if not candidate.is_absolute() and not candidate.exists():
                candidate = repo / spec
            if not candidate.is_file():
                raise UsageError(f"--policy {spec}: no such file")
            return policy_from_file(candidate)
        return builtin_policy(spec)
    default = builtin_policy("default")
    local = repo / default.knowledge_root / POLICY_FILE
    if local.is_file():
        return policy_from_file(local)
    return default
