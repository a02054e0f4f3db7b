"""Lessons: by kind and scope, support, usage per mode, the with/without comparison.

The comparison is `kb lessons report`'s own: the same library calls (`outcome_cards`,
`build_report`), kept whole under `report`, so the page shows what the command prints and
never a copy of its statistics. The store is read through the small adapters below.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kbkit.report.window import Window

TOP = 10
TOLD = 20  # lessons listed under "what agents are told now"; --all lists every one
SUPPORT_BUCKETS = ((0, 0), (1, 1), (2, 2), (3, 4), (5, 9), (10, None))
FOREST_METRIC = "confirmed_per_task"


def collect(
    lessons_dir: Path, window: Window, source: str, limit: int | None = TOP
) -> dict[str, Any]:
    """Read the lessons store once and aggregate."""
    from kbkit.lessons.store import LessonStore

    store = LessonStore(lessons_dir)
    state = store.state()  # folded once: the cache is ~100 MB of marshal at 100k lessons
    lessons, support = lesson_rows(state)
    usage = usage_rows(store)
    kinds = Counter(row[0] for row in lessons.values())
    # count the few distinct (company, category) pairs and support counts first, then
    # bucket those: one pass over 100k lessons instead of a label or bucket search each
    scopes: Counter[str] = Counter()
    for (company, category), n in Counter((row[1], row[2]) for row in lessons.values()).items():
        scopes[_scope(company, category)] += n
    buckets = [0] * len(SUPPORT_BUCKETS)
    for count, n_lessons in Counter(support.get(lesson, 0) for lesson in lessons).items():
        for n, (low, high) in enumerate(SUPPORT_BUCKETS):
            if count >= low and (high is None or count <= high):
                buckets[n] += n_lessons
                break
    modes = Counter(str(r.get("mode")) for r in usage if window.contains(str(r.get("at") or "")))
    return {
        "source": source,
        "lessons": len(lessons),
        "by_kind": dict(sorted(kinds.items())),
        "by_scope": [
            {"scope": s, "lessons": n}
            for s, n in sorted(scopes.items(), key=lambda i: (-i[1], i[0]))[:limit]
        ],
        "scopes": len(scopes),
        "support": [
            {
                "label": str(low) if high == low else (f"{low}-{high}" if high else f"{low}+"),
                "lessons": n,
            }
            for (low, high), n in zip(SUPPORT_BUCKETS, buckets, strict=True)
        ],
        "usage_by_mode": dict(sorted(modes.items())),
        "report": (report := lessons_report(store, state, usage)),
        "comparison": comparison(report),
        "signals": lesson_signals(state, usage),
        **told_now(store, state, usage, window, None if limit is None else TOLD),
    }


def told_now(
    store: Any, state: Any, usage: list[dict[str, Any]], window: Window, limit: int | None
) -> dict[str, Any]:
    """Adapter: what agents are told now (`kb lessons list`), the first `limit` of them with
    how many tasks of the window each was injected into (inject mode) or selected for
    without being shown (shadow mode), and the lessons a conflict withholds (all of them)."""
    from kbkit.lessons.listing import told

    lessons = told(store)
    per_mode: dict[str, Counter[str]] = {"inject": Counter(), "shadow": Counter()}
    tasks: dict[str, set[str]] = {"inject": set(), "shadow": set()}
    for row in usage:
        mode, ids = row.get("mode"), row.get("lessons")
        if mode not in per_mode or not isinstance(ids, list) or not window.contains(str(row.get("at") or "")):  # fmt: skip
            continue
        tasks[mode].add(str(row.get("task")))
        per_mode[mode].update({state.lesson_id(str(i)) for i in ids})
    listed = []
    for t in lessons[:limit]:
        entry = t.to_dict()
        entry["injected"], entry["shadowed"] = per_mode["inject"][t.id], per_mode["shadow"][t.id]
        listed.append(entry)
    return {
        "told": listed,
        "told_count": len(lessons),
        "injected_tasks": len(tasks["inject"]),
        "injected_lessons": len(per_mode["inject"]),
        "withheld": [t.to_dict() for t in lessons if t.withheld],
    }


def _scope(company: str | None, category: str | None) -> str:
    if not company and not category:
        return "(global)"
    return f"{company or '*'} / {category or '*'}"


def lesson_rows(state: Any) -> tuple[dict[str, tuple[Any, ...]], dict[str, int]]:
    """Adapter: lesson id -> (kind, company, category, ...), and live support per lesson."""
    from kbkit.lessons.fold import support_counts

    return state.lessons, support_counts(state)


def usage_rows(store: Any) -> list[dict[str, Any]]:
    """Adapter: the rows of usage.jsonl."""
    rows: list[dict[str, Any]] = store.usage_rows()
    return rows


def lessons_report(store: Any, state: Any, usage: list[dict[str, Any]]) -> dict[str, Any]:
    """Adapter: what `kb lessons report --format json` prints (without its `version`), from
    the same store and the same calls: the outcome cards of tasks not forgotten
    (`outcome_cards`), joined with the usage log (`build_report`)."""
    from kbkit.lessons.report import build_report, outcome_cards

    cards = outcome_cards(store, state)
    try:
        return {"tasks": len(cards), **build_report(cards, usage)}
    except (KeyError, TypeError, ValueError) as exc:
        # a hand-edited or older outcome card: the rest of the report still renders
        return {"tasks": len(cards), "error": f"outcomes.jsonl: unusable outcome card ({exc!r})"}


def comparison(report: dict[str, Any]) -> dict[str, Any]:
    """The lessons report reduced to forest-plot rows (the treated and the control arm of the
    randomised headline and of each observational comparison) of one metric with its 95%
    interval."""
    if "error" in report:
        return {"metric": FOREST_METRIC, "tasks": report["tasks"], "error": report["error"],
                "assignment": {}, "methods": "", "caveat": "", "rows": []}  # fmt: skip
    comparisons = [c for c in [report["headline"], *report["observational"]] if c]
    rows = []
    for compared in comparisons:
        metric = compared["metrics"][FOREST_METRIC]
        for side, arm in (("treated", "with_lessons"), ("control", "without_lessons")):
            estimate = metric[side]
            rows.append(
                {
                    "group": compared["comparison"],
                    "kind": compared["kind"],
                    "arm": arm,
                    "tasks": estimate["n"],
                    "value": estimate["value"],
                    "low": estimate["low"],
                    "high": estimate["high"],
                }
            )
    return {
        "metric": FOREST_METRIC,
        "tasks": report["tasks"],
        "assignment": report["arms"],
        "methods": report["methods"],
        "caveat": report["caveat"],
        "rows": rows[: 2 * TOP],
    }


def lesson_signals(state: Any, usage: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-lesson helpful/harmful signal (`kbkit.lessons.signal`), most judged first, each
    lesson named by what it says (its kind, finding class and text)."""
    from kbkit.lessons.signal import lesson_signals as signals_of

    judged = sorted(
        ((lid, s) for lid, s in signals_of(state, usage).items() if s.helpful or s.harmful),
        key=lambda item: (-(item[1].helpful + item[1].harmful), -item[1].harmful, item[0]),
    )
    return [
        {
            "lesson": lid,
            "says": lesson_words(state.lessons.get(lid)),
            "helpful": s.helpful,
            "harmful": s.harmful,
        }  # fmt: skip
        for lid, s in judged[:TOP]
    ]


def lesson_words(row: tuple[Any, ...] | None) -> str:
    """A lesson as a reader sees it in a prompt: `negative · xss: Do not re-report ...`."""
    from kbkit.lessons.rendering import flatten

    if row is None:
        return "(lesson no longer in the store)"
    kind, _company, _category, cue, action = row[:5]
    return f"{kind} · {flatten(str(cue), 60)}: {flatten(str(action), 160)}"
