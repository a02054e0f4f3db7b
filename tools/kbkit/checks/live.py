"""A checked tree kept in memory, re-checked page by page as an editor changes pages.

The tree is loaded once (from the parse cache, as `kb check` loads it) and every validator
runs on it. Then `update(rel, text)` takes a page's new text (an unsaved buffer too): the
page is parsed and analysed again, its summary, facts and suppressions replace the old ones,
and the findings are finished again from the stored cross-page results:

- when what other pages' checks read of the page is unchanged (its input digest: links,
  suppressions, facts; `kbkit.tree.model.input_digest`), the stored cross-page findings
  stand; duplicate bodies are looked up in a fingerprint index, and run again only when
  the page's old or new body is another page's too; the other checks that read outside
  the digests (the git index, the entry page) wait for `refresh()`: typing in a
  paragraph costs one parse;
- otherwise the page's own link findings are recomputed at once (`quick`), and the caller
  runs `refresh()` (every cross-page check, about a tenth of a second at 10k pages) when
  the editor has been idle a moment: until then the other cross-page findings are the last
  full run's.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.checks import Context, Run, checker_run, finish, suppressions
from kbkit.checks.link_model import Resolver, resolving
from kbkit.checks.registry import PREFIX_BY_VALIDATOR, analyze_page, validator_modules
from kbkit.checks.rules.tree.links import broken_link_findings, wikilink_findings
from kbkit.checks.runner import load_for_checks, validator_run
from kbkit.infra.jsonl import gc_paused
from kbkit.pages.page import parse_page
from kbkit.pages.page_summary import summarize
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree, input_digest

NAMES = ("tree", "lint")
DUPLICATE = "tree/duplicate-page"
_LINK_RULES = ("tree/link-broken", "tree/link-anchor")


class Update(NamedTuple):
    findings: list[Finding]  # every finding of the tree now
    exact: bool  # False: cross-page findings other than the page's links await refresh()


class LiveTree:
    """One repository's tree, checked, kept current as pages change in memory."""

    def __init__(self, repo: Path, policy: Policy, today: date) -> None:
        self.repo, self.policy, self.today = repo, policy, today
        self.prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in NAMES)
        self.load()

    def load(self) -> None:
        """(Re)load the tree from disk and run every check: the first load, or after files
        were added, removed or renamed."""
        with gc_paused():
            self.tree: Tree = load_for_checks(self.repo, self.policy, use_cache=True)
            self.run: Run = validator_run(self.tree, NAMES, self.today)
        self.findings = finish(self.run, self.policy)
        self.stale = False
        self.generation = 0  # counts updates: a refresh computed before one is out of date
        self.by_print: dict[bytes, set[str]] = {}  # body fingerprint -> pages (duplicates)
        for rel, facts in self.tree.facts.items():
            if "fingerprint" in facts:
                self.by_print.setdefault(facts["fingerprint"], set()).add(rel)

    def knows(self, rel: str) -> bool:
        """Is `rel` (root-relative) a page of the loaded tree?"""
        return rel in self.tree.summaries

    def update(self, rel: str, text: str) -> Update:
        """The tree's findings with page `rel` (root-relative, a page of the tree) reading
        `text`."""
        self.generation += 1
        tree = self.tree
        page = parse_page(tree.repo_path(rel), text.encode("utf-8", "surrogateescape"))
        found, facts = analyze_page(rel, page, self.policy) if page.error is None else ([], {})
        summary = summarize(rel, page)
        digest = input_digest(tuple(summary), facts)
        same_inputs = digest == tree.inputs.get(rel)
        duplicates_change = self._reprint(rel, tree.facts.get(rel, {}), facts)
        tree.summaries[rel], tree.facts[rel], tree.inputs[rel] = summary, facts, digest
        if found:
            tree.analysis[rel] = found
        else:
            tree.analysis.pop(rel, None)
        local = dict(self.run.local)
        mine = [f for f in found if f.rule_id.startswith(self.prefixes)]
        if mine:
            local[rel] = mine
        else:
            local.pop(rel, None)
        path = tree.repo_path(rel)
        entries, invalid = suppressions(tree, only=rel)
        entries += [entry for entry in self.run.suppressions if entry.path != path]
        invalid += [finding for finding in self.run.invalid if finding.path != path]
        cross = self.run.cross
        if not same_inputs:
            self.stale = True
            resolver = Resolver(tree)
            cross = [f for f in cross if not (f.path == path and f.rule_id in _LINK_RULES)]
            cross += broken_link_findings(tree, rel, summary, None, resolver)
            cross += wikilink_findings(tree, rel, resolver)
        if duplicates_change:  # (the git index and the entry page wait for the refresh)
            cross = [f for f in cross if f.rule_id != DUPLICATE]
            prints = sorted((page, fp) for fp, pages in self.by_print.items() for page in pages)
            cross += duplicate_findings(tree, prints)
        self.run = Run(self.run.prefixes, local, cross, entries, invalid)
        self.findings = finish(self.run, self.policy)
        return Update(self.findings, not self.stale)

    def _reprint(self, rel: str, old: dict[str, Any], new: dict[str, Any]) -> bool:
        """Move the page in the fingerprint index; whether duplicates may have changed (the
        page shared its old body with another page, or shares its new one)."""
        before, after = old.get("fingerprint"), new.get("fingerprint")
        if before == after:
            return False
        shared = False
        if before is not None:
            pages = self.by_print.get(before, set())
            pages.discard(rel)
            shared = bool(pages)
            if not pages:
                self.by_print.pop(before, None)
        if after is not None:
            pages = self.by_print.setdefault(after, set())
            pages.add(rel)
            shared = shared or len(pages) > 1
        return shared

    def cross_findings(self) -> list[Finding]:
        """Every cross-page check on the tree as it is in memory (what `refresh` adopts; the
        editor computes it in a forked child, so typing never waits for it)."""
        checkers = {name: validator_modules()[name].tree_findings for name in NAMES}
        with gc_paused(), resolving(self.tree):  # the checks share one resolver's memos
            return checker_run(self.tree, checkers, Context(self.today), self.run.local).cross

    def adopt(self, cross: list[Finding]) -> list[Finding]:
        """Take `cross` (from `cross_findings` on the tree as it is now) as the stored
        cross-page findings; the findings are exact again."""
        self.run = self.run._replace(cross=cross)
        self.findings = finish(self.run, self.policy)
        self.stale = False
        return self.findings

    def refresh(self) -> list[Finding]:
        """Every cross-page check again on the tree as it is in memory."""
        return self.adopt(self.cross_findings())


def duplicate_findings(tree: Tree, prints: list[tuple[str, bytes]]) -> list[Finding]:
    """`tree/duplicate-page` from the fingerprints (the check `ALWAYS_RERUN` declares)."""
    from kbkit.checks.registry import always_rerun

    (rerun,) = [r for r in always_rerun(("tree",)) if DUPLICATE in r.rules]
    return rerun.check(tree, prints)
