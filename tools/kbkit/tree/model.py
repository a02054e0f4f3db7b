"""The tree model: every page of a knowledge root, parsed once, plus an in-memory file index.

Paths inside the model are POSIX paths relative to the knowledge root (`general/x.md`);
`Tree.repo_path` turns them into repo-relative paths for messages. Every page has a
`Summary` (its resolved relative links, suppressions, read error) and its facts; cross-page
checks read only those, so validator loads (`keep_pages=False`) keep no page objects at all.
Links are resolved when a page is summarized (`kbkit.pages.page_summary`, as it loads). A target inside
the knowledge root is looked up in the in-memory index (`Tree.exists`), never with one
filesystem call per link; a target outside the root costs one `os.path.exists` (the link
checks remember each answer for the run).
"""

from __future__ import annotations

import gc
import marshal
import os
import posixpath
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra import boundary, parallel
from kbkit.infra.content_digest import digest
from kbkit.pages.page import (
    Page,
    page_from_plain,
    page_to_plain,
    parse_page,
    unreadable_page,
)
from kbkit.pages.page_summary import Summary, from_plain, summarize
from kbkit.pages.repeated_bodies import RepeatedBodies
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.cache import PageCache, cache_file, code_fingerprint
from kbkit.tree.page_file import OVERLAY_KEY, PageRefused, read_page_file
from kbkit.tree.walk import PACKED_KEY, Problem, StatKey, Walk, under, walk_root


class Folder(NamedTuple):
    path: str  # relative to the knowledge root; "" is the root itself
    pages: tuple[str, ...]  # names of the direct *.md files, sorted
    children: tuple[str, ...]  # names of the direct sub-folders, sorted
    has_markdown: bool  # a *.md file at any depth


INPUT_DIGEST = 16  # bytes of a page's input digest (`input_digest`)


class PageDigests:
    """Each page's input digest (`input_digest`), INPUT_DIGEST bytes a page, in one array in
    the tree's page order (sorted root-relative paths): a page is found by bisecting the
    order. A dict of one bytes object a page held 8.8 MB at 100k pages; the array holds 1.6
    and the order is the walk's own list, shared."""

    __slots__ = ("data", "order")

    def __init__(self, order: list[str], data: bytes | bytearray | None = None) -> None:
        self.order = order
        self.data = bytearray(data) if data is not None else bytearray(INPUT_DIGEST * len(order))

    def index(self, rel: str) -> int:
        """The place of page `rel` in the order, or -1."""
        found = bisect_left(self.order, rel)
        return found if found < len(self.order) and self.order[found] == rel else -1

    def get(self, rel: str) -> bytes | None:
        found = self.index(rel)
        return None if found < 0 else self.at(found)

    def at(self, index: int) -> bytes:
        return bytes(self.data[index * INPUT_DIGEST : (index + 1) * INPUT_DIGEST])

    def put(self, index: int, value: bytes) -> None:
        if len(value) != INPUT_DIGEST:
            raise ValueError(f"an input digest of {len(value)} bytes")
        self.data[index * INPUT_DIGEST : (index + 1) * INPUT_DIGEST] = value

    def __getitem__(self, rel: str) -> bytes:
        found = self.get(rel)
        if found is None:
            raise KeyError(rel)
        return found

    def __setitem__(self, rel: str, value: bytes) -> None:
        found = self.index(rel)
        if found < 0:
            raise KeyError(rel)
        self.put(found, value)

    def joined(self) -> bytes:
        """Every page's digest, in the order."""
        return bytes(self.data)


