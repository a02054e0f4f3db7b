"""Is the tree getting better: what `kb check` says of the tree at the end of sample days of
the window, from the tree's own git history.

The sample days are the window's Mondays and its last day (at most `MAX_POINTS`): fixed
days, so that tomorrow's report samples the same past days and finds them in the cache.
A day's tree is the last commit on HEAD's first-parent line made by the end of that day
(UTC, committer time), checked as a fresh clone of it would be: its knowledge root and
top-level `kbkit.yaml`, its own policy, that day as "today", this kbkit's validators. The
window's last day, when it is today, is the working tree: the figures `kb check` prints.
Results are kept in `.kbkit-cache/report-trend.json` by commit tree, day and kbkit code; the
past trees are checked out in `.kbkit-cache/report-trend/`, moved from commit to commit by
the files that differ, so only changed pages are parsed again.
"""

from __future__ import annotations

import json
import posixpath
import shutil
import tarfile
import tempfile
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from kbkit.report.batches import read_object
from kbkit.report.window import Window
from kbkit.tree.cache import CACHE_DIR

MAX_POINTS = 8
CACHE_NAME = "report-trend.json"
SHADOW_NAME = "report-trend"  # the past trees' checkout (`Shadow`)
CACHE_ENTRIES = 400  # the newest keys kept: a year of daily reports' sample points


def sample_days(window: Window) -> list[date]:
    """The window's Mondays and its last day, oldest first, thinned to MAX_POINTS (the
    thinning keeps every k-th Monday counted from the window's start, a fixed grid)."""
    first = window.since + timedelta(days=(7 - window.since.weekday()) % 7)
    mondays = []
    day = first
    while day < window.until:
        mondays.append(day)
        day += timedelta(days=7)
    step = -(-len(mondays) // (MAX_POINTS - 1)) if mondays else 1
    return [*mondays[::step], window.until]


def collect(
    repo: Path, knowledge_root: str, window: Window, today: date, use_cache: bool
) -> dict[str, Any]:
    """The past sample days' figures (the caller adds today's); never raises for git."""
    from kbkit.vcs import git

    source = "git history of HEAD (first parents), each sample day's tree checked by kb check"
    try:
        history = git.first_parent_history(repo) if git.is_repository(repo) else []
        prefix = git.path_prefix(repo) if history else ""
    except git.GitError as exc:
        return {"source": source, "points": [], "note": f"git history unreadable: {exc}"}
    if not history:
        return {
            "source": source,
            "points": [],
            "note": "no git history: the trend starts with the first commit",
        }
    cache_path = repo / CACHE_DIR / CACHE_NAME
    cache = read_object(cache_path) if use_cache else {}
    wanted: list[tuple[date, str, str, str | None, str]] = []  # day, commit, tree, policy, key
    notes: list[str] = []
    for day in sample_days(window):
        if day >= today:
            continue  # the working tree: the caller's current figures
        commit = _commit_by(history, day)
        if commit is None:
            continue  # before the first commit
        try:
            tree = git.object_id(repo, commit, prefix + knowledge_root)
            policy = git.object_id(repo, commit, prefix + "kbkit.yaml")
        except git.GitError as exc:
            notes.append(f"{day}: {exc}")
            continue
        if tree is not None:  # else no knowledge tree yet at that commit
            wanted.append((day, commit, tree, policy, f"{_code()}:{day}:{tree}:{policy or '-'}"))
    missing = [w for w in wanted if not isinstance(cache.get(w[4]), dict)]
    if missing:
        cache.update(_check_days(repo, knowledge_root, missing, use_cache))
        if use_cache:
            _write_cache(cache_path, cache)
    points = [
        {"day": day.isoformat(), "commit": commit, **cache[key]}
        for day, commit, _tree, _policy, key in wanted
    ]
    return {"source": source, "points": points, "note": "; ".join(notes)}


def _commit_by(history: list[tuple[str, int]], day: date) -> str | None:
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC).timestamp()
    for sha, stamp in history:  # newest first
        if stamp < end:
            return sha
    return None


def _code() -> str:
    from kbkit.tree.cache import code_fingerprint

    return code_fingerprint()


def _check_days(
    repo: Path, root: str, days: list[tuple[date, str, str, str | None, str]], keep: bool
) -> dict[str, dict[str, Any]]:
    """Figures per cache key: each day's tree checked in the shadow checkout, oldest first
    (so the checkout moves forward by small differences). `keep`: the checkout and its parse
    cache live on in `.kbkit-cache/report-trend/` for the next report (under a lock); else in
    a temporary folder."""
    from kbkit.infra.file_lock import locked

    if not keep:
        with tempfile.TemporaryDirectory(prefix="kbkit-trend-") as scratch:
            return _check_in(Shadow(repo, Path(scratch), root), days)
    from kbkit.infra.state_folder import make_state_folder

    top = make_state_folder(repo / CACHE_DIR, "kbkit's parse cache; safe to delete") / SHADOW_NAME
    top.mkdir(exist_ok=True)
    with locked(top):
        return _check_in(Shadow(repo, top, root), days)


