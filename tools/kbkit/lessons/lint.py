"""Store hygiene: duplicates, conflicts, dangling evidence, lessons nobody ever saw.

Rules (ids are stable):
- lessons-exact-duplicate (warning): two lesson ids whose kind, scope (by scope key), cue
  and action differ only in case or spacing.
- lessons-near-duplicate (warning): same kind, scope and cue, actions at least 90% similar
  (neighbours in sorted order are compared, which keeps this linear-logarithmic).
- lessons-conflict (error): the same finding (scope, class, summary) confirmed in one task
  and a false positive in another.
- lessons-missing-task (error): evidence from a task the store has no outcome card for (and
  that is not in `--tasks`).
- lessons-missing-lesson (error): live evidence for a lesson id that `lessons.jsonl` lacks.
- lessons-unsupported (warning): a lesson with no live evidence; it is never selected.
- lessons-never-selected (warning): a live lesson absent from every usage row.
- lessons-harmful (warning): a lesson shown to tasks that then repeated what it warned
  about at least twice, more often than it helped (`kbkit.lessons.signal`).
- lessons-malformed-row (warning): a line of a log that could not be folded.
- lessons-torn-line (warning): an unterminated last line a crash left behind.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable, Mapping

from kbkit.lessons.conflicts import conflicts
from kbkit.lessons.fold import FoldState, LessonRow, live_support
from kbkit.lessons.signal import HARMFUL_MIN, Signal
from kbkit.rulebook.findings import ERROR, WARNING, Finding, quote

NEAR = 0.9
NEVER_SELECTED_SHOWN = 20


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def lint_store(
    state: FoldState,
    used: set[str],
    known_tasks: set[str],
    where: Callable[[str], str],
    signals: Mapping[str, Signal] | None = None,
) -> list[Finding]:
    """Every problem of the folded store; `where(log)` names a log file in findings."""
    findings: list[Finding] = []
    lessons = {lid: LessonRow(*row) for lid, row in state.lessons.items()}
    support = live_support(state)
    path = where("lessons")

    def add(rule: str, severity: str, message: str, line: int = 0, log: str = "") -> None:
        findings.append(Finding(where(log) if log else path, line, rule, severity, message))

    exact: dict[tuple[object, ...], list[str]] = defaultdict(list)
    groups: dict[tuple[object, ...], list[tuple[str, str]]] = defaultdict(list)
    for lid, row in lessons.items():
        scope = (row.company_key, row.category_key)  # identities, as selection compares them
        exact[(row.kind, *scope, _norm(row.cue), _norm(row.action))].append(lid)
        groups[(row.kind, *scope, _norm(row.cue))].append((_norm(row.action), lid))
    for ids in exact.values():
        for other in sorted(ids, key=lambda i: lessons[i].line)[1:]:
            add(
                "lessons-exact-duplicate",
                WARNING,
                f"{other} repeats {ids[0]} up to case and spacing",
                lessons[other].line,
            )
    for members in groups.values():
        members.sort()
        for (a_text, a_id), (b_text, b_id) in zip(members, members[1:], strict=False):
            if a_text == b_text:
                continue
            matcher = difflib.SequenceMatcher(None, a_text, b_text, autojunk=False)
            if matcher.quick_ratio() >= NEAR and matcher.ratio() >= NEAR:
                add(
                    "lessons-near-duplicate",
                    WARNING,
                    f"{b_id} is a near duplicate of {a_id} ({matcher.ratio():.0%} similar)",
                    lessons[b_id].line,
                )
    findings += _conflicts(lessons, support, path)
    for lid, signal in sorted((signals or {}).items()):
        if lid in lessons and signal.harmful >= HARMFUL_MIN and signal.harmful > signal.helpful:
            add(
                "lessons-harmful",
                WARNING,
                f"{lid} was shown to {signal.harmful} task(s) that repeated what it warned "
                f"about (helpful {signal.helpful}); retire it or make it sharper",
                lessons[lid].line,
            )
    dangling_tasks: dict[str, int] = defaultdict(int)
    for key, (task, _at, line) in state.evidence.items():
        if key[0] not in lessons and state.is_live(key, task):  # a purge leaves dead ones
            add(
                "lessons-missing-lesson",
                ERROR,
                f"evidence {key[1]}:{key[2]} names lesson {key[0]}, which is not in the store",
                line,
                "evidence",
            )
        if task not in known_tasks and state.is_live(key, task):
            dangling_tasks[task] += 1
    for task, count in sorted(dangling_tasks.items()):
        add(
            "lessons-missing-task",
            ERROR,
            f"{count} evidence row(s) come from task {quote(task)}, which has no outcome card; "
            "re-extract that task or forget it (kb lessons forget --source task:ID)",
            0,
            "evidence",
        )
    never = []
    for lid, row in sorted(lessons.items(), key=lambda item: item[1].line):
        if lid not in support:
            add(
                "lessons-unsupported",
                WARNING,
                f"{lid} has no live evidence; it is not selectable",
                row.line,
            )
        elif lid not in used:
            never.append(lid)
    for lid in never[:NEVER_SELECTED_SHOWN]:
        add(
            "lessons-never-selected",
            WARNING,
            f"{lid} was never selected for a task",
            lessons[lid].line,
        )
    if len(never) > NEVER_SELECTED_SHOWN:
        add(
            "lessons-never-selected",
            WARNING,
            f"... and {len(never) - NEVER_SELECTED_SHOWN} more lesson(s) never selected",
        )
    for log, line, message in state.problems:
        add("lessons-malformed-row", WARNING, message, line, log)
    for log, line in sorted(state.torn.items()):
        add(
            "lessons-torn-line",
            WARNING,
            "unterminated last line (an interrupted write); skipped until the next append",
            line,
            log,
        )
    return findings


def _conflicts(
    lessons: dict[str, LessonRow], support: Mapping[str, object], path: str
) -> list[Finding]:
    """One finding per false-positive lesson of a conflict (`kbkit.lessons.conflicts`)."""
    live = {lid: row for lid, row in lessons.items() if lid in support}
    findings = []
    for key, confirmed, refuted in conflicts(live):
        for negative in refuted:
            findings.append(
                Finding(
                    path,
                    lessons[negative].line,
                    "lessons-conflict",
                    ERROR,
                    f"{negative} (a false positive) contradicts {', '.join(confirmed)} "
                    f"(confirmed) for {quote(key[2])}; selection shows only the one with the "
                    "newer evidence (neither when equally new); forget the wrong source "
                    "(kb lessons forget)",
                )
            )
    return findings
