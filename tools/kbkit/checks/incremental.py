"""Reuse the previous validator run when the changes since cannot affect cross-page results.

Every cached run saves a result snapshot next to the parse cache: the walk's digest (every
file and folder name, what could not be read), each page's stat key and the digest of what
cross-page checks read of it (`tree.input_digest`: resolved links, suppressions, facts),
the body fingerprints, the page-local findings, and the cross-page findings.

The next run walks and stats the tree. It reuses the snapshot only when the walk's digest
is the same (no page or file added, removed or renamed), every page whose stat key changed
(or that was racy when the snapshot was written) parses to the same cross-page digest, the
link targets outside the knowledge root exist as before and the taxonomy is the same. Then
only the changed pages' own findings are new, and the checks that read what the digest
leaves out are recomputed: the checks each validator module declares in `ALWAYS_RERUN`
(duplicate bodies from the fingerprints, tracked local files, the entry page, adapter
manifests; `kbkit.checks.registry.always_rerun`). Anything else takes
the full run, which writes a fresh snapshot. A reuse with few changed pages leaves the
snapshot as it is (the next run parses those pages again, which is cheaper than rewriting it).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.checks import Run, Suppression, finish
from kbkit.checks.index_model import toc_digest
from kbkit.checks.query_listing import query_files_digest
from kbkit.checks.registry import always_rerun, analyze_page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.cache import (
    RACY_NS,
    cache_file,
    code_fingerprint,
    read_block,
    write_blocks,
)
from kbkit.tree.model import (
    NEVER,
    LoadOptions,
    PageDigests,
    Tree,
    build_folders,
    decode_entry,
    outside_root,
    preload,
    read_entry,
)
from kbkit.tree.walk import PACKED_KEY, Walk, walk_aside, walk_digest

FORMAT = 3  # 3: the arrays are three blocks, not one tuple
MAX_CHANGED = 64  # more changed pages than this: the full (parallel) run is as fast
DIGEST = 16  # bytes per page in the inputs array
REPARSE_AT_MOST = 8  # up to this many changed pages are re-parsed rather than re-saved


class Reused(NamedTuple):
    findings: list[Finding]
    pages: int


def try_reuse(
    repo: Path,
    policy: Policy,
    names: tuple[str, ...],
    today: date,
    started_ns: int,
    walked: Callable[[], Walk] | None = None,
) -> Reused | Walk | None:
    """The findings of this run from the snapshot, or the walk made while trying (for the
    full run to reuse), or None when there was nothing to walk. `walked` is a walk already
    started (`kbkit.tree.walk.walk_aside`)."""
    top = repo / policy.knowledge_root
    if not top.is_dir():
        return None
    walked = walked or walk_aside(top, policy.knowledge_root, suffixes=policy.page_suffixes)
    try:
        data = memoryview(_snapshot_file(repo, names).read_bytes())
        after_header, header = read_block(data, 0)
        usable = header["namespace"] == _namespace(repo, policy, names, today)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError, struct.error):
        usable = False
    # While the walk runs: a reused run re-parses its changed pages, any other parses some
    # or all of them (the child has the tree's whole walk to do; this takes a fraction of it).
    preload(policy, analyze_page)
    walk = walked()
    if not usable or not walk.packed_keys:
        return walk  # (a walk without page stats has no keys to compare)
    try:
        if header["walk"] != walk.digest:
            return walk
        pos, keys = read_block(data, after_header)
        pos, inputs = read_block(data, pos)
        _, prints = read_block(data, pos)
        arrays = (keys, inputs, prints)
        reused = _reuse(repo, policy, names, walk, header, arrays, started_ns)
    except (ValueError, EOFError, TypeError, KeyError, IndexError, AttributeError, struct.error):
        return walk  # a snapshot of another shape (a damaged file): the full run
    return walk if reused is None else reused


def _reuse(
    repo: Path,
    policy: Policy,
    names: tuple[str, ...],
    walk: Walk,
    header: dict[str, Any],
    arrays: tuple[bytes, bytes, list[bytes | None]],
    started_ns: int,
) -> Reused | None:
    old_keys, inputs, prints = arrays
    size = PACKED_KEY.size
    changed = set(header["recheck"])  # racy or unreadable when the snapshot was written
    if walk.packed_keys != old_keys:
        new_keys = walk.packed_keys
        for i in range(len(walk.pages)):
            if new_keys[i * size : (i + 1) * size] != old_keys[i * size : (i + 1) * size]:
                changed.add(i)
                if len(changed) > MAX_CHANGED:
                    return None
    if len(changed) > MAX_CHANGED:
        return None
    options = LoadOptions(analyze=analyze_page, keep_pages=False)
    top = str(repo / policy.knowledge_root)
    local, prefixes = header["local"], tuple(header["prefixes"])
    keys = bytearray(walk.packed_keys)
    for i in sorted(changed):
        rel = walk.pages[i]
        _, plain, _, key = read_entry(top, policy.knowledge_root, rel, policy, options, NEVER)
        _, _, found, facts, digest = decode_entry(plain)
        if digest != inputs[i * DIGEST : (i + 1) * DIGEST]:
            return None  # what other pages' results read changed
        PACKED_KEY.pack_into(keys, i * size, *key)
        mine = [tuple(f) for f in found if f.rule_id.startswith(prefixes)]
        if mine:
            local[rel] = mine
        else:
            local.pop(rel, None)
        prints[i] = facts.get("fingerprint")
    tree = Tree(
        repo,
        policy,
        policy.knowledge_root,
        True,
        {},
        build_folders(walk, policy.page_suffixes),
        frozenset(walk.files),
        tuple(walk.problems),
        {},
        {},
        {},
        b"",
        PageDigests([]),
    )
    if _outside_targets(tree, header["outside"]) != header["outside"]:
        return None
    if "lint" in names and _taxonomy_digest(tree) != header["taxonomy"]:
        return None
    if toc_digest(tree) != header["tocs"] or _labels_digest(tree) != header.get("labels"):
        return None  # a table of contents changed (the walk knows its name only)
    if query_files_digest(tree) != header.get("queries", b""):
        return None  # a Base changed: the pages it lists (the walk knows its name only)
    if len(changed) > REPARSE_AT_MOST:  # else re-parsing them next time is cheaper than a write
        racy_from = started_ns - RACY_NS
        header["recheck"] = _recheck(PACKED_KEY.iter_unpack(keys), racy_from)
        write_blocks(_snapshot_file(repo, names), (header, bytes(keys), inputs, prints))
    fingerprints = [(rel, fp) for rel, fp in zip(walk.pages, prints, strict=True) if fp is not None]
    run = Run(
        prefixes,
        {rel: [Finding(*f) for f in found] for rel, found in local.items()},
        [Finding(*f) for f in header["stable"]] + volatile_findings(tree, names, fingerprints),
        [Suppression(*s) for s in header["suppressions"]],
        [Finding(*f) for f in header["invalid"]],
    )
    return Reused(finish(run, policy), header["pages"])


def _recheck(keys: Iterable[tuple[int, ...]], racy_from: int) -> list[int]:
    """Positions of the pages a reuse must parse again whatever their key: changed too
    recently to trust the key (as git's racy entries), or unreadable."""
    return [
        i
        for i, key in enumerate(keys)
        if key[2] >= racy_from or key[1] >= racy_from or not any(key)
    ]


def save(
    tree: Tree, names: tuple[str, ...], today: date, run: Run, pages: int, started_ns: int
) -> None:
    """Write the snapshot of a full run (a snapshot that cannot be written only costs speed)."""
    if not tree.exists_root:
        return
    volatile = tuple(rule for rerun in always_rerun() for rule in rerun.rules)
    order = list(tree.summaries)  # sorted, as the walk lists the pages
    keys = tree.packed_keys
    header = {
        "namespace": _namespace(tree.repo, tree.policy, names, today),
        "walk": walk_digest(tree.files, tree.folders, tree.problems),
        "recheck": _recheck(PACKED_KEY.iter_unpack(keys), started_ns - RACY_NS),
        "prefixes": run.prefixes,
        "local": {rel: [tuple(f) for f in found] for rel, found in run.local.items()},
        "stable": [tuple(f) for f in run.cross if not f.rule_id.startswith(volatile)],
        "suppressions": [tuple(s) for s in run.suppressions],
        "invalid": [tuple(f) for f in run.invalid],
        "outside": _outside_targets(tree, None),
        "taxonomy": _taxonomy_digest(tree) if "lint" in names else b"",
        "tocs": toc_digest(tree),
        "labels": _labels_digest(tree),
        "queries": query_files_digest(tree),
        "pages": pages,
    }
    # Three blocks, each encoded as it is written: one tuple of the three was encoded into
    # one growing buffer, twice its size at its peak (13 MB at 100k pages, the peak of a
    # check's memory).
    inputs = tree.inputs.joined()  # in the same order
    prints = [tree.facts[rel].get("fingerprint") for rel in order]
    write_blocks(_snapshot_file(tree.repo, names), (header, keys, inputs, prints))


def volatile_findings(
    tree: Tree, names: tuple[str, ...], fingerprints: list[tuple[str, bytes]]
) -> list[Finding]:
    """The cross-page findings a snapshot never stores (their inputs are not in the digests):
    the validators' declared `ALWAYS_RERUN` checks."""
    return [finding for rerun in always_rerun(names) for finding in rerun.check(tree, fingerprints)]


def _outside_targets(tree: Tree, known: dict[str, bool] | None) -> dict[str, bool]:
    """Whether each link target outside the knowledge root exists (`known`: the targets to
    look at again; None: collect them from the tree's summaries)."""
    if known is not None:
        return {target: tree.exists(target) for target in known}
    found: dict[str, bool] = {}
    for summary in tree.summaries.values():
        for target, _, _ in summary.links:
            if outside_root(target) and target not in found:
                found[target] = tree.exists(target)
    resolver = None
    for facts in tree.facts.values():  # site links mapped out of the root (../static/x.png)
        for target, _, _ in facts.get("site_links", ()):
            if outside_root(target) and target not in found:
                if resolver is None:
                    from kbkit.checks.link_model import Resolver

                    resolver = Resolver(tree)
                for name in resolver.variants(target):  # (`x` may be served from x.md)
                    found[name] = tree.exists(name)
    return found


def _labels_digest(tree: Tree) -> bytes:
    """The digest of the labels the tree's unread documents define (`.rst`, `.Rmd`): the
    walk knows their names, not their bytes, and a page's link may name one of them."""
    from kbkit.checks.link_model import unread_documents, unread_labels

    if not unread_documents(tree):
        return b""
    return hashlib.blake2b(repr(sorted(unread_labels(tree))).encode(), digest_size=16).digest()


def _taxonomy_digest(tree: Tree) -> bytes:
    from kbkit.tree.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(tree.repo, tree.policy)
    shown = repr((sorted(taxonomy.tags), taxonomy.source, taxonomy.problem))
    return hashlib.blake2b(shown.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _namespace(repo: Path, policy: Policy, names: tuple[str, ...], today: date) -> tuple[Any, ...]:
    from kbkit.checks.redirect_files import redirects_digest

    return (
        FORMAT,
        code_fingerprint(),
        policy.fingerprint,
        names,
        today.isoformat(),
        redirects_digest(repo, policy),  # files the walk's digest knows by name only
    )


def _snapshot_file(repo: Path, names: tuple[str, ...]) -> Path:
    return cache_file(repo, "result-" + "-".join(names))
