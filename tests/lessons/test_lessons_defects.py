"""Issue #15 defects, each with a test that fails on the main it was filed against."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.infra.errors import InputError
from kbkit.infra.jsonl import read_jsonl
from kbkit.lessons.extraction import extract
from kbkit.lessons.selection import select_lessons
from kbkit.lessons.usage import hash_arm


def put(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def extract_all(repo: Path, tasks: list[dict[str, Any]]) -> None:
    source = repo / "tasks.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    assert main(["lessons", "extract", "--from", str(source), "--repo", str(repo)]) == 0


def bundle(repo: Path, task: dict[str, Any], out: str, *extra: str) -> dict[str, Any]:
    (repo / "p.txt").write_text("PLANNER PROMPT\n")
    (repo / "w.txt").write_text("WORKER PROMPT")
    args = ["--task", put(repo / "task.json", task), "--planner", str(repo / "p.txt")]
    args += ["--worker", str(repo / "w.txt"), "--out", str(repo / out), "--repo", str(repo)]
    assert main(["lessons", "bundle", *args, *extra]) == 0
    meta = json.loads((repo / out / "lessons.json").read_text())
    meta["planner"] = (repo / out / "planner.txt").read_text()
    return meta


def usage(repo: Path) -> list[dict[str, Any]]:
    return [r.data for r in read_jsonl(repo / "intake" / "lessons" / "usage.jsonl").rows]


@pytest.fixture
def seeded(tmp_path: Path, make_task) -> Path:
    extract_all(
        tmp_path,
        [
            make_task("T1", findings=[("F1", "confirmed", "sqli", "login form")]),
            make_task("T2", findings=[("F1", "false_positive", "xss", "search box")]),
        ],
    )
    return tmp_path


def test_shadow_never_injects_even_with_hash_assignment(seeded: Path, monkeypatch) -> None:
    monkeypatch.setenv("KB_LESSONS", "shadow")
    tasks = [f"N{n}" for n in range(8)]
    assert any(hash_arm(task) == "inject" for task in tasks)  # main injected into these
    for task in tasks:
        meta = bundle(
            seeded, {"id": task, "status": "running", "company": "acme"}, task, "--assign", "hash"
        )
        assert meta["mode"] == "shadow" and meta["block"] == ""
        assert meta["planner"] == "PLANNER PROMPT\n"
    assert {row["mode"] for row in usage(seeded)} == {"shadow"}


def test_inject_with_hash_assignment_still_splits(seeded: Path, monkeypatch) -> None:
    monkeypatch.setenv("KB_LESSONS", "inject")
    modes = {
        bundle(seeded, {"id": f"N{n}", "status": "running"}, f"o{n}", "--assign", "hash")["mode"]
        for n in range(8)
    }
    assert modes == {"shadow", "inject"}


def test_company_and_category_compare_case_insensitively(seeded: Path) -> None:
    from kbkit.lessons.store import LessonStore

    store = LessonStore.for_repo(seeded)
    upper = select_lessons({"id": "N1", "company": "ACME", "category": "Web"}, store)
    lower = select_lessons({"id": "N2", "company": "acme", "category": "web"}, store)
    assert [x.id for x in upper] == [x.id for x in lower] and upper
    assert {x.tier for x in upper} == {0}


@pytest.mark.parametrize("status", ["confimed", "open", "wontfix"])
def test_an_unknown_finding_status_is_refused_with_a_reason(make_task, status: str) -> None:
    task = make_task(findings=[("F1", status, "sqli", "login form")])
    with pytest.raises(InputError, match=f"F1.*unknown status '{status}'.*expected one of"):
        extract(task)


def test_extract_refuses_an_unknown_status_and_writes_nothing(
    tmp_path: Path, make_task, capsys
) -> None:
    task = put(tmp_path / "t.json", make_task(findings=[("F1", "confimed", "a", "b")]))
    assert main(["lessons", "extract", task, "--repo", str(tmp_path)]) == 1
    assert "unknown status 'confimed'" in capsys.readouterr().err
    assert not (tmp_path / "intake").exists()


def test_known_statuses_in_any_spelling_are_accepted(make_task) -> None:
    task = make_task(findings=[("F1", "False Positive", "a", "b"), ("F2", "In-Progress", "a", "c")])
    assert len(extract(task).candidates) == 1


@pytest.mark.parametrize("group", ["lessons", "intake"])
def test_group_help_lists_the_group(group: str, capsys) -> None:
    assert main([group, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"usage: kb {group} COMMAND" in out
    assert f"{group} extract" in out or f"{group} status" in out


# ---- client isolation ----------------------------------------------------------------


@pytest.fixture
def two_clients(tmp_path: Path, make_task) -> Path:
    extract_all(
        tmp_path,
        [
            make_task(
                "G1",
                company="globex",
                findings=[("F1", "confirmed", "idor", "globex /invoices/123 leaks other tenants")],
            ),
            make_task("A1", company="acme", findings=[("F1", "confirmed", "xss", "acme search")]),
            make_task("N1", company=None, findings=[("F1", "confirmed", "csrf", "generic form")]),
        ],
    )
    return tmp_path


ACME_TASK = {"id": "A2", "status": "running", "company": "acme", "category": "web"}


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (None, {"acme search", "generic form"}),  # the default is safe for many clients
        ("company+generic", {"acme search", "generic form"}),
        ("company", {"acme search"}),
        ("open", {"acme search", "generic form", "globex /invoices/123 leaks other tenants"}),
    ],
)
def test_another_clients_lesson_is_not_shown_by_default(
    two_clients: Path, scope: str | None, expected: set[str]
) -> None:
    from kbkit.lessons.store import LessonStore

    store = LessonStore.for_repo(two_clients)
    shown = select_lessons(ACME_TASK, store, scope=scope)
    assert {x.action.split(": ", 1)[1] for x in shown} == expected


def test_scope_from_the_environment_and_a_bad_value(two_clients: Path, monkeypatch, capsys) -> None:
    from kbkit.lessons.store import LessonStore

    monkeypatch.setenv("KB_LESSONS_SCOPE", "open")
    assert len(select_lessons(ACME_TASK, LessonStore.for_repo(two_clients))) == 3
    monkeypatch.setenv("KB_LESSONS_SCOPE", "everyone")
    task = put(two_clients / "t.json", ACME_TASK)
    assert main(["lessons", "show", task, "--repo", str(two_clients)]) == 2
    assert "KB_LESSONS_SCOPE='everyone'" in capsys.readouterr().err


def test_audit_lists_every_lesson_shown_across_a_company_boundary(
    two_clients: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("KB_LESSONS", "inject")
    bundle(two_clients, ACME_TASK, "safe")
    capsys.readouterr()
    assert main(["lessons", "audit", "--repo", str(two_clients)]) == 0
    assert "0 lesson(s) shown across" in capsys.readouterr().out
    bundle(two_clients, dict(ACME_TASK, id="A3"), "open", "--scope", "open")
    bundle(two_clients, dict(ACME_TASK, id="A4", company="ACME"), "upper")
    capsys.readouterr()
    assert main(["lessons", "audit", "--repo", str(two_clients), "--format", "json"]) == 1
    (crossing,) = json.loads(capsys.readouterr().out)["crossings"]
    assert crossing["task"] == "A3" and crossing["lesson_company"] == "globex"
    assert crossing["task_company"] == "acme" and crossing["mode"] == "inject"
    assert main(["lessons", "audit", "--repo", str(two_clients)]) == 1
    assert "task A3 (company acme, inject): lesson" in capsys.readouterr().out


# ---- one finding, one slot -------------------------------------------------------------


def test_confirmed_and_reproduced_of_one_finding_fill_one_slot(tmp_path: Path, make_task) -> None:
    from kbkit.lessons.store import LessonStore

    extract_all(
        tmp_path,
        [
            make_task(
                "T1",
                findings=[
                    ("F1", "confirmed", "sqli", "login form"),
                    ("F2", "confirmed", "xss", "search"),
                ],
                retests=[("R1", "F1", "reproduced")],
            )
        ],
    )
    shown = select_lessons(
        {"id": "N1", "company": "acme", "category": "web"}, LessonStore.for_repo(tmp_path)
    )
    assert len(shown) == 2  # main showed three: Confirmed sqli, Reproduced sqli, Confirmed xss
    actions = sorted(x.action for x in shown)
    assert actions == [
        "Confirmed and reproduced on retest sqli: login form",
        "Confirmed xss: search",
    ]
    assert any("Confirmed and reproduced on retest sqli: login form" in x.line for x in shown)


# ---- --as-of ---------------------------------------------------------------------------


@pytest.fixture
def history(tmp_path: Path, make_task) -> Path:
    extract_all(
        tmp_path,
        [
            make_task(
                "T1",
                closed_at="2026-11-01T00:00:00Z",
                findings=[("F1", "confirmed", "sqli", "login")],
            ),
            make_task(
                "T2",
                closed_at="2026-11-20T00:00:00Z",
                findings=[("F1", "confirmed", "sqli", "login")],
            ),
            make_task(
                "T3",
                closed_at="2026-11-20T00:00:00Z",
                findings=[("F1", "confirmed", "xss", "later")],
            ),
        ],
    )
    return tmp_path


def test_as_of_sees_only_evidence_closed_before_the_task_started(history: Path, capsys) -> None:
    task = put(history / "t.json", {"id": "N1", "status": "running", "company": "acme"})
    assert main(["lessons", "show", task, "--repo", str(history), "--format", "json"]) == 0
    now = json.loads(capsys.readouterr().out)["lessons"]
    assert sorted((x["action"], x["support"]) for x in now) == [
        ("Confirmed sqli: login", 2),
        ("Confirmed xss: later", 1),
    ]
    args = ["lessons", "show", task, "--repo", str(history), "--format", "json"]
    assert main([*args, "--as-of", "2026-11-10T00:00:00Z"]) == 0
    then = json.loads(capsys.readouterr().out)["lessons"]
    assert [(x["action"], x["support"], x["last_seen"]) for x in then] == [
        ("Confirmed sqli: login", 1, "2026-11-01T00:00:00Z")
    ]
    # the evidence closing exactly at the cut-off is not "before" it
    assert main([*args, "--as-of", "2026-11-01T00:00:00Z"]) == 0
    assert json.loads(capsys.readouterr().out)["lessons"] == []


def test_started_at_is_the_default_cutoff(history: Path) -> None:
    from kbkit.lessons.store import LessonStore

    task = {"id": "N1", "company": "acme", "started_at": "2026-11-10T01:00:00+01:00"}
    shown = select_lessons(task, LessonStore.for_repo(history))
    assert [x.action for x in shown] == ["Confirmed sqli: login"]


def test_a_bad_as_of_is_a_usage_error(history: Path, capsys) -> None:
    task = put(history / "t.json", {"id": "N1", "status": "running"})
    assert main(["lessons", "show", task, "--repo", str(history), "--as-of", "soon"]) == 2
    assert "--as-of='soon'" in capsys.readouterr().err


# ---- re-triage -------------------------------------------------------------------------


def _shown(repo: Path) -> list[tuple[str, int]]:
    from kbkit.lessons.store import LessonStore

    task = {"id": "NEW", "company": "acme", "category": "web"}
    return sorted((x.action, x.support) for x in select_lessons(task, LessonStore.for_repo(repo)))


def test_a_newer_verdict_supersedes_the_earlier_evidence(tmp_path: Path, make_task) -> None:
    confirmed = make_task(
        "T1", findings=[("F1", "confirmed", "sqli", "login")], retests=[("R1", "F1", "reproduced")]
    )
    other = make_task("T2", findings=[("F1", "confirmed", "sqli", "login")])
    extract_all(tmp_path, [confirmed, other])
    assert _shown(tmp_path) == [("Confirmed and reproduced on retest sqli: login", 2)]
    retriaged = make_task(
        "T1",
        findings=[("F1", "false_positive", "sqli", "login")],
        retests=[("R1", "F1", "reproduced")],
    )
    extract_all(tmp_path, [retriaged])
    negative = "Do not re-report without new mechanics: login (prior false_positive)"
    # T1's confirmation and its retest no longer count; T2's confirmation still does, and it
    # contradicts T1's false positive: equally new evidence, so neither is shown (#40 point 7)
    assert _shown(tmp_path) == []
    lessons = _listed(tmp_path)
    assert {(t["action"], t["support"]) for t in lessons} == {("Confirmed sqli: login", 1), (negative, 1)}  # fmt: skip
    assert all("equally new" in t["withheld"]["why"] for t in lessons)
    rows = [r.data for r in read_jsonl(tmp_path / "intake/lessons/tombstones.jsonl").rows]
    assert [(r["action"], r["task"], len(r["keys"])) for r in rows] == [("supersede", "T1", 2)]
    extract_all(tmp_path, [retriaged])  # idempotent
    assert len(read_jsonl(tmp_path / "intake/lessons/tombstones.jsonl").rows) == 1
    # triaged back: the earlier evidence counts again, the negative stops
    extract_all(tmp_path, [confirmed])
    assert _shown(tmp_path) == [("Confirmed and reproduced on retest sqli: login", 2)]
    # the evidence log itself was never edited
    assert len(read_jsonl(tmp_path / "intake/lessons/evidence.jsonl").rows) == 4


def _listed(repo: Path) -> list[dict[str, Any]]:
    """`kb lessons list --format json`'s lessons."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["lessons", "list", "--repo", str(repo), "--format", "json"]) == 0
    return json.loads(out.getvalue())["lessons"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("source", ["finding:T1/F1", "task:T1"])
def test_re_extraction_after_forget_records_the_corrected_verdict(
    tmp_path: Path, make_task, source: str
) -> None:
    extract_all(tmp_path, [make_task("T1", findings=[("F1", "confirmed", "sqli", "login")])])
    assert main(["lessons", "forget", "--source", source, "--repo", str(tmp_path)]) == 0
    assert _shown(tmp_path) == []
    extract_all(tmp_path, [make_task("T1", findings=[("F1", "false_positive", "sqli", "login")])])
    assert _shown(tmp_path) == [
        ("Do not re-report without new mechanics: login (prior false_positive)", 1)
    ]
    # the forgotten evidence itself never returns, even re-extracted as it was
    extract_all(tmp_path, [make_task("T1", findings=[("F1", "confirmed", "sqli", "login")])])
    assert _shown(tmp_path) == []


# ---- forget cascades and --purge ---------------------------------------------------------


def test_forget_withdraws_pending_promotions_that_cite_the_source(
    tmp_path: Path, make_task, capsys
) -> None:
    from kbkit.intake.ledger import load_status

    extract_all(
        tmp_path,
        [
            make_task("T1", findings=[("F1", "confirmed", "sqli", "login")]),
            make_task("T2", findings=[("F1", "confirmed", "xss", "search")]),
        ],
    )
    assert main(["lessons", "promote", "--min-support", "1", "--repo", str(tmp_path)]) == 0
    assert main(["lessons", "forget", "--source", "task:T1", "--repo", str(tmp_path)]) == 0
    assert "withdrew the pending promotion" in capsys.readouterr().out
    states = {key[1]: row for key, row in load_status(tmp_path / "intake").items()}
    withdrawn = [lid for lid, row in states.items() if row["state"] == "shadowed"]
    assert len(withdrawn) == 1 and "forget --source task:T1" in states[withdrawn[0]]["reason"]
    assert sorted(row["state"] for row in states.values()) == ["pending", "shadowed"]


def test_purge_removes_the_text_and_keeps_the_tombstone(tmp_path: Path, make_task, capsys) -> None:
    extract_all(
        tmp_path,
        [
            make_task("T1", findings=[("F1", "confirmed", "sqli", "private customer detail")]),
            make_task("T2", findings=[("F1", "confirmed", "xss", "search")]),
        ],
    )
    folder = tmp_path / "intake" / "lessons"
    assert b"private customer detail" in (folder / "lessons.jsonl").read_bytes()
    args = ["lessons", "forget", "--source", "task:T1", "--purge", "--repo", str(tmp_path)]
    assert main(args) == 0
    assert (
        "3 row(s) removed from the lessons logs" in capsys.readouterr().out
    )  # evidence, lesson, card
    logs = b"".join(p.read_bytes() for p in folder.glob("*.jsonl"))
    assert (
        b"private customer detail" not in logs
        and b'"T1"' in (folder / "tombstones.jsonl").read_bytes()
    )
    assert _shown(tmp_path) == [("Confirmed xss: search", 1)]
    assert main(["lessons", "lint", "--repo", str(tmp_path)]) == 0
    # purging again finds nothing left to remove, and says so (a rerun is always safe)
    assert main(args) == 0
    assert "already forgotten and purged" in capsys.readouterr().out


def test_purge_after_an_earlier_forget(tmp_path: Path, make_task, capsys) -> None:
    extract_all(tmp_path, [make_task("T1", findings=[("F1", "confirmed", "sqli", "detail")])])
    assert main(["lessons", "forget", "--source", "finding:T1/F1", "--repo", str(tmp_path)]) == 0
    args = ["lessons", "forget", "--source", "finding:T1/F1", "--purge", "--repo", str(tmp_path)]
    assert main(args) == 0
    assert "purged finding:T1/F1: 2 row(s) removed" in capsys.readouterr().out
    assert b"detail" not in (tmp_path / "intake/lessons/lessons.jsonl").read_bytes()


def test_the_last_record_of_a_task_in_one_batch_is_its_verdict(tmp_path: Path, make_task) -> None:
    extract_all(
        tmp_path,
        [
            make_task("T1", findings=[("F1", "confirmed", "sqli", "login")]),
            make_task("T1", findings=[("F1", "false_positive", "sqli", "login")]),
        ],
    )
    assert _shown(tmp_path) == [
        ("Do not re-report without new mechanics: login (prior false_positive)", 1)
    ]
