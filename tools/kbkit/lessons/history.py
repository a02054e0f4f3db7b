"""What a purge cannot rewrite: the purged rows in a git history the store is committed to.

When the lessons logs or the intake ledger are tracked by git, every earlier commit still
holds the rows `kb lessons forget --purge` removed. `history_note` says so, writes a
`git filter-repo --replace-text` expressions file that names the rows by their ids (never
by their text) and prints the exact command that rewrites the history.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbkit.infra.jsonl import atomic_write_text
from kbkit.vcs.git import GitError, is_repository, run_git

if TYPE_CHECKING:
    from kbkit.lessons.store import LessonStore


def expressions(purge: dict[str, Any]) -> str:
    """filter-repo expressions that drop every line naming a purged lesson, key or task."""
    lines = []

    def drop(field: str, value: str) -> None:
        quoted = re.escape(f'"{field}":"{value}"')
        lines.append(f"regex:(?m)^[^\\n]*{quoted}[^\\n]*\\n==>")

    for lesson in purge["lessons"]:
        drop("id", lesson)  # lessons.jsonl
        drop("source_id", lesson)  # intake/events.jsonl (the promotion's text)
    for _lesson, _kind, source in purge["keys"]:
        drop("source_id", source)  # evidence.jsonl
    for task in purge["tasks"]:
        drop("task", task)  # evidence.jsonl, outcomes.jsonl
    return "".join(f"{line}\n" for line in dict.fromkeys(lines))


def history_note(root: Path, store: LessonStore, report: Any) -> list[str]:
    """Lines to print when the purged files are tracked by git (none when they are not)."""
    try:
        if not is_repository(root):
            return []
        top = Path(run_git(root, "rev-parse", "--show-toplevel").strip())
        names = [store.log(name) for name in ("lessons", "evidence", "outcomes")]
        names.append(store.root.parent / "events.jsonl")
        paths = [str(path.resolve().relative_to(top.resolve())) for path in names]
        tracked = run_git(top, "ls-files", "--", *paths).split()
        history = run_git(top, "log", "--format=%H", "-1", "--", *paths).strip()
    except (GitError, ValueError, OSError):
        return []
    if not tracked and not history:
        return []
    purge = report.plan
    path = store.cache_dir / f"purge-{purge['id']}.expressions"
    atomic_write_text(path, expressions(purge))
    return [
        "  git history still holds the purged text: "
        f"{', '.join(tracked) or ', '.join(paths)} "
        "are committed, and every earlier commit keeps the removed rows. To rewrite the "
        "history (every clone must then be re-cloned; pip install git-filter-repo):",
        f"    git -C {top} filter-repo --force --replace-text {path.resolve()}",
        "  then force-push the rewritten branches.",
    ]
