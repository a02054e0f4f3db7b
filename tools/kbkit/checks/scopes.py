"""What the policy says per path: each rule's severity (`rules:`, `overrides:`) and the
required frontmatter (`frontmatter.required`, `overrides[].frontmatter.required`).

Severities apply in one place, after the checks and the suppressions ran (`checks.finish`),
so cached page results and result snapshots always hold the rules' own severities and a
policy change never needs them recomputed. Globs use gitignore syntax (`pathspec`, the
library pre-commit and black use): a pattern without a slash matches a name at any depth,
`repos/**` everything below `repos/`. They match paths relative to the knowledge root, and
repo-relative paths for files outside it (the entry page, adapter manifests). Later
overrides win over earlier ones and over the global `rules:`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar, cast

from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding

OFF = "off"


def _severity(value: Any) -> str:
    return OFF if value is False else str(value)  # YAML reads an unquoted `off` as false


class Override(NamedTuple):
    spec: Any  # pathspec.GitIgnoreSpec
    rules: dict[str, str]
    required: tuple[str, ...] | None
    schema: dict[str, Any] | None = None


class Scopes(NamedTuple):
    root: str  # the knowledge root, repo-relative
    rules: dict[str, str]  # global severities by rule id
    overrides: tuple[Override, ...]
    required: tuple[str, ...]
    schema: dict[str, Any] | None = None  # the frontmatter JSON Schema, if any

    def relative(self, path: str) -> str:
        """The path globs match: relative to the knowledge root when inside it."""
        prefix = self.root + "/"
        return path[len(prefix) :] if self.root and path.startswith(prefix) else path

    def severity(self, path: str, rule_id: str, default: str, folder: bool = False) -> str:
        """The effective severity of `rule_id` on repo-relative `path` (`folder`: a folder
        finding, which folder globs such as `lab/` match too)."""
        found = self.rules.get(rule_id, default)
        if self.overrides:
            rel = self.relative(path) + ("/" if folder else "")
            for override in self.overrides:
                if rule_id in override.rules and override.spec.match_file(rel):
                    found = override.rules[rule_id]
        return found

    def frontmatter_schema(self, rel: str) -> dict[str, Any] | None:
        """The frontmatter JSON Schema of the page at root-relative `rel` (later wins)."""
        found = self.schema
        for override in self.overrides:
            if override.schema is not None and override.spec.match_file(rel):
                found = override.schema
        return found

    def required_fields(self, rel: str) -> tuple[str, ...]:
        """The required frontmatter keys of the page at root-relative `rel`."""
        found = self.required
        for override in self.overrides:
            if override.required is not None and override.spec.match_file(rel):
                found = override.required
        return found


T = TypeVar("T")
# builder -> (the policy data it last made something of, what it made)
_COMPILED: dict[Callable[[Policy], Any], tuple[dict[str, Any], Any]] = {}


def compiled(policy: Policy, build: Callable[[Policy], T]) -> T:
    """`build(policy)`, made once per policy (the last one asked about, per builder): pages
    ask one by one, thousands of times. `build` must be a module-level function."""
    hit = _COMPILED.get(build)
    if hit is not None and hit[0] is policy.data:
        return hit[1]
    made = build(policy)
    _COMPILED[build] = (policy.data, made)
    return made


# decider -> (the policy data its verdicts are for, folder -> verdict)
_FOLDERS: dict[Callable[[str, Policy], Any], tuple[dict[str, Any], dict[str, Any]]] = {}
_FOLDERS_KEPT = 4096  # verdicts kept per decider; past that, the memo starts over


def folder_verdict(rel: str, policy: Policy, decide: Callable[[str, Policy], T]) -> T:
    """`decide(folder, policy)` for the folder of the root-relative page `rel`, remembered
    per decider and policy for up to 4,096 folders: pages are read by file name
    (`kbkit.tree.model`), so one folder's pages do not come one after another, but a
    tree's folders are few beside its pages. `decide` must be a module-level function."""
    folder = rel.rpartition("/")[0]
    held = _FOLDERS.get(decide)
    if held is None or held[0] is not policy.data or len(held[1]) >= _FOLDERS_KEPT:
        held = (policy.data, {})
        _FOLDERS[decide] = held
    verdicts = held[1]
    if folder in verdicts:
        return cast(T, verdicts[folder])
    verdict = decide(folder, policy)
    verdicts[folder] = verdict
    return verdict


def scopes(policy: Policy) -> Scopes:
    """The policy's per-path settings (compiled once per policy)."""
    return compiled(policy, _compile)


def _compile(policy: Policy) -> Scopes:
    data = policy.data
    rules = {str(k): _severity(v) for k, v in (data.get("rules") or {}).items() if "/" in str(k)}
    overrides = []
    for entry in data.get("overrides") or []:
        import pathspec  # only policies with overrides pay for it

        front = entry.get("frontmatter") or {}
        required = front.get("required")
        overrides.append(
            Override(
                pathspec.GitIgnoreSpec.from_lines(entry["files"]),
                {str(k): _severity(v) for k, v in (entry.get("rules") or {}).items()},
                None if required is None else tuple(map(str, required)),
                front.get("schema"),
            )
        )
    required = tuple(str(k) for k in data["frontmatter"]["required"])
    schema = data["frontmatter"].get("schema")
    return Scopes(policy.knowledge_root, rules, tuple(overrides), required, schema)


def apply_severities(findings: Iterable[Finding], policy: Policy | None) -> list[Finding]:
    """The findings with their severities decided, in the one place they are: the rule's
    declaration (`kbkit.checks.rules`) gives the default, the policy's `rules:` and
    `overrides:` change it per path (`off` drops the finding). Whatever severity a finding was
    made with (a cached result, a finding of an older version) does not count."""
    from kbkit.checks.rules import all_rules

    declared = all_rules()
    scope = scopes(policy) if policy is not None else None
    if scope is not None and not scope.rules and not any(o.rules for o in scope.overrides):
        scope = None
    kept = []
    for finding in findings:
        rule = declared.get(finding.rule_id)
        severity = finding.severity if rule is None else rule.severity
        if scope is not None:
            folder = finding.line == 0 and not finding.path.endswith(".md")
            severity = scope.severity(finding.path, finding.rule_id, severity, folder)
            if severity == OFF:
                continue
        kept.append(
            finding if severity == finding.severity else finding._replace(severity=severity)
        )
    return kept


def unpublished(rel: str, policy: Policy) -> bool:
    """Whether the site leaves the root-relative page `rel` out (`unpublished` globs): no
    validator checks it."""
    return bool(policy.data.get("unpublished")) and compiled(policy, _unpublished).match_file(rel)


def _unpublished(policy: Policy) -> Any:
    import pathspec  # only policies that name unpublished files pay for it

    return pathspec.GitIgnoreSpec.from_lines(map(str, policy.data.get("unpublished") or ()))
