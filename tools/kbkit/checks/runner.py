"""The one entry point that runs the validators on a repository: load the tree once (or
reuse the previous run, `kbkit.checks.incremental`), run the cross-page checks, finish."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from kbkit.checks import Checker, Context, Run, checker_run, finish, incremental
from kbkit.checks.link_model import resolving
from kbkit.checks.registry import PREFIX_BY_VALIDATOR, analyze_page, validator_modules
from kbkit.infra.parallel import Aside
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import LoadOptions, Tree, load_tree
from kbkit.tree.walk import Walk


def load_for_checks(
    repo: Path,
    policy: Policy,
    use_cache: bool = False,
    walk: Walk | None = None,
    read_ahead: bool = False,
) -> Tree:
    """The tree as the validators read it: summaries, facts and page-local findings only.
    The walk is handed over, not kept here, so the load can release it before it parses.
    With `read_ahead` (a check command's own run), the tables of contents are read while
    helpers parse the pages (`index_model.read_tables_ahead`)."""
    while_helpers_parse = None
    if read_ahead:
        from kbkit.checks.index_model import read_tables_ahead

        def while_helpers_parse(files: frozenset[str]) -> None:
            read_tables_ahead(repo, policy, files)

    options = LoadOptions(
        analyze=analyze_page,
        use_cache=use_cache,
        keep_pages=False,
        while_helpers_parse=while_helpers_parse,
    )
    handed = [walk]
    del walk
    return load_tree(repo, policy, options, handed.pop())


def run_validators(
    repo: Path,
    policy: Policy,
    names: tuple[str, ...],
    today: date,
    use_cache: bool = True,
    walked: Callable[[], Walk] | None = None,
) -> tuple[list[Finding], int]:
    """Load the tree once and run the named validators; returns (findings, pages checked).
    With the cache, a run whose changes cannot affect cross-page results reuses the previous
    run's (`kbkit.checks.incremental`); `walked` is a walk of the tree already under way
    (`kbkit.tree.walk.walk_aside`). The cyclic garbage collector is paused meanwhile: a check
    allocates millions of small objects that live to its end and makes no cycles worth
    collecting, so it only re-scanned them (6% of a cold 50k-page check, 2.5% at 10k pages,
    with the same peak memory)."""
    from kbkit.infra.jsonl import gc_paused

    with gc_paused():
        return _run_validators(repo, policy, names, today, use_cache, walked)


def _run_validators(
    repo: Path,
    policy: Policy,
    names: tuple[str, ...],
    today: date,
    use_cache: bool,
    walked: Callable[[], Walk] | None,
) -> tuple[list[Finding], int]:
    if not use_cache:
        tree = load_for_checks(repo, policy, walk=walked() if walked else None, read_ahead=True)
        run = validator_run(tree, names, today, fork_last=True)
        return finish(run, policy), checked_pages(tree, names)
    started_ns = time.time_ns()
    reused = incremental.try_reuse(repo, policy, names, today, started_ns, walked)
    if isinstance(reused, incremental.Reused):
        return reused.findings, reused.pages
    walks = [reused] if reused is not None else []
    del reused  # handed over (popped) so that the load can release the walk before it parses
    tree = load_for_checks(
        repo, policy, use_cache=True, walk=walks.pop() if walks else None, read_ahead=True
    )
    run = validator_run(tree, names, today, fork_last=True)
    pages = checked_pages(tree, names)
    incremental.save(tree, names, today, run, pages, started_ns)
    return finish(run, policy), pages


def checked_pages(tree: Tree, names: tuple[str, ...]) -> int:
    if names == ("lint",):
        from kbkit.checks import wiki_lint

        return len(wiki_lint.scope(tree))  # the pages lint checked
    if tree.policy.whole_root:  # every page is under the root (`roots: ["."]`)
        return len(tree.summaries)
    return sum(1 for rel in tree.summaries if tree.in_roots(rel))


def validator_run(tree: Tree, names: tuple[str, ...], today: date, fork_last: bool = False) -> Run:
    """Run the named validators on a loaded tree, before suppressions apply (page-level
    findings come from the load). With `fork_last` (a check command's own run, not an editor
    or a report), the last validator may run on a forked child (`FORK_LAST_PAGES`)."""
    modules = validator_modules()
    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in names)
    local: dict[str, list[Finding]] = {}
    for rel, findings in tree.analysis.items():
        mine = [finding for finding in findings if finding.rule_id.startswith(prefixes)]
        if mine:
            local[rel] = mine
    checkers = {name: modules[name].tree_findings for name in names}
    context = Context(today)
    with resolving(tree):  # the checks share one resolver's memos
        checkers, aside = _last_on_child(tree, checkers, context) if fork_last else (checkers, None)
        try:
            return checker_run(tree, checkers, context, local)
        finally:
            if aside is not None:
                aside.close()  # reaps the child (an earlier checker may have raised)


# Tree sizes whose last validator's cross-page checks run on a forked child while this
# process runs the others: below, the fork costs more than it spares; above, the child's
# copies of the pages it touches (3-14 MB more peak memory at 10k pages) would outgrow the
# memory budget of a 50k-page check.
FORK_LAST_PAGES = range(2_000, 20_001)


def _last_on_child(
    tree: Tree, checkers: dict[str, Checker], context: Context
) -> tuple[dict[str, Checker], Aside[list[tuple[Any, ...]]] | None]:
    """The checkers, the last one's work started at once on a forked child when there are
    two or more and the tree's size is in FORK_LAST_PAGES (its findings are then the child's,
    the same as here: a failed child's work is redone here, `kbkit.infra.parallel.Aside`),
    and that child."""
    if len(checkers) < 2 or len(tree.summaries) not in FORK_LAST_PAGES:
        return checkers, None

    *_, (name, last) = checkers.items()
    aside: Aside[list[tuple[Any, ...]]] = Aside(
        lambda: [tuple(finding) for finding in last(tree, context)]
    )

    def from_child(_tree: Tree, _context: Context) -> list[Finding]:
        return [Finding(*finding) for finding in aside.result()]

    return {**checkers, name: from_child}, aside


def check_tree(tree: Tree, names: tuple[str, ...], today: date) -> list[Finding]:
    """Run the named validators on a loaded tree."""
    return finish(validator_run(tree, names, today), tree.policy)
