"""Policies: every threshold, label, pattern, root and folder name the checks use.

A policy is the built-in `default` profile with overrides merged over it (mappings merge key
by key, lists and scalars replace). Sources, first match wins: `--policy FILE`, `--policy
NAME` (a built-in profile), `<repo>/kbkit.yaml`, `<repo>/knowledge/policy.yaml`, a
`<repo>/<folder>/policy.yaml` that says `knowledge_root: <folder>` (the policy follows the
tree: a Middleman site keeps `source/policy.yaml`), the `default` profile. A policy file may
say `extends: NAME` to start from another built-in profile.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.infra import boundary
from kbkit.infra.errors import UsageError
from kbkit.pages.frontmatter import FrontmatterLoader
from kbkit.policy.schema import check_schema, read_policy_text

PROFILES = (
    "default",
    "infermatrix",
    "infermatrix-sdk",
    "public-docs",
    "mkdocs",
    "mdbook",
    "docfx",
    "hugo",
    "sphinx",
    "jekyll",
    "docusaurus",
)
POLICY_FILE = "policy.yaml"
TOP_LEVEL_FILE = "kbkit.yaml"
WHOLE_ROOT = (".", "")  # a root that names the knowledge root itself


class Policy(NamedTuple):
    data: dict[str, Any]
    source: str  # where it came from, for messages
    file: str = ""  # the policy file, "" for a built-in profile

    def limit(self, name: str) -> int:
        return int(self.data["limits"][name])

    @property
    def path(self) -> Path | None:
        """The policy file, or None for a built-in profile."""
        return Path(self.file) if self.file else None

    @property
    def whole_root(self) -> bool:
        """`roots: ["."]`: the knowledge root itself is the root (pages at its top included)."""
        return any(str(root).strip("/") in WHOLE_ROOT for root in self.data["roots"])

    def under_roots(self, rel: str) -> bool:
        """Whether a root-relative folder or page path lies in a root (a root folder itself
        included; with `roots: ["."]` every path, the knowledge root's own pages too)."""
        if self.whole_root:
            return True
        return bool(rel) and rel.split("/", 1)[0] in self.data["roots"]

    @property
    def page_suffixes(self) -> tuple[str, ...]:
        """The file suffixes read as pages (`pages.extensions`; `.md` unless a site
        publishes more, such as Docusaurus' `.mdx`)."""
        found = (self.data.get("pages") or {}).get("extensions") or (".md",)
        return tuple(dict.fromkeys(map(str, found)))

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
    return (Path(__file__).parent / "profiles" / f"{name}.yaml").read_text("utf-8")


def _load_yaml(text: str, source: str, trusted: bool = False) -> dict[str, Any]:
    """The policy mapping of `text` (an alias bomb or a huge integer refused by the loader's
    limits, `kbkit.infra.bounded_yaml`), checked against `policy.schema.json` (every key
    optional: files override profiles). `trusted`: a built-in profile, which
    tests/policy/test_policy_schema.py validates."""
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
    if not trusted:
        check_schema(value, text, source)
    return value


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; lists and scalars replace (both sides already validated)."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def builtin_policy(name: str) -> Policy:
    if name not in PROFILES:
        raise UsageError(
            f"unknown policy profile {name!r}; built-in profiles: {', '.join(PROFILES)}"
        )
    base = _profile_data("default")
    if name == "default":
        return Policy(copy.deepcopy(base), "built-in profile 'default'")
    override = dict(_profile_data(name))  # (`_merge` copies what it keeps of either side)
    parent = str(override.pop("extends", "default"))  # a profile may build on another one
    if parent != "default":
        base = builtin_policy(parent).data
    return Policy(_merge(base, override), f"built-in profile {name!r}")


@functools.cache  # a policy file reads the default profile twice (the lookup, then `extends`)
def _profile_data(name: str) -> dict[str, Any]:
    """A built-in profile's mapping, parsed once per process; callers copy what they keep."""
    source = "default policy" if name == "default" else f"built-in profile {name!r}"
    return _load_yaml(_profile_text(name), source, trusted=True)


def policy_from_file(path: Path) -> Policy:
    text = read_policy_text(path)
    override = _load_yaml(text, str(path))
    parent = override.pop("extends", "default")
    if not isinstance(parent, str):
        raise UsageError(f"{path}: 'extends' must name a built-in profile")
    base = builtin_policy(parent)
    return Policy(_merge(base.data, override), str(path), str(path))


def load_policy(repo: Path, spec: str | None = None) -> Policy:
    """The effective policy for `repo` (see the module docstring for the lookup order),
    refused (exit 2) when its knowledge root leads outside the repository
    (`kbkit.infra.boundary`)."""
    policy = _find_policy(repo, spec)
    boundary.knowledge_top(repo, policy.knowledge_root, policy.file)
    return policy


def _find_policy(repo: Path, spec: str | None) -> Policy:
    if spec:
        candidate = Path(spec)
        if candidate.suffix in (".yaml", ".yml") or "/" in spec or _present(candidate):
            if not candidate.is_absolute() and not candidate.exists():
                candidate = repo / spec
            if not _present(candidate):
                raise UsageError(f"--policy {spec}: no such file")
            return policy_from_file(candidate)
        return builtin_policy(spec)
    default = builtin_policy("default")
    for candidate in (repo / TOP_LEVEL_FILE, repo / default.knowledge_root / POLICY_FILE):
        if candidate.parent != repo:  # a usual root that leads outside: say so, not its file
            boundary.knowledge_top(repo, default.knowledge_root)
        _refuse_link(repo, candidate)
        if _present(candidate):
            return policy_from_file(candidate)
    beside = [
        path
        for path in sorted(repo.glob(f"*/{POLICY_FILE}"))
        if boundary.within(repo, path) and _names_its_folder(path)
    ]
    if len(beside) > 1:
        shown = ", ".join(str(path.relative_to(repo)) for path in beside)
        raise UsageError(
            f"{repo}: more than one policy names its folder as knowledge_root ({shown}); choose one with --policy"
        )
    return policy_from_file(beside[0]) if beside else default


def _refuse_link(repo: Path, candidate: Path) -> None:
    """A policy file the repository holds as a symlink must lead to a file inside the
    repository. A broken link is an error, not a missing policy: whoever made it meant a
    policy, and checking (or fixing) the tree against the defaults instead would pass or
    change pages by rules nobody chose."""
    if not os.path.lexists(candidate):
        return
    boundary.confine(repo, candidate, "the policy file")
    if boundary.is_link(candidate) and not candidate.exists():
        raise UsageError(
            f"{boundary.shown(candidate, repo)}: the policy file is a broken symlink (its "
            "target does not exist); fix the link or remove it to use the default policy"
        )


def _present(path: Path) -> bool:
    """Something other than a folder is there: a policy file, or a FIFO or a device in its
    place, which reading then refuses (exit 2) instead of passing over it."""
    return path.exists() and not path.is_dir()


def _names_its_folder(path: Path) -> bool:
    """Whether `path` (`<folder>/policy.yaml`) says `knowledge_root: <folder>` at the top
    level: a cheap test, so that another tool's policy.yaml is never parsed as kbkit's."""
    folder = re.escape(path.parent.name)
    pattern = re.compile(rf"^knowledge_root:\s*(['\"]?){folder}/?\1\s*(#.*)?$", re.M)
    try:
        return pattern.search(read_policy_text(path)) is not None
    except UsageError:
        return False


def defaults_note(policy: Policy) -> str:
    """What applies when no policy file was found (empty for a policy file)."""
    if policy.file:
        return ""
    data = policy.data
    return (
        f"kbkit: no policy file found ({TOP_LEVEL_FILE}, {data['knowledge_root']}/{POLICY_FILE}, "
        f"or <folder>/{POLICY_FILE} with knowledge_root: <folder>); using the {policy.source}: "
        f"knowledge_root {data['knowledge_root']}, roots {', '.join(map(str, data['roots']))}\n"
    )
