"""Is the tree getting better: what `kb check` says of the tree at the end of sample days of
the window, from the tree's own git history.

The sample days are the window's Mondays and its last day (at most `MAX_POINTS`): fixed
days, so that tomorrow's report samples the same past days and finds them in the cache.
A day's tree is the last commit on HEAD's first-parent line made by the end of that day
(UTC, committer time), checked as a fresh clone of it would be: its knowledge root and
top-level `kbkit.yaml`, its own policy, that day as "today", this kbkit's validators. The
window's last day, when it is today, is the working tree: the figures `kb check` prints.
Results are kept in `.kbkit-cache/report-trend.json` by commit tree, day and kbkit code.
"""

from __future__ import annotations

import json
import posixpath
import tarfile
import tempfile
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from kbkit.report.window import Window
from kbkit.tree.cache import CACHE_DIR

MAX_POINTS = 8
CACHE_NAME = "report-trend.json"
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
    cache = _read_cache(cache_path) if use_cache else {}
    points: list[dict[str, Any]] = []
    notes: list[str] = []
    fresh = False
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
        if tree is None:
            continue  # no knowledge tree yet at that commit
        key = f"{_code()}:{day.isoformat()}:{tree}:{policy or '-'}"
        figures = cache.get(key)
        if not isinstance(figures, dict):
            figures = _check_commit(repo, tree, policy, knowledge_root, day)
            cache[key] = figures
            fresh = True
        points.append({"day": day.isoformat(), "commit": commit, **figures})
    if use_cache and fresh:
        _write_cache(cache_path, cache)
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


def _check_commit(
    repo: Path, tree: str, policy_blob: str | None, root: str, day: date
) -> dict[str, Any]:
    """Pages, errors and warnings of the tree object `tree`, as `kb check` counts them."""
    from kbkit.checks.runner import check_tree, checked_pages, load_for_checks
    from kbkit.infra.errors import KbkitError
    from kbkit.policy.model import load_policy
    from kbkit.rulebook.findings import count
    from kbkit.vcs import git

    with tempfile.TemporaryDirectory(prefix="kbkit-trend-") as scratch:
        top = Path(scratch)
        try:
            archive = top / "tree.tar"
            archive.write_bytes(git.archive_tree(repo, tree))
            _extract(archive, top / root)
            archive.unlink()
            if policy_blob is not None:
                (top / "kbkit.yaml").write_bytes(git.blob(repo, policy_blob))
            policy = load_policy(top)
            loaded = load_for_checks(top, policy)
            findings = check_tree(loaded, ("tree", "lint"), day)
        except (KbkitError, OSError, tarfile.TarError) as exc:
            return {"error": " ".join(str(exc).replace(scratch, "").split())[:300]}
        errors, warnings = count(findings)
        return {
            "pages": checked_pages(loaded, ("tree", "lint")),
            "errors": errors,
            "warnings": warnings,
        }


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


def _read_cache(path: Path) -> dict[str, Any]:
    from kbkit.infra import json_input

    try:
        data = json_input.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, cache: dict[str, Any]) -> None:
    from kbkit.infra.jsonl import atomic_write_text
    from kbkit.infra.state_folder import make_state_folder

    kept = dict(list(cache.items())[-CACHE_ENTRIES:])
    try:
        make_state_folder(path.parent, "kbkit's parse cache; safe to delete")
        atomic_write_text(path, json.dumps(kept, sort_keys=False) + "\n")
    except OSError:
        pass  # a cache: the next report computes the points again
