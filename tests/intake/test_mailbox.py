from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.__main__ import main
from kbkit.intake.ledger import EVENTS_FILE, load_events
from kbkit.intake.sources.drop import render_comment

FIXTURES = Path(__file__).with_name("fixtures")
SLUG = "kbkit-dev/kbkit"


def record(**changes: Any) -> dict[str, Any]:
    base = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    return base | changes


def comment(cid: int, body: str, association: str = "MEMBER") -> dict[str, Any]:
    return {
        "id": cid,
        "body": body,
        "author_association": association,
        "user": {"login": f"user{cid}"},
        "html_url": f"https://github.com/{SLUG}/issues/3#issuecomment-{cid}",
        "created_at": "2026-11-30T08:00:00Z",
    }


def run(tmp_path: Path, comments: list[dict[str, Any]], *extra: str) -> int:
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    return main(["intake", "mailbox", "--from", "comments.json", "--slug", SLUG, *extra])


def test_collaborator_comments_are_recorded_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy = render_comment(record(run_id="legacy-1")).replace(
        "<!-- kbkit:bugfix-record:v1 -->", "<!-- infermatrix-copilot:bugfix-record:v1 -->"
    )
    comments = [
        comment(1, render_comment(record()), "OWNER"),
        comment(2, legacy, "COLLABORATOR"),
        comment(3, "LGTM, thanks!", "NONE"),
    ]
    assert run(tmp_path, comments) == 0
    assert (
        "2 bugfix run(s) recorded, 0 already recorded, 0 refused, 1 ordinary"
        in capsys.readouterr().out
    )
    events = load_events(tmp_path / "intake")
    assert sorted(k[1] for k in events) == [
        "kbkit-dev/kbkit:bugfix-2026-11-28-2210",
        "kbkit-dev/kbkit:legacy-1",
    ]
    assert {row["via"] for row in events.values()} == {"mailbox"}
    assert events[("bugfix_run", "kbkit-dev/kbkit:legacy-1")]["record"] == record(run_id="legacy-1")
    assert run(tmp_path, comments) == 0
    assert len((tmp_path / "intake" / EVENTS_FILE).read_bytes().splitlines()) == 2


def test_rendered_comment_survives_backticks_in_the_record(tmp_path: Path) -> None:
    tricky = record(run_id="ticks", title="Fence ``` closed early?")
    assert run(tmp_path, [comment(1, render_comment(tricky))]) == 0
    assert (
        load_events(tmp_path / "intake")[("bugfix_run", "kbkit-dev/kbkit:ticks")]["title"]
        == "Fence ``` closed early?"
    )


def test_alias_normalizes_the_record_repo(tmp_path: Path) -> None:
    old = record(repo="kbkit-dev/kb-tools")
    assert (
        run(tmp_path, [comment(1, render_comment(old))], "--alias", f"kbkit-dev/kb-tools={SLUG}")
        == 0
    )
    row = load_events(tmp_path / "intake")[("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-28-2210")]
    assert row["repo"] == SLUG and row["record"]["repo"] == SLUG