class Tree(NamedTuple):
    repo: Path
    policy: Policy
    root: str  # the knowledge root, relative to the repo ("knowledge")
    exists_root: bool
    pages: dict[str, Page]  # every *.md by root-relative path ({} when loaded without pages)
    folders: dict[str, Folder]
    files: frozenset[str]  # every file (any extension) under the root
    problems: tuple[Problem, ...]  # what the walk could not read
    analysis: dict[str, list[Finding]]  # page-local findings of the pages that have some
    facts: dict[str, dict[str, Any]]  # page-local facts for cross-page checks, by path
    summaries: dict[str, Summary]  # every *.md, sorted by root-relative path
    packed_keys: bytes | bytearray  # each page's stat key (its read's, else the walk's)
    inputs: PageDigests  # digest of what cross-page checks read of a page (see input_digest)

    def repo_path(self, rel: str) -> str:
        """The repo-relative path of a root-relative one (`x.md`, not `./x.md`, when the
        knowledge root is the repository's top)."""
        return under(self.root) + rel if rel else self.root

    def exists(self, rel: str) -> bool:
        """Does a root-relative path (file or folder) exist? Paths may climb out with `..`."""
        if outside_root(rel):
            return self._exists_outside(rel)
        return rel in self.files or rel in self.folders or rel == ""

    def _exists_outside(self, rel: str) -> bool:
        repo_rel = posixpath.normpath(posixpath.join(self.root, rel))
        if repo_rel == ".." or repo_rel.startswith("../"):
            return False  # outside the repository: nothing there can be relied on
        return os.path.exists(self.repo / repo_rel)

    def in_roots(self, rel: str) -> bool:
        """Whether the page at `rel` is under a root (with `roots: ["."]`, every page)."""
        if self.policy.whole_root:
            return True
        first = rel.split("/", 1)[0]
        return first in self.policy.data["roots"] and "/" in rel

    def page_items(self) -> list[tuple[str, Page]]:
        """Pages in path order (`load_tree` builds `pages` sorted)."""
        return list(self.pages.items())


# Page-local analysis: (findings, facts). Facts are small marshal-friendly values that
# cross-page checks need once the page's text is gone (digests, ids, ...).
Analysis = tuple[list[Finding], dict[str, Any]]
Analyzer = Callable[[str, Page, Policy], Analysis]
NO_ANALYSIS: Analysis = ([], {})


def outside_root(rel: str) -> bool:
    """Does a root-relative path climb out of the knowledge root?"""
    return rel == ".." or rel.startswith("../")


def compact(rel: str, page: Page, policy: Policy, keep_text: bool) -> Page:
    """The page as the loaded tree keeps it. With keep_text=False (the curator's catalog)
    only index pages keep their text, code blocks and headings are dropped and the
    frontmatter keeps only the required keys."""
    if keep_text:
        return page
    front = page.frontmatter
    if front.data:
        wanted = policy.data["frontmatter"]["required"]
        data = {k: interned(front.data[k]) for k in wanted if k in front.data}
        front = front._replace(data=data)
    text = page.text if rel.endswith("/_index.md") or rel == "_index.md" else ""
    return page._replace(text=text, frontmatter=front, code_blocks=(), headings=())


def interned(value: Any) -> Any:
    """Share repeated short strings (types, tags, dates) across thousands of pages."""
    if isinstance(value, str) and len(value) <= 64:
        return sys.intern(value)
    if isinstance(value, list):
        return [interned(item) for item in value]
    return value


# What decoding a cached entry of the wrong shape raises: the page is parsed instead.
BAD_ENTRY = (TypeError, ValueError, IndexError, KeyError, AttributeError)
_NO_FACTS: dict[str, Any] = {}  # shared by every page without facts (read-only by contract)
SHARED_MAX = 1 << 16  # distinct fact values kept for sharing (bounds the memo on odd trees)


def share_values(facts: dict[str, Any], shared: dict[Any, Any]) -> None:
    """Replace each string or tuple fact value by an equal one seen before: most repeat on
    many pages (`tags`, `updated`...) and arrive as fresh copies (from marshal, from each
    page's analysis); at 50k pages the copies cost megabytes."""
    for key, value in facts.items():
        if type(value) is tuple or type(value) is str:
            try:
                known = shared.get(value)
            except TypeError:  # a tuple holding a list
                continue
            if known is None:
                if len(shared) < SHARED_MAX:
                    shared[value] = value
            elif known is not value:
                facts[key] = known


