"""Repository identity: the watched `owner/name` slug and the aliases that normalize to it.

Configured in `intake/config.yaml` (`repo: owner/name`, `aliases: {old/name: owner/name}`)
or on the command line (`--slug`, `--alias OLD=NEW`, which win over the file).

A repository has one spelling in the ledgers, whatever way it was named: GitHub's owner and
repository names compare case-insensitively, and `Owner/Name`, `owner/name.git`,
`https://github.com/owner/name` and `git@github.com:owner/name.git` are one repository. Every
entry point (options, the config file, PR scans, drop records, mailbox comments, the ledgers
read back) goes through `canonical_slug`, so the same PR is never recorded twice under two
spellings of its repository.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.infra.bounded_yaml import load_yaml, yaml_problem
from kbkit.infra.config_file import read_config_text
from kbkit.infra.errors import UsageError
from kbkit.intake.schemas import EVENTS, full_match

CONFIG_FILE = "config.yaml"
MAX_CONFIG_BYTES = 256 * 1024  # a slug and a table of aliases: a few hundred bytes
SLUG = full_match(EVENTS, "github_slug")  # owner/name, as the events schema has it
# Any host's repository path (`owner/name`, GitLab's `group/subgroup/project`): what a row's
# `repo` may hold, whichever source recorded it.
PROJECT_PATH = full_match(EVENTS, "slug")
_REMOTE = re.compile(r"github\.com[:/]+([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
# A repository URL on any host: https://HOST/o/r, ssh://git@HOST[:port]/o/r, git@HOST:o/r
_URL = re.compile(
    r"(?:(?:https?|ssh|git)://(?:[^@/\s]+@)?[^/\s]+/|[^@/:\s]+@[^/:\s]+:)"
    r"([^/\s]+/[^/\s]+?)/?"
)


def parse_slug(text: str) -> str | None:
    """The canonical `owner/name` (lower case, no `.git`) of a slug or a repository URL,
    or None when `text` names no repository (e.g. a nested `group/sub/project` path)."""
    text = text.strip()
    url = _URL.fullmatch(text)
    slug = url.group(1) if url else text
    if slug.lower().endswith(".git"):
        slug = slug[: -len(".git")]
    return slug.lower() if SLUG.match(slug) else None


def canonical_slug(text: str, where: str) -> str:
    """`parse_slug`, or a UsageError naming `where` (the option or file it came from)."""
    slug = parse_slug(text)
    if slug is None:
        raise UsageError(f"{where}: {text!r} is not a repository slug; write it as owner/name")
    return slug


class RepoIdentity(NamedTuple):
    """The watched slug (None: accept any) and aliases keyed by canonical old slug."""

    slug: str | None
    aliases: dict[str, str]

    def normalize(self, slug: str) -> str:
        """The canonical spelling of `slug`, aliases folded onto their target."""
        canonical = parse_slug(slug) or slug
        target = self.aliases.get(canonical, canonical)
        return parse_slug(target) or target

    def watches(self, slug: str) -> bool:
        """True when `slug` (after normalizing) is the watched repository."""
        return self.slug is None or self.normalize(slug) == self.normalize(self.slug)


def check_slug(slug: str, where: str) -> str:
    """The canonical spelling of `slug`; a UsageError naming `where` when it is none."""
    return canonical_slug(slug, where)


def slug_from_remote(url: str | None) -> str | None:
    """`owner/name` from a GitHub remote URL (https or ssh), else None (its case kept)."""
    match = _REMOTE.search(url or "")
    return match.group(1) if match and SLUG.match(match.group(1)) else None


def _read_config(intake_dir: Path) -> dict[str, Any]:
    """The mapping of `intake/config.yaml`: a regular file (a FIFO in its place is refused
    unopened), at most MAX_CONFIG_BYTES, loaded within the YAML limits."""
    path = intake_dir / CONFIG_FILE
    if not path.exists() or path.is_dir():
        return {}
    text = read_config_text(path, MAX_CONFIG_BYTES, "the intake configuration")
    try:
        data = load_yaml(text) or {}
    except yaml.YAMLError as exc:
        line, problem = yaml_problem(exc)
        where = f"{path}:{line}" if line else str(path)
        raise UsageError(f"{where}: not valid YAML ({problem}); fix the file") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping with `repo:` and `aliases:`")
    return data


def read_config(intake_dir: Path) -> dict[str, Any]:
    """`intake/config.yaml` as a mapping ({} when absent); other commands read their keys too."""
    return _read_config(intake_dir)


def watched_repos(intake_dir: Path) -> list[str]:
    """`repos:` of intake/config.yaml (an organization's central job scans each), each once
    in its canonical spelling; [] when absent; a bad list is a usage error naming the file."""
    listed = _read_config(intake_dir).get("repos")
    if listed is None:
        return []
    where = f"{intake_dir / CONFIG_FILE}: `repos`"
    if not isinstance(listed, list) or not all(isinstance(r, str) for r in listed):
        raise UsageError(f"{where} must be a list of owner/name")
    return list(dict.fromkeys(check_slug(r, where) for r in listed))


def load_identity(
    intake_dir: Path, slug: str | None = None, aliases: Sequence[str] = ()
) -> RepoIdentity:
    """Merge `intake/config.yaml` with `--slug` and `--alias OLD=NEW` options."""
    config = _read_config(intake_dir)
    where = str(intake_dir / CONFIG_FILE)
    watched = slug if slug is not None else config.get("repo")
    if watched is not None:
        if not isinstance(watched, str):
            raise UsageError(f"{where}: `repo` must be a string owner/name")
        watched = check_slug(watched, "--slug" if slug is not None else where)
    table = config.get("aliases") or {}
    if not isinstance(table, dict):
        raise UsageError(f"{where}: `aliases` must map old/name to owner/name")
    pairs = [(str(old), str(new), where) for old, new in table.items()]
    for option in aliases:
        old, sep, new = option.partition("=")
        if not sep:
            raise UsageError(f"--alias {option!r}: write it as OLD/NAME=OWNER/NAME")
        pairs.append((old.strip(), new.strip(), "--alias"))
    folded = {}
    for old, new, origin in pairs:
        folded[check_slug(old, origin)] = check_slug(new, origin)
    return RepoIdentity(watched, folded)
