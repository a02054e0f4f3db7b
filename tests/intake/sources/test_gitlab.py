"""The GitLab source end to end: `kb intake record-prs --source gitlab` against a local GitLab
stand-in (tests/gitlab_stand_in.py), its identities, and the rows it writes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.gitlab_stand_in import TOKEN, WEB, StandIn

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import CURSOR_FILE, read_cursor
from kbkit.intake.schemas import EVENTS, schema_errors
from kbkit.intake.sources import gitlab
from kbkit.vcs import gitlab as gitlab_api

PATH = "group/subgroup/project"
KEY = f"gitlab:{PATH}"
# kbkit's clock is pinned at 2026-11-30T12:00:00Z (tests/conftest.py): a first scan reads
# back to 2026-11-23T12:00:00Z.


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    stand_in = StandIn()
    monkeypatch.setenv("KBKIT_GITLAB_URL", stand_in.url)
    monkeypatch.setenv("KBKIT_GITLAB_TOKEN", TOKEN)
    monkeypatch.setattr(gitlab_api, "FIRST_PAUSE", 0.0)
    yield stand_in
    stand_in.close()


def record(*args: str) -> int:
    return main(["intake", "record-prs", "--source", "gitlab", *args])


def events(tmp_path: Path) -> dict[str, dict[str, object]]:
    return {row["source_id"]: row for row in load_events(tmp_path / "intake").values()}


def seed(server: StandIn) -> None:
    """Two merge requests merged in the window, one before it."""
    server.merge_request(PATH, 7, updated_at="2026-11-29T10:00:00.000Z")
    server.merge_request(PATH, 8, updated_at="2026-11-28T16:30:00.123Z", labels=[])
    server.merge_request(PATH, 3, updated_at="2026-10-01T08:00:00.000Z")
    server.note(PATH, 7, 501, "Please keep the empty-item case covered by a test.",
                type="DiffNote", resolvable=True, resolved=True,
                position={"base_sha": "a" * 40, "start_sha": "a" * 40, "head_sha": "c" * 40,
                          "old_path": "src/parser.py", "new_path": "src/parser.py",
                          "position_type": "text", "old_line": None, "new_line": 1})  # fmt: skip
    server.note(PATH, 7, 502, "added 1 commit\n\n* 07aaaaaa - Fix", system=True)
    server.note(PATH, 7, 503, "Pipeline passed for the fix.", username="project_1000_bot_4f2a")
    server.note(PATH, 7, 504, "Why not strip the whitespace too?", type="DiscussionNote",
                created_at="2026-11-28T11:00:00.000Z")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("group/subgroup/project", "group/subgroup/project"),
        ("Group/SubGroup/Project.git", "group/subgroup/project"),
        ("https://gitlab.com/group/subgroup/project", "group/subgroup/project"),
        ("https://gitlab.com/group/subgroup/project.git/", "group/subgroup/project"),
        ("git@gitlab.com:group/subgroup/project.git", "group/subgroup/project"),
        ("https://gitlab.com/group/subgroup/project/-/merge_requests/7", "group/subgroup/project"),
        ("owner/name", "owner/name"),
        ("project", None),
        ("group//project", None),
        ("group/sub project", None),
    ],
)
def test_repo_id_accepts_nested_groups_and_urls(text: str, expected: str | None) -> None:
    assert gitlab.repo_id(text) == expected


def test_a_merge_request_is_path_bang_iid() -> None:
    assert gitlab.change_id(PATH, "7") == "group/subgroup/project!7"


def test_a_first_scan_records_the_windows_merge_requests_with_notes_and_diff(
    tmp_path: Path, server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(server)
    assert record("--repo", PATH) == 0
    out = capsys.readouterr().out
    assert "group/subgroup/project!7 merged 2026-11-29T10:00:00Z: Fix the parser, part 7" in out
    assert f"{PATH}: 2 merged merge request(s) recorded, 0 already recorded" in out
    assert f"first scan of {PATH}: merge requests updated since 2026-11-23T12:00:00Z only" in out
    rows = events(tmp_path)
    assert sorted(rows) == [f"{PATH}!7", f"{PATH}!8"]  # !3 merged before the window
    row = rows[f"{PATH}!7"]
    assert schema_errors(EVENTS, row) == [] and schema_errors(EVENTS, rows[f"{PATH}!8"]) == []
    assert (row["via"], row["repo"], row["number"], row["author"]) == ("gitlab", PATH, 7, "alice")
    assert row["url"] == f"{WEB}/{PATH}/-/merge_requests/7"
    assert row["labels"] == ["bug", "parser"] and row["merge_commit"] == "07" + "b" * 38
    assert "+items = [x for x in text.split(',') if x]" in str(row["diff_excerpt"])
    discussion = row["discussion"]
    assert isinstance(discussion, dict)
    notes = {note["id"]: note for note in discussion["notes"]}
    assert set(notes) == {f"{PATH}!7:note_501", f"{PATH}!7:note_504"}  # no system, no bot
    inline = notes[f"{PATH}!7:note_501"]
    assert (inline["kind"], inline["path"], inline["line"], inline["resolved"]) == (
        "inline", "src/parser.py", 1, True
    )  # fmt: skip
    assert notes[f"{PATH}!7:note_504"]["kind"] == "conversation"
    assert (discussion["bots"], discussion["complete"]) == (1, True)
    assert read_cursor(tmp_path / "intake")[KEY] == "2026-11-29T10:00:00Z"
    scans = [p for p, _ in server.requests if p.split("?")[0].endswith("/merge_requests")]
    assert len(scans) == 1 and "group%2Fsubgroup%2Fproject" in scans[0]
    assert "state=merged" in scans[0] and "updated_after=2026-11-23T12%3A00%3A00Z" in scans[0]
    assert "order_by=updated_at" in scans[0] and "per_page=100" in scans[0]


def test_the_next_scan_starts_an_hour_before_the_cursor_and_adds_nothing_twice(
    tmp_path: Path, server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(server)
    assert record("--repo", PATH) == 0
    server.merge_request(PATH, 9, updated_at="2026-11-30T09:00:00Z")
    server.requests.clear()
    capsys.readouterr()
    assert record("--repo", f"https://gitlab.com/{PATH}.git") == 0
    out = capsys.readouterr().out
    assert f"{PATH}: 1 merged merge request(s) recorded, 1 already recorded" in out
    assert "first scan" not in out
    assert "updated_after=2026-11-29T09%3A00%3A00Z" in server.requests[0][0]
    assert sorted(events(tmp_path)) == [f"{PATH}!7", f"{PATH}!8", f"{PATH}!9"]
    assert read_cursor(tmp_path / "intake")[KEY] == "2026-11-30T09:00:00Z"


def test_a_dry_run_writes_nothing(
    tmp_path: Path, server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(server)
    assert record("--repo", PATH, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "2 merged merge request(s) would be recorded" in out
    assert f"dry run: nothing written; cursor {PATH}: none" in out
    assert load_events(tmp_path / "intake") == {}
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()


def test_a_server_error_mid_scan_is_exit_4_and_leaves_the_cursor(
    tmp_path: Path, server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(server)
    server.fail("/merge_requests/8/notes", 500, b"<html><body>500 Internal</body></html>", 3)
    assert record("--repo", PATH) == 4
    err = capsys.readouterr().err
    assert "GitLab failed: HTTP 500; retry later" in err and "Traceback" not in err
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()  # nothing charged to the cursor


def test_bad_credentials_are_exit_4_and_name_the_variable(
    tmp_path: Path, server: StandIn, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    seed(server)
    monkeypatch.setenv("KBKIT_GITLAB_TOKEN", "glpat-expired")
    assert record("--repo", PATH) == 4
    err = capsys.readouterr().err
    assert "401 Unauthorized" in err and "KBKIT_GITLAB_TOKEN" in err
    assert "glpat-expired" not in err and "Traceback" not in err


def test_an_unknown_project_is_exit_4_in_gitlabs_words(
    server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record("--repo", "group/other/project") == 4
    assert "GitLab said: 404 Project Not Found (HTTP 404)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "which project? pass --repo GROUP/PROJECT"),
        (("--repo", "project"), "'project' is not one"),
        (("--repo", PATH, "--from", "pulls.json"), "--from, --reread and --alias read GitHub"),
        (("--repo", PATH, "--reread", "3"), "--from, --reread and --alias read GitHub"),
    ],
)
def test_usage_errors_are_exit_2(
    args: tuple[str, ...], words: str, server: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record(*args) == 2
    assert words in capsys.readouterr().err
    assert server.requests == []


def test_a_source_that_scans_no_host_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["intake", "record-prs", "--source", "mailbox", "--repo", PATH]) == 2
    assert "the mailbox source does not scan a host's merged changes" in capsys.readouterr().err
    assert main(["intake", "record-prs", "--source", "bitbucket", "--repo", PATH]) == 2
    assert "no intake source 'bitbucket'" in capsys.readouterr().err


def test_a_github_repository_of_the_same_name_keeps_its_own_cursor(
    tmp_path: Path, server: StandIn
) -> None:
    intake = tmp_path / "intake"
    intake.mkdir()
    github_cursor = {"version": 1, "merged_prs": {PATH.split("/", 1)[1]: "2026-11-01T00:00:00Z"}}
    (intake / CURSOR_FILE).write_text(json.dumps(github_cursor))
    seed(server)
    assert record("--repo", PATH) == 0
    cursor = read_cursor(intake)
    assert cursor == {"subgroup/project": "2026-11-01T00:00:00Z", KEY: "2026-11-29T10:00:00Z"}