class LoadOptions(NamedTuple):
    """How to load: page-local analysis to run while each page's full text is at hand."""

    analyze: Analyzer | None = None
    use_cache: bool = False  # the check commands turn it on; library loads write nothing
    jobs: int = 0  # 0: decide from the work size and the CPU count
    keep_text: bool = True  # False: only index pages keep their text
    keep_pages: bool = True  # False: keep summaries and facts only (validators)
    # Work of this process's own while forked helpers parse (given the walk's files): the
    # check's tables of contents are read then instead of after the parse
    while_helpers_parse: Callable[[frozenset[str]], None] | None = None


# What one page contributes to a load, in the cache's plain (marshal) shape:
# (page plain or None, summary, findings as tuples, facts)
Plain = tuple[Any, ...]


# rel, plain entry, digest (b"": unreadable, do not cache; None: refused or not racy, the
# key decides), key
Parsed = tuple[str, Plain, bytes | None, StatKey]
# the same, with the page's place in the list of pages to parse instead of its path
Placed = tuple[int, Plain, bytes | None, StatKey]


def read_entry(
    top: str,
    root_rel: str,
    rel: str,
    policy: Policy,
    options: LoadOptions,
    digest_from_ns: int = 0,
    repeated: RepeatedBodies | None = None,
) -> Parsed:
    """Read, parse and analyze one page: its plain entry, the digest of its bytes and its
    stat key, taken before the read (a change during the read then shows as a changed key
    on the next run). Only regular files inside the root, up to `limits.read_bytes`, are
    read (`kbkit.tree.page_file`); others are unreadable pages, decided by their stat alone.
    The digest is taken only of a file modified at or after `digest_from_ns` (the cache
    keeps digests of racy files only); other reads give None in its place."""
    repo_rel = under(root_rel) + rel
    try:
        data, key = read_page_file(top, rel, policy.limit("read_bytes"))
    except PageRefused as refused:
        page = unreadable_page(repo_rel, refused.size, refused.message)
        return rel, _encode(rel, page, [], {}, policy, options), None, refused.key
    except OSError as exc:
        page = unreadable_page(repo_rel, 0, f"cannot read ({exc.strerror or exc})")
        return rel, _encode(rel, page, [], {}, policy, options), b"", (0, 0, 0, 0)
    page = parse_page(repo_rel, data, repeated)
    findings, facts = NO_ANALYSIS
    if options.analyze is not None and page.error is None:
        findings, facts = options.analyze(rel, page, policy)
    if key == OVERLAY_KEY:  # not the file on disk: never cached (b"")
        return rel, _encode(rel, page, findings, facts, policy, options), b"", key
    content_digest = digest(data) if key[1] >= digest_from_ns else None
    return rel, _encode(rel, page, findings, facts, policy, options), content_digest, key


def _encode(
    rel: str,
    page: Page,
    findings: list[Finding],
    facts: dict[str, Any],
    policy: Policy,
    options: LoadOptions,
) -> Plain:
    kept = (
        page_to_plain(compact(rel, page, policy, options.keep_text)) if options.keep_pages else None
    )
    summary = tuple(summarize(rel, page))
    return (kept, summary, [tuple(f) for f in findings], facts, input_digest(summary, facts))


def input_digest(summary: tuple[Any, ...], facts: dict[str, Any]) -> bytes:
    """A digest of everything cross-page checks read of a page except its body fingerprint
    (duplicates are recomputed from the fingerprints themselves). Marshal format version 0
    writes equal plain values as equal bytes once the facts are sorted: later versions mark
    interned strings and repeated objects, which depend on identity, not value (`repr`
    would do too, at twice the cost)."""
    shown = (summary, sorted((k, v) for k, v in facts.items() if k != "fingerprint"))
    return digest(marshal.dumps(shown, 0))


