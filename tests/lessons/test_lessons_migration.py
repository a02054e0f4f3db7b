"""A store written before #26 (tests/lessons/fixtures/store-v1) is migrated as it is read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.lessons.selection import select_lessons
from kbkit.lessons.store import LessonStore

FIXTURE = Path(__file__).parent / "fixtures" / "store-v1"
ACME_SQLI = "Confirmed sqli: login form, id param"


@pytest.fixture
def old(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE / "intake", tmp_path / "intake")
    (tmp_path / "kbkit.yaml").write_text("")
    return tmp_path


def test_one_company_in_three_spellings_folds_into_one_lesson(old: Path) -> None:
    state = LessonStore.for_repo(old).state()
    acme = [lid for lid, row in state.lessons.items() if row[4] == ACME_SQLI]
    assert len(acme) == 1
    assert state.support[acme[0]][0] == 3  # T-1, T-2 (ACME / Web) and T-3 (Acme)
    assert len(state.alias) == 2  # the ACME and Acme ids now stand for acme's
    picked = select_lessons(
        {"id": "N9", "company": "Acme", "category": "WEB"}, LessonStore.for_repo(old)
    )
    # one slot for the finding (confirmed, and reproduced on T-1's retest), support 3
    assert [(x.action, x.support) for x in picked if x.cue == "sqli"] == [
        ("Confirmed and reproduced on retest sqli: login form, id param", 3)
    ]


def test_re_extracting_an_old_task_adds_nothing(old: Path, capsys) -> None:
    task = {"id": "T-2", "status": "done", "company": "ACME", "category": "Web",
            "closed_at": "2026-11-02T09:00:00Z",
            "findings": [{"id": "F1", "status": "confirmed", "class": "sqli", "summary": "login form, id param"}],
            "metrics": {"tokens": 90000, "tool_calls": 20}}  # fmt: skip
    (old / "t.json").write_text(json.dumps(task))
    assert (
        main(["lessons", "extract", str(old / "t.json"), "--repo", str(old), "--format", "json"])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert (result["new_lessons"], result["new_evidence"]) == (0, 0)


def test_old_source_ids_of_a_task_with_a_slash_are_escaped(old: Path, make_task) -> None:
    state = LessonStore.for_repo(old).state()
    sources = {key[2] for key, (task, _at, _l) in state.evidence.items() if task == "A/B"}
    assert sources == {"A%2FB/C"}
    # task A finding B/C never got its row (the collision); extracting it now adds it
    task = make_task(
        "A",
        company="globex",
        category="api",
        findings=[("B/C", "confirmed", "csrf", "profile form")],
    )
    result = LessonStore.for_repo(old).add(
        [__import__("kbkit.lessons.extraction", fromlist=["x"]).extract(task)]
    )
    assert result.new_evidence == 1


def test_tombstones_transitions_and_the_report_follow_the_migration(old: Path, capsys) -> None:
    store = LessonStore.for_repo(old)
    state = store.state()
    assert "T-7" in state.forgotten
    retired = [lid for lid, row in state.lifecycle.items() if row[0] == "retired"]
    assert len(retired) == 1 and state.lessons[retired[0]][1] == "globex"
    # T-6's confirmed xss was superseded by its false positive
    shown = [
        x.action for x in select_lessons({"id": "N8", "company": None, "category": None}, store)
    ]
    assert shown == [
        "Do not re-report without new mechanics: markdown preview (prior false_positive)"
    ]
    assert main(["lessons", "report", "--repo", str(old), "--format", "json"]) == 0
    groups = {(g["group"], g["value"]) for g in json.loads(capsys.readouterr().out)["groups"]}
    assert ("company", "acme") in groups and ("company", "ACME") not in groups


def test_promotions_of_old_ids_are_not_promoted_again(old: Path, capsys) -> None:
    assert main(["lessons", "promote", "--min-support", "1", "--repo", str(old), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 lesson(s) would promote")


def test_lint_and_audit_read_the_old_store(old: Path, capsys) -> None:
    main(["lessons", "lint", "--repo", str(old)])
    out = capsys.readouterr().out
    assert "exact-duplicate" not in out
    # N-2 (10.0.0.2, scope open) was shown acme's lessons: crossings, found through the
    # old ids. Its crossing into 10.0.0.1's lessons cannot be told apart any more: the old
    # rows kept only "[private-ip]" for both (README says so)
    assert main(["lessons", "audit", "--repo", str(old)]) == 1
    out = capsys.readouterr().out
    assert "5 lesson(s) shown across" in out and "of company [private-ip]" not in out
