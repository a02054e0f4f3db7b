"""The tree model: every page of a knowledge root, parsed once, plus an in-memory file index.

Paths inside the model are POSIX paths relative to the knowledge root (`general/x.md`);
`Tree.repo_path` turns them into repo-relative paths for messages. Links are resolved against
the in-memory index (`Tree.exists`), never with one filesystem call per link.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import NamedTuple

from kbkit.findings import ERROR, WARNING, Finding
from kbkit.page import Page, parse_page, unreadable_page
from kbkit.paths import document_id
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

    def repo_path(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def doc_id(self, rel: str) -> str:
        return document_id(rel)

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

    def resolve(self, page_rel: str, target: str) -> str | None:
        """Root-relative path a relative link target points to (None for empty targets)."""
        path = target.split("#", 1)[0].split("?", 1)[0]
        if not path:
            return None
        base = posixpath.dirname(page_rel)
        joined = posixpath.normpath(posixpath.join(base, path))
        return "" if joined == "." else joined

    def in_roots(self, rel: str) -> bool:
        first = rel.split("/", 1)[0]
        return first in self.policy["roots"] and "/" in rel

    def page_items(self) -> list[tuple[str, Page]]:
        return sorted(self.pages.items())


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


def _read_page(top: Path, rel: str, repo_rel: str) -> Page:
    try:
        data = (top / rel).read_bytes()
    except OSError as exc:
        return unreadable_page(repo_rel, 0, f"cannot read ({exc.strerror or exc})")
    return parse_page(repo_rel, data)


def load_tree(repo: Path, policy: Policy) -> Tree:
    """Walk the knowledge root once, read and parse every page once."""
    root_rel = policy.knowledge_root
    top = repo / root_rel
    problems: list[Finding] = []
    if not top.is_dir():
        return Tree(repo, policy, root_rel, False, {}, {}, frozenset(), ())
    files_by_dir, dirs_by_dir, all_files = _walk(top, problems, root_rel)
    pages = {
        rel: _read_page(top, rel, f"{root_rel}/{rel}")
        for rel in sorted(all_files)
        if rel.endswith(".md")
    }
    folders = _build_folders(files_by_dir, dirs_by_dir)
    return Tree(repo, policy, root_rel, True, pages, folders, frozenset(all_files), tuple(problems))


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