def decode_entry(plain: Plain) -> tuple[Page | None, Summary, list[Finding], dict[str, Any], bytes]:
    page = page_from_plain(plain[0]) if plain[0] is not None else None
    facts = plain[3] or _NO_FACTS
    return page, from_plain(plain[1]), [Finding(*f) for f in plain[2]], facts, plain[4]


PARALLEL_MIN_PAGES = 600
# Fewer, larger pages are worth the helpers too: about the text of 600 pages of 2.5 KB. A
# helper costs about 15-20 ms (the fork, its pipe, its exit); below this a check ran
# slower with one (26-89 pages of 0.1-0.7 MB), above it faster (a Jupyter Book's 148
# lectures of 4.5 MB: 0.77 -> 0.49 s; 240 Docusaurus and mdBook pages of 1.7-1.9 MB:
# 65-100 ms less).
PARALLEL_MIN_BYTES = 1_500_000
NEVER = 1 << 63  # a digest_from_ns no file's mtime reaches
FREEZE_EVERY = 1000
CHUNK = 100  # pages per chunk of work (and per message between processes)


def _parse_all(
    top: Path,
    root_rel: str,
    todo: list[str],
    policy: Policy,
    options: LoadOptions,
    digest_from_ns: int,
    files: frozenset[str] = frozenset(),
) -> Iterator[Placed]:
    """Parse pages, here and on forked helpers when the batch is large enough to pay for
    them. Helpers send plain entries (the cache's own shape), so nothing is re-encoded, and
    results stream back in chunks so no process ever holds the whole tree twice. With
    helpers, this process does `options.while_helpers_parse(files)` after its first chunk: the helpers
    take more of the pages meanwhile."""
    folder = str(top)
    jobs = options.jobs or min(os.cpu_count() or 1, 8)
    repeated = RepeatedBodies()  # each process its own (a helper forks it empty)
    # Pages are read by file name, then path: a page's versions (`v3.4/x.md`, `v3.5/x.md`)
    # are parsed one after the other (in chunks, by the same process), whose memo of
    # repeated bodies then reads each repeat once (`kbkit.pages.repeated_bodies`).
    order = array("q", sorted(range(len(todo)), key=lambda place: _name(todo[place])))
    if jobs <= 1 or not _worth_helpers(folder, todo) or not parallel.can_fork():
        for place in order:
            _, plain, dig, key = read_entry(
                folder, root_rel, todo[place], policy, options, digest_from_ns, repeated
            )
            yield place, plain, dig, key
        return

    bounds = chunk_bounds(len(todo))

    def work(number: int) -> list[Any]:
        # The chunk's number, then its entries without their paths: this process knows
        # them (todo), and keeping its own copies spares one copy of every path at 50k.
        chunk = order[bounds[number] : bounds[number + 1]]
        entries = [
            read_entry(folder, root_rel, todo[place], policy, options, digest_from_ns, repeated)
            for place in chunk
        ]
        return [number, *((None, *entry[1:]) for entry in entries)]

    preload(policy, options.analyze)  # before the fork, so the helpers share the imports
    while_helpers_parse = options.while_helpers_parse
    for entries in parallel.run_chunks(len(bounds) - 1, work, helpers=jobs - 1):
        if while_helpers_parse is not None:  # the helpers are forked and at work
            while_helpers_parse(files)
            while_helpers_parse = None
        first = bounds[entries[0]]
        for offset, (_, plain, dig, key) in enumerate(entries[1:]):
            yield order[first + offset], plain, dig, key


def _worth_helpers(folder: str, todo: list[str]) -> bool:
    """Whether the pages to parse are enough work for forked helpers: PARALLEL_MIN_PAGES of
    them, or PARALLEL_MIN_BYTES of text (their sizes summed until it is reached) in two
    pages or more (a helper gets no share of one page)."""
    if len(todo) >= PARALLEL_MIN_PAGES:
        return True
    if len(todo) < 2:
        return False
    total = 0
    for rel in todo:
        try:  # the entry itself: a symlink is never followed here (the read decides on it)
            total += os.stat(os.path.join(folder, rel), follow_symlinks=False).st_size
        except OSError:
            continue  # the read reports it
        if total >= PARALLEL_MIN_BYTES:
            return True
    return False


