"""The tree model: every page of a knowledge root, parsed once, plus an in-memory file index.

Paths inside the model are POSIX paths relative to the knowledge root (`general/x.md`);
`Tree.repo_path` turns them into repo-relative paths for messages. Links are resolved against
the in-memory index (`Tree.exists`), never with one filesystem call per link.
"""

from __future__ import annotations

import functools
import gc
import marshal
import os
import posixpath
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.cache import PageCache, StatKey, cache_file, code_fingerprint, digest, stat_key
from kbkit.findings import ERROR, WARNING, Finding
from kbkit.page import Page, page_from_plain, page_to_plain, parse_page, unreadable_page
from kbkit.policy import Policy

UNREADABLE = "kb/unreadable"


class Folder(NamedTuple):
    path: str  # relative to the knowledge root; "" is the root itself
    pages: tuple[str, ...]  # names of the direct *.md files, sorted
    children: tuple[str, ...]  # names of the direct sub-folders, sorted
    has_markdown: bool  # a *.md file at any depth


class Tree(NamedTuple):
    repo: Path
    policy: Policy
    root: str  # the knowledge root, relative to the repo ("knowledge")
    exists_root: bool
    pages: dict[str, Page]  # every *.md under the root, by root-relative path
    folders: dict[str, Folder]
    files: frozenset[str]  # every file (any extension) under the root
    problems: tuple[Finding, ...]  # what the walk could not read
    analysis: dict[str, list[Finding]]  # page-local findings by root-relative path
    facts: dict[str, dict[str, Any]]  # page-local facts for cross-page checks, by path

    def repo_path(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def exists(self, rel: str) -> bool:
        """Does a root-relative path (file or folder) exist? Paths may climb out with `..`."""
        if rel.startswith("../") or rel == "..":
            return self._exists_outside(rel)
        return rel in self.files or rel in self.folders or rel == ""

    def _exists_outside(self, rel: str) -> bool:
        repo_rel = posixpath.normpath(posixpath.join(self.root, rel))
        if repo_rel == ".." or repo_rel.startswith("../"):
            return False  # outside the repository: nothing there can be relied on
        return os.path.exists(self.repo / repo_rel)

    def resolve(self, page_rel: str, path: str) -> str | None:
        """Root-relative path a link's path part (`Link.path_part`) points to; None if empty."""
        return _resolve(posixpath.dirname(page_rel), path)

    def in_roots(self, rel: str) -> bool:
        first = rel.split("/", 1)[0]
        return first in self.policy["roots"] and "/" in rel

    def page_items(self) -> list[tuple[str, Page]]:
        """Pages in path order (`load_tree` builds `pages` sorted)."""
        return list(self.pages.items())


@functools.lru_cache(maxsize=65536)
def _resolve(base: str, path: str) -> str | None:
    if not path:
        return None
    joined = posixpath.normpath(posixpath.join(base, path))
    return "" if joined == "." else joined


def _walk(
    top: Path, problems: list[Finding], root_rel: str
) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """Collect folders -> files and folders -> sub-folders without following folder symlinks."""
    files_by_dir: dict[str, list[str]] = {}
    dirs_by_dir: dict[str, list[str]] = {}
    all_files: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        here = top / rel if rel else top
        files_by_dir[rel] = []
        dirs_by_dir[rel] = []
        try:
            entries = list(os.scandir(here))
        except OSError as exc:
            problems.append(
                Finding(
                    f"{root_rel}/{rel}".rstrip("/"),
                    0,
                    UNREADABLE,
                    ERROR,
                    f"cannot list this folder ({exc.strerror or exc})",
                )
            )
            continue
        for entry in entries:
            name = entry.name
            child = f"{rel}/{name}" if rel else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if is_link:
                try:
                    target_is_dir = stat.S_ISDIR(os.stat(entry.path).st_mode)
                except OSError as exc:
                    problems.append(
                        Finding(
                            f"{root_rel}/{child}",
                            0,
                            UNREADABLE,
                            ERROR,
                            f"broken or looping symlink ({exc.strerror or exc})",
                        )
                    )
                    continue
                if target_is_dir:
                    problems.append(
                        Finding(
                            f"{root_rel}/{child}",
                            0,
                            UNREADABLE,
                            WARNING,
                            "symlinked folder not followed (it could loop)",
                        )
                    )
                    continue
            if is_dir:
                dirs_by_dir[rel].append(name)
                stack.append(child)
                if name.endswith(".md"):
                    problems.append(
                        Finding(
                            f"{root_rel}/{child}",
                            0,
                            UNREADABLE,
                            ERROR,
                            "a folder named like a page; rename it",
                        )
                    )
            else:
                files_by_dir[rel].append(name)
                all_files.append(child)
    return files_by_dir, dirs_by_dir, all_files


# Page-local analysis: (findings, facts). Facts are small marshal-friendly values that
# cross-page checks need once the page's text is gone (digests, ids, ...).
Analysis = tuple[list[Finding], dict[str, Any]]
Analyzer = Callable[[str, Page, Policy], Analysis]
NO_ANALYSIS: Analysis = ([], {})


CROSS_PAGE_META = ("confidence", "contested")


def compact(rel: str, page: Page, policy: Policy, keep_text: bool) -> Page:
    """The page as the loaded tree keeps it. Validators (keep_text=False) keep the text only
    of index pages and of pages with an inline suppression, drop code blocks and headings,
    and keep only the frontmatter keys that cross-page checks read (the required ones);
    page-local checks already ran on the full page, so memory stays bounded at any size."""
    if keep_text:
        return page
    front = page.frontmatter
    if front.data:
        wanted = (*policy.data["frontmatter"]["required"], *CROSS_PAGE_META)
        data = {k: _interned(front.data[k]) for k in wanted if k in front.data}
        front = front._replace(data=data)
    text = page.text if _keeps_text(rel, page) else ""
    return page._replace(text=text, frontmatter=front, code_blocks=(), headings=())


def _interned(value: Any) -> Any:
    """Share repeated frontmatter strings (types, tags, dates) across thousands of pages."""
    if isinstance(value, str) and len(value) <= 64:
        return sys.intern(value)
    if isinstance(value, list):
        return [_interned(item) for item in value]
    return value


def _shared_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """Pages without facts of their own share one mapping (read-only by contract)."""
    if any(facts.values()):
        return facts
    key = tuple(facts)
    return _EMPTY_FACTS.setdefault(key, {name: {} for name in key})


_EMPTY_FACTS: dict[tuple[str, ...], dict[str, Any]] = {}


def _keeps_text(rel: str, page: Page) -> bool:
    return rel.endswith("/_index.md") or rel == "_index.md" or _has_suppression(page)


def _has_suppression(page: Page) -> bool:
    return any(comment.text.startswith("kb-disable-next-line") for comment in page.comments)


class LoadOptions(NamedTuple):
    """How to load: page-local analysis to run while each page's full text is at hand."""

    analyze: Analyzer | None = None
    use_cache: bool = False  # the check commands turn it on; library loads write nothing
    jobs: int = 0  # 0: decide from the work size and the CPU count
    keep_text: bool = True  # False: only index pages keep their text (bounded memory)


Loaded = tuple[
    str, Page, list[Finding], dict[str, Any], bytes
]  # rel, page, findings, facts, digest


def _read_and_analyze(
    top: str, rel: str, repo_rel: str, policy: Policy, options: LoadOptions
) -> Loaded:
    try:
        with open(os.path.join(top, rel), "rb") as handle:
            data = handle.read()
    except OSError as exc:
        page = unreadable_page(repo_rel, 0, f"cannot read ({exc.strerror or exc})")
        return rel, page, [], {}, b""
    page = parse_page(repo_rel, data)
    findings, facts = NO_ANALYSIS
    if options.analyze is not None and page.error is None:
        findings, facts = options.analyze(rel, page, policy)
    return rel, compact(rel, page, policy, options.keep_text), findings, facts, digest(data)


def _work_chunk(args: tuple[str, list[tuple[str, str]], Policy, LoadOptions]) -> bytes:
    """Parse a chunk in a worker; the result travels as one marshal blob (plain data only,
    several times cheaper to encode and decode than pickled tuples)."""
    top, items, policy, options = args
    out = []
    for rel, repo_rel in items:
        _, page, findings, facts, dig = _read_and_analyze(top, rel, repo_rel, policy, options)
        out.append((rel, page_to_plain(page), [tuple(f) for f in findings], facts, dig))
    return marshal.dumps(out)


PARALLEL_MIN_PAGES = 600
CHUNK = 100  # pages per message between processes


def _parse_all(
    top: Path, todo: list[tuple[str, str]], policy: Policy, options: LoadOptions
) -> Iterator[Loaded]:
    """Parse pages, on several processes when the batch is large enough to pay for them.
    Results stream back in small chunks so neither side ever holds the whole tree twice."""
    jobs = options.jobs or min(os.cpu_count() or 1, 8)
    if jobs <= 1 or len(todo) < PARALLEL_MIN_PAGES:
        for rel, repo_rel in todo:
            yield _read_and_analyze(str(top), rel, repo_rel, policy, options)
        return
    chunks = [(str(top), todo[i : i + CHUNK], policy, options) for i in range(0, len(todo), CHUNK)]
    import multiprocessing  # only large cold loads pay for it

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    gc.freeze()  # forked workers then leave the parent's objects (and their pages) alone
    try:
        with multiprocessing.get_context(method).Pool(jobs) as pool:
            for blob in pool.imap(_work_chunk, chunks):
                for rel, plain, found, facts, dig in marshal.loads(blob):
                    yield rel, page_from_plain(plain), [Finding(*f) for f in found], facts, dig
    finally:
        gc.unfreeze()


def load_tree(repo: Path, policy: Policy, options: LoadOptions | None = None) -> Tree:
    """Walk the knowledge root once; read, parse and analyze every page once (or reuse the cache)."""
    options = options or LoadOptions()
    root_rel = policy.knowledge_root
    top = repo / root_rel
    problems: list[Finding] = []
    if not top.is_dir():
        return Tree(repo, policy, root_rel, False, {}, {}, frozenset(), (), {}, {})
    files_by_dir, dirs_by_dir, all_files = _walk(top, problems, root_rel)
    md_files = sorted(rel for rel in all_files if rel.endswith(".md"))
    cache = _open_cache(repo, policy, options)
    pages: dict[str, Page] = {}
    analysis: dict[str, list[Finding]] = {}
    facts: dict[str, dict[str, Any]] = {}
    todo: list[tuple[str, str]] = []
    keys: dict[str, StatKey] = {}
    top_dir = str(top)
    for rel in md_files:
        path = os.path.join(top_dir, rel)
        try:
            keys[rel] = stat_key(os.stat(path))
        except OSError:
            keys[rel] = (0, 0, 0, 0)
        hit = cache.get(rel, keys[rel], path) if cache is not None else None
        if hit is None:
            todo.append((rel, f"{root_rel}/{rel}"))
            continue
        page, found, page_facts = _decode(hit)
        pages[rel], analysis[rel], facts[rel] = page, found, _shared_facts(page_facts)
        if cache is not None:
            cache.keep(rel, keys[rel], (page, found, page_facts))
    for rel, page, found, page_facts, dig in _parse_all(top, todo, policy, options):
        pages[rel], analysis[rel], facts[rel] = page, found, _shared_facts(page_facts)
        if cache is not None and dig:  # decode errors are cached too; unreadable files are not
            cache.put(rel, keys[rel], dig, (page, found, page_facts))
    if cache is not None:
        cache.save(_encode)
    folders = _build_folders(files_by_dir, dirs_by_dir)
    ordered = {rel: pages[rel] for rel in md_files}
    return Tree(
        repo,
        policy,
        root_rel,
        True,
        ordered,
        folders,
        frozenset(all_files),
        tuple(problems),
        analysis,
        facts,
    )


def _encode(value: tuple[Page, list[Finding], dict[str, Any]]) -> tuple[Any, ...]:
    page, found, page_facts = value
    return (page_to_plain(page), [tuple(f) for f in found], page_facts)


def _decode(plain: tuple[Any, ...]) -> tuple[Page, list[Finding], dict[str, Any]]:
    return page_from_plain(plain[0]), [Finding(*f) for f in plain[1]], plain[2]


def _open_cache(repo: Path, policy: Policy, options: LoadOptions) -> PageCache | None:
    if not options.use_cache:
        return None
    analyzer = getattr(options.analyze, "__qualname__", "none")
    namespace = f"{code_fingerprint()}:{policy.fingerprint}:{analyzer}:{options.keep_text}"
    return PageCache(cache_file(repo, "pages"), namespace)


def _build_folders(
    files_by_dir: dict[str, list[str]], dirs_by_dir: dict[str, list[str]]
) -> dict[str, Folder]:
    folders: dict[str, Folder] = {}
    order = sorted(files_by_dir, key=lambda r: r.count("/") + (1 if r else 0), reverse=True)
    for rel in order:
        pages = tuple(sorted(n for n in files_by_dir[rel] if n.endswith(".md")))
        children = tuple(sorted(dirs_by_dir[rel]))
        has_md = bool(pages) or any(
            folders[f"{rel}/{c}" if rel else c].has_markdown for c in children
        )
        folders[rel] = Folder(rel, pages, children, has_md)
    return dict(sorted(folders.items()))