MARK = "<!-- kbkit:bugfix-record:v1 -->"
REFUSALS = {
    "no-block": (
        comment(5, f"{MARK}\nI fixed it, trust me."),
        "expected exactly one fenced ```json block, found 0",
    ),
    "two-blocks": (comment(5, render_comment(record()) + "\n```json\n{}\n```\n"), "found 2"),
    "bad-json": (comment(5, f'{MARK}\n```json\n{{"run_id": \n```\n'), "not valid JSON"),
    "wrong-shape": (
        comment(5, render_comment(record()).replace('"pr": 52', '"pr": "52"')),
        "not a valid drop record v1: at $.pr",
    ),
    "other-repo": (
        comment(5, render_comment(record(repo="someone/fork"))),
        "record for someone/fork, not the watched repository kbkit-dev/kbkit",
    ),
    "huge": (comment(5, MARK + "x" * 70_000), "longer than GitHub allows"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_comments_name_the_reason_and_touch_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, [comment(1, render_comment(record(run_id="kept")))]) == 0
    before = (tmp_path / "intake" / EVENTS_FILE).read_bytes()
    bad, reason = REFUSALS[case]
    capsys.readouterr()
    assert run(tmp_path, [bad]) == 1
    err = capsys.readouterr().err
    assert "kb: refused comments.json: page 1 (line 1), item 0 (comment 5 by user5)" in err
    assert reason in err
    assert (tmp_path / "intake" / EVENTS_FILE).read_bytes() == before


def test_wrong_shapes_and_missing_slug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.json").write_text(json.dumps([{"id": 1}]))
    assert main(["intake", "mailbox", "--from", "c.json", "--slug", SLUG]) == 1
    assert "c.json: page 1 (line 1), item 0: expected `body`" in capsys.readouterr().err
    (tmp_path / "c.json").write_text(json.dumps([comment(1, "hi")]))
    assert main(["intake", "mailbox", "--from", "c.json"]) == 2
    assert "needs the watched repository" in capsys.readouterr().err
    (tmp_path / "c.json").write_bytes(b'[{"body": "\xff"}]')
    assert main(["intake", "mailbox", "--from", "c.json", "--slug", SLUG]) == 1
    assert "c.json:1: not UTF-8" in capsys.readouterr().err


def test_producer_prints_the_mailbox_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["intake", "drop", "--run", str(FIXTURES / "producer_run.json"), "--mailbox-comment"])
        == 0
    )
    body = capsys.readouterr().out
    assert body.startswith(MARK + "\nBugfix record for `kbkit-dev/kbkit`")
    assert run(tmp_path, [comment(1, body)]) == 0
    assert list(load_events(tmp_path / "intake")) == [
        ("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-30-0815")
    ]
    dry = json.loads((FIXTURES / "producer_run.json").read_text())
    dry["push"]["dry_run"] = True
    (tmp_path / "dry.json").write_text(json.dumps(dry))
    capsys.readouterr()
    assert main(["intake", "drop", "--run", "dry.json", "--mailbox-comment"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and "dry run" in out.err


def test_a_strangers_marked_comment_is_ignored_with_a_warning_once_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stranger = comment(5, render_comment(record()), "CONTRIBUTOR")
    assert run(tmp_path, [stranger]) == 0
    captured = capsys.readouterr()
    assert "kb: warning: ignored comments.json: page 1 (line 1), item 0 (comment 5 by user5)" in captured.err  # fmt: skip
    assert "author association CONTRIBUTOR is not OWNER, MEMBER or COLLABORATOR" in captured.err
    assert "0 refused, 1 ignored (not by a collaborator)" in captured.out
    assert load_events(tmp_path / "intake") == {}
    assert run(tmp_path, [stranger]) == 0  # the next day: remembered, not warned again
    captured = capsys.readouterr()
    assert captured.err == "" and "1 refused or ignored before" in captured.out


@pytest.mark.parametrize("issue", [f"{SLUG}#", ""])
def test_no_mailbox_configured_is_a_notice_and_exit_0(
    issue: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-gh"  # nothing is asked of GitHub: no gh is needed
    empty.mkdir()
    assert main(["intake", "mailbox", "--issue", issue, "--slug", SLUG]) == 0
    out = capsys.readouterr().out
    assert "notice: no mailbox issue is configured" in out and "KBKIT_MAILBOX_ISSUE" in out


def test_the_mailbox_comment_title_mentions_nobody() -> None:
    from kbkit.infra import inert

    text = render_comment(record(title="Ask @acme/security about #12 and GH-3"))
    assert inert.markdown(text) == text and "@&#8203;acme/security" in text


JSON_FENCE = re.compile(r"^```[ \t]*json[ \t]*\r?\n(.*?)\r?\n```[ \t]*$", re.MULTILINE | re.DOTALL)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.sampled_from(("```json", "```", " json", "json", "\n", "\r\n", "\r", " ", "{}", "x")),
        max_size=30,
    )
)
def test_json_blocks_are_those_the_fence_pattern_finds(pieces: list[str]) -> None:
    from kbkit.intake.sources.mailbox import json_blocks

    body = "".join(pieces)
    assert json_blocks(body) == JSON_FENCE.findall(body)
