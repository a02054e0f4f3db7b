"""Visibility and every ranking tie-break, on a real store in a temp folder."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from kbkit.lessons.extraction import Candidate, Extraction, lesson_id
from kbkit.lessons.redaction import scope_key
from kbkit.lessons.rendering import BLOCK_BUDGET, render_block
from kbkit.lessons.selection import load_view, scope_tier, select_lessons
from kbkit.lessons.store import LessonStore


class Spec(NamedTuple):
    name: str  # becomes the action text, so tests can name lessons
    kind: str = "positive"
    company: str | None = "acme"
    category: str | None = "web"
    support: int = 1
    at: str = "2026-11-01T00:00:00Z"


def seed(store: LessonStore, specs: list[Spec]) -> dict[str, str]:
    """Write each spec as a lesson with `support` evidence rows; return name -> lesson id."""
    ids, batch = {}, []
    for spec in specs:
        keys = scope_key(spec.company), scope_key(spec.category)
        lid = lesson_id(spec.kind, *keys, "sqli", spec.name)
        ids[spec.name] = lid
        for n in range(spec.support):
            task = f"{spec.name}-task{n}"
            candidate = Candidate(
                lid,
                spec.kind,
                spec.company,
                spec.category,
                "sqli",
                spec.name,
                spec.name,
                "finding",
                f"{task}/F1",
                task,
                spec.at,
                *keys,
            )
            batch.append(Extraction(task, True, [candidate], [], None))
    store.add(batch)
    return ids


TASK = {"id": "T-new", "company": "acme", "category": "web"}

RANKING = [
    pytest.param(  # 1. scope tier beats kind and support; another company stays hidden
        [
            Spec("generic", company=None, category=None, support=9),
            Spec("same-category", company=None, support=5),
            Spec("other-company", company="globex", support=5),
            Spec("same-company", category="mobile", support=3),
            Spec("exact", kind="caution"),
        ],
        ["exact", "same-company", "same-category", "generic"],
        id="tier",
    ),
    pytest.param(  # scoped to one field only
        [
            Spec("company-only", category=None),
            Spec("category-only", company=None),
            Spec("generic", company=None, category=None),
        ],
        ["company-only", "category-only", "generic"],
        id="tier-half-scoped",
    ),
    pytest.param(  # 2. within a tier, positive > negative > caution, whatever the support
        [
            Spec("caution", kind="caution", support=9),
            Spec("negative", kind="negative", support=5),
            Spec("positive", kind="positive"),
        ],
        ["positive", "negative", "caution"],
        id="kind",
    ),
    pytest.param(  # 3. same kind: higher support first, whatever the recency
        [Spec("one", at="2026-11-30T00:00:00Z"), Spec("three", support=3), Spec("two", support=2)],
        ["three", "two", "one"],
        id="support",
    ),
    pytest.param(  # 4. same support: newer evidence first
        [
            Spec("old", at="2026-01-01T00:00:00Z"),
            Spec("new", at="2026-11-30T00:00:00Z"),
            Spec("mid", at="2026-06-01T00:00:00Z"),
        ],
        ["new", "mid", "old"],
        id="recency",
    ),
    pytest.param(  # invisible: another company and another category
        [Spec("elsewhere", company="globex", category="mobile"), Spec("mine")],
        ["mine"],
        id="visibility",
    ),
]


@pytest.mark.parametrize(("specs", "expected"), RANKING)
def test_ranking(store: LessonStore, specs: list[Spec], expected: list[str]) -> None:
    ids = seed(store, specs)
    names = {lid: name for name, lid in ids.items()}
    assert [names[x.id] for x in select_lessons(TASK, store)] == expected


def test_last_tie_break_is_the_lesson_id(store: LessonStore) -> None:
    ids = seed(store, [Spec(f"tie-{n}") for n in range(6)])
    assert [x.id for x in select_lessons(TASK, store)] == sorted(ids.values())


# tier under each client-isolation scope: (company, company+generic, open)
@pytest.mark.parametrize(
    ("lesson_scope", "task_scope", "tiers"),
    [
        (("a", "w"), ("a", "w"), (0, 0, 0)),
        (("a", "w"), ("a", "m"), (1, 1, 1)),
        (("a", None), ("a", "w"), (1, 1, 1)),
        (("a", None), ("a", None), (1, 1, 1)),
        (("A", "W"), ("a", "w"), (0, 0, 0)),
        (("b", "w"), ("a", "w"), (None, None, 2)),
        ((None, "w"), ("a", "w"), (None, 2, 2)),
        ((None, None), ("a", "w"), (None, 3, 3)),
        ((None, None), (None, None), (None, 3, 3)),
        (("b", "m"), ("a", "w"), (None, None, None)),
        (("a", "w"), (None, None), (None, None, None)),
        (("a", "w"), (None, "w"), (None, None, 2)),
    ],
)
def test_scope_tier(
    lesson_scope: tuple[str | None, str | None],
    task_scope: tuple[str | None, str | None],
    tiers: tuple[int | None, int | None, int | None],
) -> None:
    # scope_tier compares scope keys: `A` and `a` are one company once keyed
    company, category = (scope_key(x) for x in lesson_scope)
    task_company, task_category = (scope_key(x) for x in task_scope)
    for scope, tier in zip(("company", "company+generic", "open"), tiers, strict=True):
        assert scope_tier(company, category, task_company, task_category, scope) == tier


def test_a_task_never_sees_lessons_from_its_own_evidence(store: LessonStore) -> None:
    seed(store, [Spec("mine", support=2)])
    assert select_lessons({"id": "mine-task0", "company": "acme"}, store) == []
    assert len(select_lessons({"id": "someone-else", "company": "acme"}, store)) == 1


def test_at_most_eight_lessons(store: LessonStore) -> None:
    seed(store, [Spec(f"short {n}") for n in range(20)])
    assert len(select_lessons(TASK, store)) == 8


def test_at_most_1800_characters(store: LessonStore) -> None:
    seed(store, [Spec(f"{n} " + "long text " * 60) for n in range(8)])
    selected = select_lessons(TASK, store)
    block = render_block(x.line for x in selected)
    assert 0 < len(selected) < 8 and len(block) <= BLOCK_BUDGET
    # the next lesson would not have fit
    assert len(block) + len(selected[0].line) + 1 > BLOCK_BUDGET


def test_forgotten_evidence_lowers_support_and_orphans_are_not_selectable(
    store: LessonStore,
) -> None:
    seed(store, [Spec("a", support=2), Spec("b", support=1)])
    assert [x.support for x in select_lessons(TASK, store)] == [2, 1]
    store.forget("task", "a-task0")
    assert [x.support for x in select_lessons(TASK, store)] == [1, 1]
    result = store.forget("finding", "b-task0/F1")
    assert result.removed == 1 and len(result.orphaned) == 1
    assert [x.action for x in select_lessons(TASK, store)] == ["a"]
    # re-adding forgotten evidence changes nothing: a tombstone is permanent
    seed(store, [Spec("b", support=1)])
    assert [x.action for x in select_lessons(TASK, store)] == ["a"]


def test_view_cache_follows_appends_and_rebuilds_when_deleted(store: LessonStore) -> None:
    seed(store, [Spec("first")])
    assert len(select_lessons(TASK, store)) == 1
    assert (store.cache_dir / "view.bin").exists()
    seed(store, [Spec("second", support=2)])
    assert [x.action for x in select_lessons(TASK, store)] == ["second", "first"]
    for cached in [*store.cache_dir.glob("*.marshal"), store.cache_dir / "view.bin"]:
        cached.write_bytes(b"garbage")
    assert [x.action for x in select_lessons(TASK, store)] == ["second", "first"]
    assert list(load_view(store).ids) == list(load_view(store).ids)
    assert len(load_view(store).ids) == 2


def test_rewritten_log_triggers_a_full_rebuild(store: LessonStore) -> None:
    seed(store, [Spec("kept"), Spec("dropped")])
    assert len(select_lessons(TASK, store)) == 2
    evidence = store.log("evidence")
    kept = [line for line in evidence.read_text().splitlines() if "dropped" not in line]
    evidence.write_text("\n".join(kept) + "\n")  # e.g. a checkout replaced the file
    assert [x.action for x in select_lessons(TASK, store)] == ["kept"]


def test_a_truncated_view_file_is_rebuilt(store: LessonStore) -> None:
    seed(store, [Spec("first"), Spec("second", support=2)])
    assert len(select_lessons(TASK, store)) == 2
    view_file = store.cache_dir / "view.bin"
    view_file.write_bytes(view_file.read_bytes()[:-40])
    assert [x.action for x in select_lessons(TASK, store)] == ["second", "first"]


def test_selection_needs_a_task_id(store: LessonStore) -> None:
    from kbkit.infra.errors import InputError

    with pytest.raises(InputError, match="needs an id"):
        select_lessons({"company": "acme"}, store)
