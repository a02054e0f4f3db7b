"""Identity of sources: one repository, one spelling; one event, one key.

GitHub's owner/name compare case-insensitively, and a repository may be named by its URL;
run ids are timestamps, unique only within one repository. Every test goes through the
`kb intake` commands, and the ledgers written before slugs were normalized (mixed-case
ids, bugfix runs keyed by their bare run id) are written here in that old shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from intake_factories import make_pr, write_pages

from kbkit.__main__ import main
from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE, load_events, load_status
from kbkit.intake.sources.drop import render_comment

FIXTURES = Path(__file__).parent / "fixtures"
WATCHED = "acme/app"
SPELLINGS = [
    "ACME/App",
    "acme/app.git",
    "https://github.com/Acme/App",
    "https://github.com/acme/app.git/",
    "git@github.com:ACME/app.git",
    "ssh://git@github.com/acme/APP.git",
    " acme/app ",
]


def prs(tmp_path: Path, *args: str) -> int:
    return main(["intake", "record-prs", "--repo", str(tmp_path), *args])


def config(tmp_path: Path, text: str) -> None:
    (tmp_path / "intake").mkdir(exist_ok=True)
    (tmp_path / "intake" / "config.yaml").write_text(text)


def drop_record(**changes: Any) -> dict[str, Any]:
    base = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    return base | changes


def ledger_lines(tmp_path: Path) -> list[bytes]:
    return (tmp_path / "intake" / EVENTS_FILE).read_bytes().splitlines()


# ---- slugs: one spelling, whatever way the repository was named ----


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_slug_spelled_otherwise_records_the_same_prs_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    config(tmp_path, f"repo: {WATCHED}\n")
    write_pages(tmp_path / "p.json", [[make_pr(n, repo=WATCHED) for n in (1, 2, 3)]])
    assert prs(tmp_path, "--from", "p.json") == 0
    capsys.readouterr()
    write_pages(tmp_path / "q.json", [[make_pr(n, repo="Acme/APP") for n in (1, 2, 3)]])
    assert prs(tmp_path, "--from", "q.json", "--slug", spelling) == 0
    assert "0 merged PR(s) recorded, 3 already recorded" in capsys.readouterr().out
    assert len(ledger_lines(tmp_path)) == 3
    assert sorted(load_events(tmp_path / "intake")) == [
        ("merged_pr", f"{WATCHED}#{n}") for n in (1, 2, 3)
    ]


def test_the_config_file_repo_and_aliases_are_normalized_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config(
        tmp_path,
        "repo: https://github.com/ACME/App.git\naliases:\n  git@github.com:Acme/Old.git: ACME/APP\n",
    )
    write_pages(tmp_path / "p.json", [[make_pr(1, repo="acme/old"), make_pr(2, repo="ACME/app")]])
    assert prs(tmp_path, "--from", "p.json") == 0
    events = load_events(tmp_path / "intake")
    assert sorted(events) == [("merged_pr", f"{WATCHED}#1"), ("merged_pr", f"{WATCHED}#2")]
    assert {row["repo"] for row in events.values()} == {WATCHED}
    assert f"cursor {WATCHED}: " in capsys.readouterr().out


def test_a_nested_path_is_no_slug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pages(tmp_path / "p.json", [[make_pr(1, repo=WATCHED)]])
    assert main(["intake", "record-prs", "--from", "p.json", "--slug", "group/sub/project"]) == 2
    assert "'group/sub/project' is not a repository slug" in capsys.readouterr().err
    assert not (tmp_path / "intake" / EVENTS_FILE).exists()


def test_a_ledger_of_mixed_case_ids_folds_one_event_per_pr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows as the old code wrote them: `ACME/App#3` (recorded under `--slug ACME/App`,
    published) beside `acme/app#3` (the same PR again, under `repo: acme/app`)."""
    intake = tmp_path / "intake"
    intake.mkdir()
    old = [
        make_old_row("ACME/App", 3, "2026-11-29T10:00:00Z"),
        make_old_row("acme/app", 3, "2026-11-30T10:00:00Z"),
        make_old_row("ACME/App", 4, "2026-11-29T10:00:00Z"),
    ]
    (intake / EVENTS_FILE).write_text("".join(json.dumps(row) + "\n" for row in old))
    status = [
        {"source_kind": "merged_pr", "source_id": "ACME/App#3", "state": "published",
         "attempts": 1, "seq": 1, "batch_id": "b1", "at": "2026-11-29T12:00:00Z"},
        {"source_kind": "merged_pr", "source_id": "acme/app#3", "state": "pending",
         "attempts": 0, "seq": 0, "batch_id": None, "at": "2026-11-30T10:00:00Z"},
    ]  # fmt: skip
    (intake / STATUS_FILE).write_text("".join(json.dumps(row) + "\n" for row in status))
    events = load_events(intake)
    assert sorted(events) == [("merged_pr", "ACME/App#3"), ("merged_pr", "ACME/App#4")]
    assert load_status(intake)[("merged_pr", "ACME/App#3")]["state"] == "published"
    assert main(["intake", "status", "--repo", str(tmp_path), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["counts"] == {"merged_pr": {"pending": 1, "published": 1}}, summary
    before = ledger_lines(tmp_path)
    write_pages(tmp_path / "p.json", [[make_pr(n, repo=WATCHED) for n in (3, 4, 5)]])
    assert prs(tmp_path, "--from", "p.json", "--slug", WATCHED) == 0
    assert "1 merged PR(s) recorded, 2 already recorded" in capsys.readouterr().out
    assert ledger_lines(tmp_path)[:3] == before and len(ledger_lines(tmp_path)) == 4
    # the cursor the old code kept under another spelling is the same repository's
    (intake / "cursor.json").write_text(
        json.dumps({"version": 1, "merged_prs": {"ACME/App": "2026-12-01T00:00:00Z"}})
    )
    assert prs(tmp_path, "--from", "p.json", "--slug", WATCHED) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"cursor {WATCHED}: 2026-12-01T00:00:00Z (next scan from 2026-11-30T23:00:00Z)",
        "cost: 0 GitHub call(s)",  # read from a file: GitHub was not asked
    ]


def make_old_row(repo: str, number: int, at: str) -> dict[str, Any]:
    row = make_pr(number, repo=repo)
    return {
        "source_kind": "merged_pr", "source_id": f"{repo}#{number}", "repo": repo,
        "title": row["title"], "recorded_at": at, "via": "github", "number": number,
        "url": row["html_url"], "author": "dev", "merged_at": "2026-11-29T10:00:00Z",
        "labels": [], "draft": False, "summary": "", "diff_excerpt": "",
    }  # fmt: skip


def test_requeue_names_an_event_in_any_spelling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    intake = tmp_path / "intake"
    intake.mkdir()
    (intake / EVENTS_FILE).write_text(json.dumps(make_old_row("ACME/App", 3, "2026-11-29T10:00:00Z")) + "\n")  # fmt: skip
    failed = {"source_kind": "merged_pr", "source_id": "ACME/App#3", "state": "failed",
              "attempts": 3, "seq": 3, "batch_id": None, "at": "2026-11-29T12:00:00Z"}  # fmt: skip
    (intake / STATUS_FILE).write_text(json.dumps(failed) + "\n")
    args = ["intake", "requeue", "acme/app#3", "--reason", "retry", "--repo", str(tmp_path)]
    assert main(args) == 0
    assert load_status(intake)[("merged_pr", "ACME/App#3")]["state"] == "pending"


# ---- bugfix runs: the key carries the repository ----


def test_two_repositories_runs_with_one_run_id_are_both_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No watched repository: one collector for several repositories' drops."""
    drops = tmp_path / "drops"
    drops.mkdir()
    for repo in ("acme/app", "acme/api"):
        run = drop_record(repo=repo) | {"push": {"dry_run": False, "ok": True}}
        (tmp_path / "run.json").write_text(json.dumps(run))
        assert main(["intake", "drop", "--run", "run.json", "--dir", str(drops), "--strict"]) == 0
    assert len(list(drops.glob("*.json"))) == 2  # one folder, no file written over
    capsys.readouterr()
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    assert "2 bugfix run(s) recorded, 0 already recorded" in capsys.readouterr().out
    run_id = drop_record()["run_id"]
    events = load_events(tmp_path / "intake")
    assert sorted(events) == [
        ("bugfix_run", f"acme/api:{run_id}"),
        ("bugfix_run", f"acme/app:{run_id}"),
    ]
    assert main(["intake", "collect", "--drops", str(drops)]) == 0  # idempotent
    assert "0 bugfix run(s) recorded, 2 already recorded" in capsys.readouterr().out
    assert len(ledger_lines(tmp_path)) == 2
    assert main(["intake", "check", "--repo", str(tmp_path)]) == 0  # the rows fit the schema


def test_a_run_recorded_under_its_bare_run_id_is_not_recorded_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The old key (the bare run id) still dedupes a re-drop from its repository, in any
    spelling; the same run id from another repository is another run."""
    record = drop_record()
    intake = tmp_path / "intake"
    intake.mkdir()
    old = {"source_kind": "bugfix_run", "source_id": record["run_id"], "repo": record["repo"],
           "title": record["title"], "pr": record["pr"], "via": "drop", "record": record,
           "recorded_at": "2026-11-28T22:30:00Z"}  # fmt: skip
    (intake / EVENTS_FILE).write_text(json.dumps(old) + "\n")
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "a.json").write_text(json.dumps(record | {"repo": record["repo"].upper()}))
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    assert "0 bugfix run(s) recorded, 1 already recorded" in capsys.readouterr().out
    assert len(ledger_lines(tmp_path)) == 1
    (drops / "b.json").write_text(json.dumps(record | {"repo": "other/repo"}))
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    assert "1 bugfix run(s) recorded, 1 already recorded" in capsys.readouterr().out
    assert sorted(load_events(intake)) == [
        ("bugfix_run", record["run_id"]),
        ("bugfix_run", f"other/repo:{record['run_id']}"),
    ]


# ---- the mailbox: an edit after recording is said, not dropped without a word ----


def comment(cid: int, body: str) -> dict[str, Any]:
    return {"id": cid, "body": body, "author_association": "MEMBER", "user": {"login": "mei"},
            "created_at": "2026-11-30T08:00:00Z", "updated_at": "2026-11-30T08:00:00Z"}  # fmt: skip


def mailbox(tmp_path: Path, comments: list[dict[str, Any]]) -> int:
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    return main(["intake", "mailbox", "--from", "comments.json", "--slug", "kbkit-dev/kbkit"])


def test_an_edited_mailbox_comment_is_reported_once_and_not_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = drop_record()
    assert mailbox(tmp_path, [comment(7, render_comment(record))]) == 0
    assert "1 bugfix run(s) recorded" in capsys.readouterr().out
    recorded = ledger_lines(tmp_path)
    groups = [dict(record["groups"][0], root_cause="The real cause, found later.")]
    edited = comment(7, render_comment(record | {"groups": groups}))
    edited["updated_at"] = "2026-12-01T09:00:00Z"
    assert mailbox(tmp_path, [edited]) == 0  # the recorded run stands: nothing failed
    out, err = capsys.readouterr()
    assert "0 bugfix run(s) recorded, 1 already recorded" in out and "1 edit(s) not taken" in out
    (line,) = err.splitlines()
    assert line.startswith("kb: warning: not taken ") and "comment 7 by mei" in line
    assert f"edited after run {record['run_id']} was recorded" in line
    assert "post it as a new comment with a new run_id" in line
    assert ledger_lines(tmp_path) == recorded  # the event is as it was recorded
    assert mailbox(tmp_path, [edited]) == 0  # said once
    out, err = capsys.readouterr()
    assert err == "" and "not taken" not in out
    assert mailbox(tmp_path, [comment(7, render_comment(record))]) == 0  # unedited: silent
    assert capsys.readouterr().err == ""
