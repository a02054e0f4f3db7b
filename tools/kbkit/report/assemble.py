"""The report's numbers: every section collected once, as one JSON-ready mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra import clock
from kbkit.report.window import DEFAULT_DAYS, Window

VERSION = 2


class Sources(NamedTuple):
    """Where each section reads from."""

    repo: Path  # holds the knowledge tree (and, by default, intake/ and state/)
    intake: Path
    state: Path
    # the folder the report names ledger and artifact files from ("from intake/events.jsonl");
    # None: `repo`. Distill's tree is a work clone, while its ledgers live beside the clone.
    shown_from: Path | None = None
    # the lessons store; None: `intake`/lessons (a team may keep lessons in another repository)
    lessons: Path | None = None


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix() or "."
    except ValueError:
        return str(path)


def build(
    sources: Sources,
    window: Window,
    *,
    use_cache: bool = True,
    fork: bool = True,
    everything: bool = False,
) -> dict[str, Any]:
    """Collect every section; a missing ledger, store or artifact folder reads as empty.
    With `fork`, the ledger and lessons reads run in a forked child while this process
    checks the tree (they share nothing); the result is the same either way."""
    from kbkit.infra.jsonl import gc_paused
    from kbkit.infra.parallel import Aside
    from kbkit.policy.model import load_policy
    from kbkit.report import loop_health, tree_health

    now = clock.now()
    with gc_paused():  # 100k-row ledgers and stores make no cycles; collections only cost time
        policy = load_policy(sources.repo)
        root = policy.knowledge_root
        side = Aside(lambda: _read_logs(sources, window, now, root, use_cache, everything), fork=fork)  # fmt: skip
        try:
            tree = tree_health.collect(sources.repo, policy, now.date(), use_cache)
            logs = side.result()
        finally:
            side.close()
    trend = logs.pop("trend")
    trend["points"].append(
        {
            "day": now.date().isoformat(),
            "commit": None,  # the working tree, as `kb check` sees it now
            "pages": tree["pages"],
            "errors": tree["findings"]["errors"],
            "warnings": tree["findings"]["warnings"],
        }
    )
    tree["trend"] = trend
    logs["loop"] = loop_health.collect(logs["intake"], logs["curator"], now)
    return {
        "version": VERSION,
        "generated_at": clock.timestamp(now),
        "repo": repository_name(sources.repo),
        "window": {
            **window.to_dict(),
            "default": f"the last {DEFAULT_DAYS} days up to today (UTC)",
        },
        "tree": tree,
        **logs,
    }


def repository_name(repo: Path) -> str:
    """How the page names the repository: `owner/name` of its `origin` remote on a forge,
    the remote folder's name for a local clone, else the folder's own name (never a path)."""
    import re

    from kbkit.vcs import git

    url = None
    try:
        if (repo / ".git").exists():
            url = git.remote_url(repo)
    except git.GitError:
        url = None
    if url:
        forge = re.search(r"[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$", url)
        if forge and re.match(r"^(https://|ssh://|git@)", url):
            return f"{forge.group(1)}/{forge.group(2)}"
        name = Path(url.rstrip("/")).name.removesuffix(".git")
        if name:
            return name
    return repo.resolve().name or "repository"


def _read_logs(
    sources: Sources, window: Window, now: Any, root: str, use_cache: bool, everything: bool = False
) -> dict[str, Any]:
    """The intake, curator and lessons sections (everything read from the ledgers), and the
    tree's past figures from git. `everything`: no list is cut (`kb report --all`)."""
    from kbkit.intake.batch_ledger import BATCHES_FILE, read_batches
    from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE
    from kbkit.lessons.store import STORE_DIR
    from kbkit.report import batches, intake_funnel, lessons_section, trend

    base = sources.shown_from or sources.repo
    recorded, batch_problems = read_batches(sources.intake)
    intake_shown = _shown(sources.intake, base)
    ledgers = intake_funnel.Ledgers(sources.intake, intake_shown)
    sections = {
        "intake": intake_funnel.collect(
            ledgers,
            window,
            now,
            f"{intake_shown}/{EVENTS_FILE}, {intake_shown}/{STATUS_FILE}, {intake_shown}/cursor.json",
            None if everything else intake_funnel.MAX_ARRIVED,
        ),
        "curator": batches.collect(
            sources.state,
            ledgers.status_rows,
            window,
            base,
            root,
            everything,
            recorded,
            f"{intake_shown}/{BATCHES_FILE}",
        ),  # fmt: skip
    }
    sections["intake"]["problems"] += batch_problems[:5]
    del ledgers  # freed before the lessons are folded: the two never peak together
    lessons_dir = sources.lessons or sources.intake / STORE_DIR
    sections["lessons"] = lessons_section.collect(
        lessons_dir,
        window,
        f"{_shown(lessons_dir, base)}/ (lessons, evidence, outcomes, usage .jsonl)",
        None if everything else lessons_section.TOP,
    )
    sections["trend"] = trend.collect(sources.repo, root, window, now.date(), use_cache)
    return sections