def chunk_bounds(total: int) -> list[int]:
    """Where each chunk of `total` pages starts, and the last ends: CHUNK pages each, then
    chunks of a quarter of that for the last 2 * CHUNK pages, so the processes run out of
    work close together (with whole chunks to the end, one process waited for the other's
    last chunk, up to 65 ms at 10k pages); at least eight chunks where there are that many
    pages (a few large pages are shared out too)."""
    tail = max(0, total - 2 * CHUNK)
    quarter = max(1, min(CHUNK // 4, total // 8))
    return [*range(0, tail, CHUNK), *range(tail, total, quarter), total]


def _name(rel: str) -> str:
    """A page's file name, the walk's own string (interned there: sorting by it keeps no copy
    of every name; the sort is stable, so pages of one name stay in path order)."""
    return sys.intern(rel.rpartition("/")[2])


def preload(policy: Policy, analyze: Analyzer | None) -> None:
    """Import what parsing and analyzing a page needs (the parser, native or fallback, and
    what the analyzers import on their first page): one empty page, parsed and analyzed."""
    page = parse_page("preload.md", b"")
    if analyze is not None:
        analyze("preload.md", page, policy)


def load_tree(
    repo: Path, policy: Policy, options: LoadOptions | None = None, walk: Walk | None = None
) -> Tree:
    """Walk the knowledge root once (or take `walk`, made a moment ago); read, parse and
    analyze every page once (or reuse the cache)."""
    options = options or LoadOptions()
    root_rel = policy.knowledge_root
    top = repo / root_rel
    boundary.knowledge_top(repo, root_rel, policy.file)  # (load_policy refused it already)
    if not top.is_dir():
        return Tree(
            repo, policy, root_rel, False, {}, {}, frozenset(), (), {}, {}, {}, b"", PageDigests([])
        )
    suffixes = policy.page_suffixes
    walk = walk or walk_root(top, root_rel, suffixes=suffixes)
    # Paths interned (in place: the walk's own strings), so a link resolved to a page
    # (`kbkit.pages.page_summary.resolve` interns it) shares the path instead of a copy per link.
    files = frozenset(map(sys.intern, walk.files))
    md_files = [sys.intern(rel) for rel in walk.pages]
    # Everything the tree needs from the walk, taken now: the walk itself is released
    # before the parse, which is when memory peaks.
    folders = build_folders(walk, suffixes)
    problems = tuple(walk.problems)
    # The stat keys: the walk's, each parsed page's replaced by the one its read took (the
    # key of the bytes parsed; a walk without page stats, `walk_root`, has none at all). They
    # are copied only when a read's key differs, and only once the parse helpers are forked:
    # the walk's keys stay shared with them, and a copy is this process's alone.
    packed_keys: bytes | bytearray = walk.packed_keys
    del walk
    cache = _open_cache(repo, policy, options)
    if cache is not None:  # the cache writes the entries from the keys and `payload` below
        cache.follow(md_files, packed_keys)
    pages: dict[str, Page] = {}
    summaries: dict[str, Summary] = {}
    analysis: dict[str, list[Finding]] = {}
    facts: dict[str, dict[str, Any]] = {}
    inputs = PageDigests(md_files)

    shared: dict[Any, Any] = {}

    def keep(rel: str, index: int, plain: Plain) -> None:
        page, summaries[rel], found, facts[rel], digest = decode_entry(plain)
        inputs.put(index, digest)
        share_values(facts[rel], shared)
        if page is not None:
            pages[rel] = page
        if found:
            analysis[rel] = found

    todo: list[str] = []
    todo_index = array("q")  # each todo page's place in md_files (and packed_keys)
    if cache is None or not cache.has_entries():  # nothing to reuse: every page is parsed
        todo.extend(md_files)
        todo_index.extend(range(len(md_files)))
    else:
        top_dir = str(top)
        walk_keys = PACKED_KEY.iter_unpack(packed_keys) if packed_keys else repeat(None)
        for index, (rel, key) in enumerate(zip(md_files, walk_keys, strict=False)):
            hit = cache.get(rel, os.path.join(top_dir, rel), key)  # None: get stats the file
            if hit is not None:
                try:
                    keep(rel, index, hit)
                    continue
                except BAD_ENTRY:  # an entry of another shape (a damaged cache): parse again
                    cache.dirty = True
            todo.append(rel)
            todo_index.append(index)
    size = PACKED_KEY.size
    # only the cache keeps digests, and only of racy files: no other read hashes its bytes
    digest_from = cache.racy_from_ns if cache is not None else NEVER
    try:
        for count, (place, plain, dig, key) in enumerate(
            _parse_all(top, root_rel, todo, policy, options, digest_from, files), 1
        ):
            rel, index = todo[place], todo_index[place]
            keep(rel, index, plain)
            if count % FREEZE_EVERY == 0:
                gc.freeze()  # kept entries live to the end: spare the collector re-scanning them
            if dig == b"":  # decode errors and refusals are cached; files that could
                if cache is not None:  # not be opened are not
                    cache.skip(rel)
                continue
            packed = PACKED_KEY.pack(*key)
            if packed_keys[index * size : (index + 1) * size] != packed:
                if not isinstance(packed_keys, bytearray):
                    packed_keys = bytearray(packed_keys or size * len(md_files))
                    if cache is not None:
                        cache.follow(md_files, packed_keys)
                packed_keys[index * size : (index + 1) * size] = packed
            if cache is not None:  # written while the parse runs, a chunk at a time
                cache.add(index, key, dig, plain)
    except BaseException:
        if cache is not None:
            cache.discard()
        raise
    finally:
        gc.unfreeze()
    if len(packed_keys) != size * len(md_files):  # no page was read: every key unknown
        packed_keys = bytes(size * len(md_files))
        if cache is not None:
            cache.follow(md_files, packed_keys)
    if cache is not None:

        def payload(rel: str) -> Plain:
            page = pages.get(rel)
            return (
                page_to_plain(page) if page is not None else None,
                tuple(summaries[rel]),
                [tuple(f) for f in analysis.get(rel, ())],
                facts[rel],
                inputs[rel],
            )

        cache.save(payload)
    return Tree(
        repo,
        policy,
        root_rel,
        True,
        {rel: pages[rel] for rel in md_files} if options.keep_pages else {},
        folders,
        files,
        problems,
        analysis,
        facts,
        {rel: summaries[rel] for rel in md_files},
        packed_keys,
        inputs,
    )


def _open_cache(repo: Path, policy: Policy, options: LoadOptions) -> PageCache | None:
    if not options.use_cache:
        return None
    analyzer = getattr(options.analyze, "__qualname__", "none")
    namespace = (
        f"{code_fingerprint()}:{policy.fingerprint}:{analyzer}:"
        f"{options.keep_text}:{options.keep_pages}"
    )
    return PageCache(cache_file(repo, "pages"), namespace)


def build_folders(walk: Walk, suffixes: tuple[str, ...] = (".md",)) -> dict[str, Folder]:
    files_by_dir, dirs_by_dir = walk.files_by_dir, walk.dirs_by_dir
    folders: dict[str, Folder] = {}
    order = sorted(files_by_dir, key=lambda r: r.count("/") + (1 if r else 0), reverse=True)
    for rel in order:
        pages = tuple(sorted(n for n in files_by_dir[rel] if n.endswith(suffixes)))
        children = tuple(sorted(dirs_by_dir[rel]))
        has_md = bool(pages) or any(
            folders[f"{rel}/{c}" if rel else c].has_markdown for c in children
        )
        folders[rel] = Folder(rel, pages, children, has_md)
    return dict(sorted(folders.items()))
