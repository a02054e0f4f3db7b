"""The bugfix channel through GitHub: the fail-open drop writer, posting to the mailbox issue
(gated by the outward-write flag) and reading the mailbox issue through `gh api`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_github_scan import FakeGh
from test_mailbox import comment, record

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.schemas import CUT_MARKER
from kbkit.intake.sources.drop import render_comment
from kbkit.intake.sources.mailbox import REFUSED_FILE, comments_endpoint

FIXTURES = Path(__file__).with_name("fixtures")
SLUG = "kbkit-dev/kbkit"
ISSUE = f"{SLUG}#3"


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    monkeypatch.delenv("KBKIT_ALLOW_POST", raising=False)
    monkeypatch.delenv("ALLOW_POST", raising=False)
    return FakeGh(tmp_path, monkeypatch)


def write_run(tmp_path: Path, **changes: Any) -> str:
    run = json.loads((FIXTURES / "producer_run.json").read_text()) | changes
    (tmp_path / "run.json").write_text(json.dumps(run))
    return "run.json"


def drop(*args: str) -> int:
    return main(["intake", "drop", "--run", "run.json", *args])


def test_over_long_verification_is_cut_with_a_marker_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = json.loads((FIXTURES / "producer_run.json").read_text())
    run["groups"][0]["verification"] = "pytest output line\n" * 500  # 9.5 KB pasted log
    (tmp_path / "run.json").write_text(json.dumps(run))
    assert drop("--dir", "drops", "--strict") == 0
    out = capsys.readouterr().out
    assert "wrote" in out and "cut to the limits: groups[0].verification (9500 > 8000" in out
    written = json.loads((tmp_path / "drops" / f"kbkit-dev+kbkit+{run['run_id']}.json").read_text())
    text = written["groups"][0]["verification"]
    kept = text.index("… [cut")
    assert len(text) <= 8000 and text.endswith(CUT_MARKER.format(9500 - kept))


def test_bare_repo_name_is_normalised_by_alias_and_otherwise_fails_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, repo="app")
    assert drop("--dir", "drops") == 0  # the landed fix never fails for the record
    assert "record not delivered" in capsys.readouterr().out
    assert not (tmp_path / "drops").exists()
    assert drop("--dir", "drops", "--strict") == 1
    capsys.readouterr()
    assert drop("--dir", "drops", "--alias", f"app={SLUG}", "--strict") == 0
    written = json.loads(next((tmp_path / "drops").glob("*.json")).read_text())
    assert written["repo"] == SLUG


def test_posting_to_the_mailbox_is_gated_by_the_flag(
    tmp_path: Path, gh: FakeGh, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path)
    assert drop("--mailbox", ISSUE, "--strict") == 0
    assert "posting is off (set KBKIT_ALLOW_POST=1" in capsys.readouterr().out
    assert gh.load().get("posted", []) == []
    for flag in ("KBKIT_ALLOW_POST", "ALLOW_POST"):
        monkeypatch.setenv(flag, "1")
        assert drop("--mailbox", ISSUE, "--strict") == 0
        assert f"posted the record to {ISSUE}" in capsys.readouterr().out
        monkeypatch.delenv(flag)
    posted = gh.load()["posted"]
    assert [p["endpoint"] for p in posted] == [f"repos/{SLUG}/issues/3/comments"] * 2
    body = posted[0]["body"]
    assert body.startswith("<!-- kbkit:bugfix-record:v1 -->") and body.count("```json") == 1


def test_a_failed_post_is_fail_open(
    tmp_path: Path, gh: FakeGh, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KBKIT_ALLOW_POST", "1")
    write_run(tmp_path)
    gh_script = tmp_path / "bin" / "gh"  # GitHub refuses the token, as gh reports it
    gh_script.write_text("#!/bin/sh\necho 'gh: Bad credentials (HTTP 401)' >&2\nexit 1\n")
    assert drop("--mailbox", ISSUE) == 0
    assert "record not delivered" in capsys.readouterr().out
    assert drop("--mailbox", ISSUE, "--strict") == 1


def test_mailbox_issue_is_paged_and_a_refusal_is_reported_once(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy = render_comment(record(run_id="legacy-1")).replace(
        "<!-- kbkit:bugfix-record:v1 -->", "<!-- infermatrix-copilot:bugfix-record:v1 -->"
    )
    page1 = [
        comment(1, render_comment(record()), "OWNER"),
        comment(2, "thanks!", "NONE"),
        comment(5, render_comment(record(run_id="drive-by")), "NONE"),
    ]
    page2 = [
        comment(6, legacy, "COLLABORATOR"),
        comment(7, render_comment(record(run_id="other", repo="someone/else")), "MEMBER"),
    ]
    gh.route(comments_endpoint(SLUG, 3), pages=[page1, page2])
    assert main(["intake", "mailbox", "--issue", ISSUE]) == 1
    captured = capsys.readouterr()
    assert "warning: ignored kbkit-dev/kbkit#3: page 1 (line 1), item 2 (comment 5 by user5)" in captured.err  # fmt: skip
    assert "not OWNER, MEMBER" in captured.err  # a stranger's: ignored, with a warning
    assert "refused kbkit-dev/kbkit#3" in captured.err and "comment 7 by user7" in captured.err
    assert "not the watched repository" in captured.err  # a collaborator's: refused, exit 1
    assert "2 bugfix run(s) recorded" in captured.out and "1 refused, 1 ignored" in captured.out
    events = load_events(tmp_path / "intake")
    assert sorted(key[1] for key in events) == sorted(
        [f"kbkit-dev/kbkit:{record()['run_id']}", "kbkit-dev/kbkit:legacy-1"]
    )
    assert (tmp_path / "intake" / REFUSED_FILE).is_file()
    # the next run: nothing new, the old refusals are not reported again
    assert main(["intake", "mailbox", "--issue", ISSUE]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "2 already recorded, 0 refused" in captured.out
    assert "2 refused or ignored before" in captured.out


def test_mailbox_issue_errors_are_clear(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["intake", "mailbox", "--issue", "not-an-issue"]) == 2
    assert "OWNER/NAME#N" in capsys.readouterr().err
    gh.route(comments_endpoint(SLUG, 3), status=401, message="Bad credentials")
    assert main(["intake", "mailbox", "--issue", ISSUE]) == 4
    assert "refused the credentials" in capsys.readouterr().err