def _check_in(
    shadow: Shadow, days: list[tuple[date, str, str, str | None, str]]
) -> dict[str, dict[str, Any]]:
    from kbkit.infra.errors import KbkitError

    out = {}
    for day, _commit, tree, policy, key in days:
        try:
            shadow.move_to(tree, policy)
            out[key] = shadow.check(day)
        except (KbkitError, OSError, tarfile.TarError) as exc:
            text = " ".join(str(exc).replace(str(shadow.top), "").split())[:300]
            out[key] = {"error": text}
    return out


class Shadow:
    """One folder holding a past commit's knowledge root (and top-level `kbkit.yaml`), moved
    from commit to commit by the files that differ, so the parse cache inside it only parses
    what changed. `tree.txt` names the tree it holds; `dirty` while it moves (a move that was
    cut short is redone from scratch)."""

    MARK = "tree.txt"
    MAX_CHANGES = 2000  # more than this many changed files: extract the whole tree instead

    def __init__(self, repo: Path, top: Path, root: str) -> None:
        self.repo, self.top, self.root = repo, top, root

    def held(self) -> tuple[str, str] | None:
        try:
            tree, policy = (self.top / self.MARK).read_text(encoding="ascii").split()
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        return None if tree == "dirty" else (tree, policy)

    def move_to(self, tree: str, policy: str | None) -> None:
        from kbkit.infra.jsonl import atomic_write_text
        from kbkit.vcs import git

        held = self.held()
        if held == (tree, policy or "-"):
            return
        changes = None
        if held is not None:
            try:
                changes = git.tree_changes(self.repo, held[0], tree)
            except git.GitError:  # the tree held is gone (history rewritten, gc): start over
                changes = None
        atomic_write_text(self.top / self.MARK, "dirty -\n")
        if changes is None or len(changes) > self.MAX_CHANGES:
            shutil.rmtree(self.top / self.root, ignore_errors=True)
            self._extract(tree, ())
        else:
            fetch = []
            for status, mode, path in changes:
                target = self.top / self.root / path
                if status != "A":
                    target.unlink(missing_ok=True)
                    _prune(target.parent, self.top / self.root)
                if status != "D" and mode in REGULAR:
                    fetch.append(path)
            if fetch:
                self._extract(tree, tuple(f":(literal){path}" for path in fetch))
        kbkit_yaml = self.top / "kbkit.yaml"
        if policy is None:
            kbkit_yaml.unlink(missing_ok=True)
        else:
            kbkit_yaml.write_bytes(git.blob(self.repo, policy))
        atomic_write_text(self.top / self.MARK, f"{tree} {policy or '-'}\n")

    def _extract(self, tree: str, paths: tuple[str, ...]) -> None:
        from kbkit.vcs import git

        archive = self.top / "tree.tar"
        try:
            git.archive_tree(self.repo, tree, archive, paths)
            _extract(archive, self.top / self.root)
        finally:
            archive.unlink(missing_ok=True)

    def check(self, day: date) -> dict[str, Any]:
        """Pages, errors and warnings of the tree held, as `kb check --today DAY` counts them."""
        from kbkit.checks.runner import check_tree, checked_pages, load_for_checks
        from kbkit.policy.model import load_policy
        from kbkit.rulebook.findings import count

        (self.top / self.root).mkdir(parents=True, exist_ok=True)
        policy = load_policy(self.top)
        loaded = load_for_checks(self.top, policy, use_cache=True)
        errors, warnings = count(check_tree(loaded, ("tree", "lint"), day))
        return {"pages": checked_pages(loaded, ("tree", "lint")), "errors": errors,
                "warnings": warnings}  # fmt: skip


REGULAR = ("100644", "100755")


def _prune(folder: Path, stop: Path) -> None:
    """Remove `folder` and its parents up to `stop` while they are empty."""
    while folder != stop and folder.is_relative_to(stop):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _extract(archive: Path, dest: Path) -> None:
    """Regular files only, each inside `dest` (links and devices of a past tree are left out)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        for member in tar:
            name = posixpath.normpath(member.name)
            if not member.isfile() or name.startswith(("/", "..")) or name == ".":
                continue
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                with source, open(target, "wb") as out:
                    out.write(source.read())


def _write_cache(path: Path, cache: dict[str, Any]) -> None:
    from kbkit.infra.jsonl import atomic_write_text
    from kbkit.infra.state_folder import make_state_folder

    kept = dict(list(cache.items())[-CACHE_ENTRIES:])
    try:
        make_state_folder(path.parent, "kbkit's parse cache; safe to delete")
        atomic_write_text(path, json.dumps(kept, sort_keys=False) + "\n")
    except OSError:
        pass  # a cache: the next report computes the points again
