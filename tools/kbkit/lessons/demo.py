"""The lessons part of `make demo`: extract, a shadow and an inject bundle, outcomes, report.

Runs on `intake/samples/tasks.jsonl` and `intake/samples/task-new.json` in a store under
the demo's folder (never the project's own `intake/`), through the same library calls an
agent runner makes (see README "Lessons").
"""

from __future__ import annotations

from pathlib import Path

from kbkit.lessons.extraction import extract
from kbkit.lessons.outcomes import outcome_card
from kbkit.lessons.report import build_report, outcome_cards
from kbkit.lessons.store import LessonStore
from kbkit.lessons.task_records import read_task, read_tasks_jsonl
from kbkit.lessons.usage import bundle_prompts

PLANNER = "You plan a security review of the target. List what to test first."
WORKER = "You test one hypothesis at a time and report findings with evidence."


def store_dir(work: Path) -> Path:
    """The demo's lessons store: a lessons repository of its own beside the knowledge one."""
    return work / "lessons-repo" / "intake" / "lessons"


def run(project: Path, work: Path) -> int:
    """Print each step; 0 when the shadow bundle left prompts alone and inject appended."""
    samples = project / "intake" / "samples"
    store = LessonStore(store_dir(work))
    tasks = read_tasks_jsonl(str(samples / "tasks.jsonl"))
    added = store.add([extract(task, validate=False) for task in tasks])
    print(
        f"\n== lessons: extracted {added.tasks} task record(s) from intake/samples/tasks.jsonl: "
        f"{added.new_lessons} new lesson(s), {added.new_evidence} new evidence row(s), "
        f"{len(added.skipped_tasks)} still running"
    )
    new = read_task(str(samples / "task-new.json"))
    shadow = bundle_prompts(dict(new, id="T-200-a"), PLANNER, WORKER, store=store, mode="shadow")
    inject = bundle_prompts(dict(new, id="T-200-b"), PLANNER, WORKER, store=store, mode="inject")
    print(
        f"shadow bundle: {len(shadow.lessons)} lesson(s) selected and logged, prompts unchanged: "
        f"{shadow.planner == PLANNER and shadow.worker == WORKER}"
    )
    print(f"inject bundle: {len(inject.lessons)} lesson(s) appended after each prompt:")
    print(inject.block)
    closed = [
        dict(new, id="T-200-a", status="done", metrics={"tokens": 210000, "tool_calls": 48},
             findings=[{"id": "F1", "status": "false_positive", "class": "xss",
                        "summary": "search box echoes input, but the response is text/plain"}]),
        dict(new, id="T-200-b", status="done", metrics={"tokens": 120000, "tool_calls": 25},
             findings=[{"id": "F1", "status": "confirmed", "class": "sqli",
                        "summary": "login form, id parameter concatenated into SQL"}]),
    ]  # fmt: skip
    store.add([extract(task, validate=False) for task in closed])
    for task in closed:
        card = outcome_card(task)
        print(
            f"outcome {card['task']}: {card['confirmed']} confirmed of {card['reported']} "
            f"reported, {card['tokens']} tokens, FP rate {card['false_positive_rate']}"
        )
    cards = outcome_cards(store, store.state())
    report = build_report(cards, store.usage_rows())
    print(
        "report arms: "
        + ", ".join(f"{arm} {n}" for arm, n in report["arms"].items() if n)
        + f" (`kb lessons report --repo {work / 'lessons-repo'}` for the intervals)"
    )
    ok = shadow.planner == PLANNER and bool(inject.block) and "globex" not in inject.block
    return 0 if ok else 1
