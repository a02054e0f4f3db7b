"""Adapter manifests (L12–L17): the `knowledge:` block other tools read briefing docs from.

Manifests sit outside the knowledge root (`adapters/*/manifest.yaml` by default). Messages
and paths are repo-relative. A manifest that cannot be read or parsed, or whose top level is
not a mapping, is a finding, never an exception.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from kbkit.checks.rules.lint import (
    ADAPTER_CHECKLIST,
    ADAPTER_KEYS,
    ADAPTER_LIST,
    ADAPTER_RAW,
    ADAPTER_SHAPE,
    ADAPTER_YAML,
)
from kbkit.infra.errors import UsageError
from kbkit.infra.paths import rel_posix
from kbkit.pages.frontmatter import parse_yaml_mapping
from kbkit.rulebook.findings import Finding, quote
from kbkit.tree.model import Tree
from kbkit.tree.page_file import PageRefused, read_page_file


def adapter_findings(tree: Tree) -> list[Finding]:
    """L12–L17 for every manifest the policy's `adapters.glob` matches."""
    config = tree.policy.data["adapters"]
    out: list[Finding] = []
    pattern = str(config["glob"])
    try:
        paths = sorted(tree.repo.glob(pattern))
    except (ValueError, NotImplementedError) as exc:
        raise UsageError(
            f"policy key 'adapters.glob' {quote(pattern)} must be a repo-relative pattern ({exc})"
        ) from exc
    for path in paths:
        rel = rel_posix(path, tree.repo)
        try:
            data, _ = read_page_file(
                str(tree.repo), rel, tree.policy.limit("read_bytes"), "the repository"
            )
            text = data.decode("utf-8-sig")
        except PageRefused as refused:  # a FIFO, a device, a link out of the repository, too big
            out.append(ADAPTER_YAML.at(rel, 0, f"not read: {refused.message}"))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not valid UTF-8"
            out.append(ADAPTER_YAML.at(rel, 0, f"cannot read ({reason})"))
            continue
        out.extend(_manifest_findings(tree, rel, text.replace("\r\n", "\n")))
    return out


def _manifest_findings(tree: Tree, rel: str, text: str) -> list[Finding]:
    config = tree.policy.data["adapters"]
    data, error = parse_yaml_mapping(text, first_line=1)
    if error is not None:
        if "must be a mapping" in error.message:
            message = error.message.replace("frontmatter", "the manifest's top level")
            return [ADAPTER_SHAPE.at(rel, error.line, message)]
        return [ADAPTER_YAML.at(rel, error.line, error.message)]
    section_key = str(config["section"])
    if data is None or section_key not in data:
        return []
    section = data[section_key]
    line = _key_line(text, section_key)
    if not isinstance(section, dict):
        return [
            ADAPTER_SHAPE.at(
                rel, line, f"`{section_key}:` must be a mapping, got {type(section).__name__}"
            )
        ]
    out: list[Finding] = []
    allowed = [str(k) for k in config["keys"]]
    unknown = sorted(str(k) for k in section if str(k) not in allowed)
    if unknown:
        out.append(
            ADAPTER_KEYS.at(
                rel,
                line,
                f"unknown `{section_key}:` key(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(allowed)}",
            )
        )
    evidence = set(tree.policy.data["evidence_dirs"])
    for key in config["list_keys"]:
        if key not in section:
            continue
        value, key_at = section[key], _key_line(text, str(key))
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            out.append(ADAPTER_LIST.at(rel, key_at, f"`{key}` must be a list of strings"))
            continue
        out.extend(
            ADAPTER_RAW.at(
                rel,
                key_at,
                f"`{key}` entry {quote(doc)} points into the evidence layer; brief from synthesized pages",
            )
            for doc in value
            if _components(doc) & evidence
        )
    checklist_key = str(config["checklist_key"])
    if checklist_key in section:
        problem = _checklist_problem(tree, section[checklist_key], evidence)
        if problem:
            out.append(
                ADAPTER_CHECKLIST.at(
                    rel, _key_line(text, checklist_key), f"`{checklist_key}` {problem}"
                )
            )
    return out


def _checklist_problem(tree: Tree, value: Any, evidence: set[str]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"must be a page path (a string), got {type(value).__name__}"
    if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", value):
        return f"{quote(value)} must be relative to {tree.root}/"
    if _components(value) & evidence:
        return f"{quote(value)} points into the evidence layer"
    target = posixpath.normpath(value.replace("\\", "/"))
    if not tree.exists(target) or target in tree.folders:
        return f"{quote(value)} does not exist under {tree.root}/"
    return None


def _components(path: str) -> set[str]:
    return set(path.replace("\\", "/").split("/"))


def _key_line(text: str, key: str) -> int:
    """First line that starts a `key:` entry (0 when the key cannot be located)."""
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*:""")
    for index, line in enumerate(text.split("\n")):
        if pattern.match(line):
            return index + 1
    return 0
