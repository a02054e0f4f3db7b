"""The report pages the figure and browser tests look at: the test world, the demo, a
newcomer's tree and an empty one, each built once per session with the clock pinned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.conftest import PROJECT
from tests.report.test_report import TASK
from tests.report.world import build_world

NOW = "2026-11-30T12:00:00Z"


class Case(NamedTuple):
    html: Path  # the page's file
    page: str
    repo: Path  # kb check's
    intake_repo: Path  # kb intake status --repo
    lessons_repo: Path  # kb lessons report --repo


def kb_report(out: Path, *argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kbkit", "report", "--out", str(out), *argv],
                          capture_output=True, text=True, cwd=PROJECT, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def run_demo(work: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "kbkit.demo", "--dir", str(work)],
                          capture_output=True, text=True, cwd=PROJECT, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def newcomer(repo: Path) -> Path:
    """Pages outside the roots, an orphan, a page without frontmatter, a missing index."""
    root = repo / "knowledge"
    (root / "ops" / "deep").mkdir(parents=True)
    # a stale page whose rule the team switched off: kb check reports no stale page
    (root / "policy.yaml").write_text(
        'roots: [ops]\nindex_page: README.md\nrules:\n  lint/stale: "off"\n'
    )
    (root / "README.md").write_text("---\nupdated: 2026-11-01\n---\n# Home\n\n[d](ops/deploy.md)\n")
    (root / "notes.md").write_text("# Notes\n")
    (root / "ops" / "deploy.md").write_text(
        "---\nupdated: 2024-01-03\n---\n# Deploy\n[x](gone.md)\n"
    )
    (root / "ops" / "deep" / "rollback.md").write_text("# Rollback\n")
    return repo


def randomised(repo: Path, tasks_per_arm: int = 12) -> Path:
    """Lessons only: closed tasks assigned to the arms at random (`--assign hash`), half with
    lessons injected, across two categories: with 12 per arm (at least the lessons report's
    10) the report has a headline with numbers, its categories (6 per arm) not."""
    from kbkit.infra.jsonl import append_rows
    from kbkit.lessons.extraction import extract
    from kbkit.lessons.store import LessonStore

    (repo / "knowledge").mkdir(parents=True)
    store = LessonStore(repo / "intake" / "lessons")
    tasks, usage = [], []
    for n in range(2 * tasks_per_arm):
        inject = n % 2 == 0
        statuses = ["confirmed"] * (2 if inject else 1) + ["false_positive"] * (n % 3)
        tasks.append({
            "id": f"R{n}", "status": "done", "company": "acme", "category": ("web", "api")[n % 4 < 2],
            "findings": [{"id": f"F{k}", "status": st, "class": "sqli", "summary": f"finding {k} of {n}"}
                         for k, st in enumerate(statuses)],
            "retests": [], "metrics": {"tokens": 1000 + 50 * n, "tool_calls": 10 + n},
        })  # fmt: skip
        usage.append({"task": f"R{n}", "mode": "inject" if inject else "shadow", "assign": "hash",
                      "lessons": ["L"] if inject else [], "at": "2026-11-20T08:00:00Z"})  # fmt: skip
    store.add([extract(task) for task in tasks])
    append_rows(store.log("usage"), usage)
    return repo


@pytest.fixture(scope="session")
def report_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    top = tmp_path_factory.mktemp("report-cases")
    saved = os.environ.get("KBKIT_NOW")
    os.environ["KBKIT_NOW"] = NOW
    try:
        out: dict[str, Case] = {}
        mp = pytest.MonkeyPatch()
        try:
            world = build_world(top / "world", mp, TASK)
        finally:
            mp.undo()
        os.environ["KBKIT_NOW"] = NOW
        out["world"] = Case(top / "world.html", kb_report(top / "world.html", "--repo", str(world)),
                            world, world, world)  # fmt: skip
        demo = top / "demo"
        run_demo(demo)
        out["demo"] = Case(demo / "report.html", (demo / "report.html").read_text(encoding="utf-8"),
                           demo / "state" / "clone", demo, demo / "lessons-repo")  # fmt: skip
        fresh = newcomer(top / "newcomer")
        out["newcomer"] = Case(top / "new.html", kb_report(top / "new.html", "--repo", str(fresh)),
                               fresh, fresh, fresh)  # fmt: skip
        empty = top / "empty"
        (empty / "knowledge").mkdir(parents=True)
        out["empty"] = Case(top / "empty.html", kb_report(top / "empty.html", "--repo", str(empty)),
                            empty, empty, empty)  # fmt: skip
        rand = randomised(top / "randomised")
        out["randomised"] = Case(top / "rand.html", kb_report(top / "rand.html", "--repo", str(rand)),
                                 rand, rand, rand)  # fmt: skip
        return out
    finally:
        if saved is None:
            os.environ.pop("KBKIT_NOW", None)
        else:
            os.environ["KBKIT_NOW"] = saved
