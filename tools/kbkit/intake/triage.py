"""Triage: the changes that carry no rule, skipped before any model call (issue #39).

An organization merges many changes a day that teach nothing durable: dependency bumps,
bots' pull requests, documentation-only diffs, changes a team labels as such. Each would
spend a place in a distill batch and a share of a model call. `kb distill` asks `reason`
of every pending merged PR before it builds a batch; a change with a reason is marked
`skipped` in the status ledger with that reason (before any model call, no attempt
counted), and `kb intake requeue` returns it to pending, after which triage lets it through.

Configured in `intake/config.yaml`:

    triage:
      bots: true              # authors GitHub marks as apps (`name[bot]`), and `authors:`
      authors: [renovate-bot] # more authors whose changes carry no rule
      dependency_bumps: true  # titles like "Bump x from 1 to 2", "chore(deps): ..."
      docs_only: true         # every file of the diff is documentation
      labels: [dependencies]  # any of these labels
      titles: ['^\\[skip kb\\]']  # more title patterns (Python regular expressions)

`triage: false` switches it off. Without the key the defaults above apply (`authors`,
`titles` empty; `labels` [dependencies, skip-kb]).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.errors import UsageError
from kbkit.intake.diff_excerpt import DOCS, classify
from kbkit.intake.repo_identity import CONFIG_FILE, read_config

KEY = "triage"
DEPENDENCY_BUMP = re.compile(
    r"^(?:\[?(?:chore|build|fix|deps)\]?(?:\((?:deps|deps-dev|dependencies)\))?!?:\s*)?"
    r"(?:bump|update|upgrade)\s+\S+.*\bfrom\s+\S+\s+to\s+\S+"
    r"|^(?:chore|build|fix)\((?:deps|deps-dev|dependencies)\)!?:"
    r"|^(?:\[?deps\]?|dependencies):"
    r"|^update dependency \S+ to ",
    re.IGNORECASE,
)
DEFAULT_LABELS = ("dependencies", "skip-kb")
_FILE = re.compile(r"^diff --git a/\S+ b/(\S+)$", re.MULTILINE)


class Triage(NamedTuple):
    enabled: bool = True
    bots: bool = True
    authors: frozenset[str] = frozenset()
    dependency_bumps: bool = True
    docs_only: bool = True
    labels: frozenset[str] = frozenset(DEFAULT_LABELS)
    titles: tuple[re.Pattern[str], ...] = ()

    def reason(self, event: Mapping[str, Any]) -> str | None:
        """Why `event` carries no rule (the `skipped` row's reason), or None: distill it."""
        if not self.enabled or event.get("source_kind") != "merged_pr":
            return None  # a bugfix run or a promoted lesson is always evidence
        author = str(event.get("author") or "")
        if self.bots and author.lower().endswith("[bot]"):
            return f"triage: a bot's change (author {author})"
        if author.lower() in self.authors:
            return f"triage: author {author} is listed under triage.authors"
        labels = [str(label) for label in event.get("labels") or []]
        hit = [label for label in labels if label.lower() in self.labels]
        if hit:
            return f"triage: labelled {hit[0]}"
        title = " ".join(str(event.get("title") or "").split())
        if self.dependency_bumps and DEPENDENCY_BUMP.search(title):
            return "triage: a dependency bump"
        for pattern in self.titles:
            if pattern.search(title):
                return f"triage: the title matches {pattern.pattern!r}"
        files = _FILE.findall(str(event.get("diff_excerpt") or ""))
        if self.docs_only and files and all(classify(f) == DOCS for f in files):
            return "triage: documentation only"
        return None


OFF = Triage(enabled=False)


def load_triage(intake_dir: Path) -> Triage:
    """The `triage:` of intake/config.yaml (the defaults when absent); a bad value is a
    usage error naming the file and the key."""
    config = read_config(intake_dir)
    value = config.get(KEY, True)
    where = f"{intake_dir / CONFIG_FILE}: `{KEY}`"
    if value is True or value is None:
        return Triage()
    if value is False:
        return OFF
    if not isinstance(value, dict):
        raise UsageError(f"{where} must be true, false or a mapping (bots, authors, labels, ...)")
    known = set(Triage._fields)
    unknown = sorted(str(k) for k in value if k not in known)
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r}; use {', '.join(sorted(known))}")
    flags = {}
    for name in ("enabled", "bots", "dependency_bumps", "docs_only"):
        flag = value.get(name, True)
        if not isinstance(flag, bool):
            raise UsageError(f"{where}.{name} must be true or false, not {flag!r}")
        flags[name] = flag
    words = {}
    for name, default in (("authors", ()), ("labels", DEFAULT_LABELS), ("titles", ())):
        items = value.get(name, list(default))
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise UsageError(f"{where}.{name} must be a list of strings")
        words[name] = items
    patterns = []
    for text in words["titles"]:
        try:
            patterns.append(re.compile(text, re.IGNORECASE))
        except re.error as exc:
            raise UsageError(f"{where}.titles: {text!r} is not a regular expression ({exc})") from exc  # fmt: skip
    return Triage(
        enabled=flags["enabled"],
        bots=flags["bots"],
        authors=frozenset(a.lower() for a in words["authors"]),
        dependency_bumps=flags["dependency_bumps"],
        docs_only=flags["docs_only"],
        labels=frozenset(label.lower() for label in words["labels"]),
        titles=tuple(patterns),
    )
