"""Writers never record a row their checker rejects: generated subjects, titles, numbers
and records through `record-git`, `record-prs`, `drop` (then `collect`) and the mailbox
reader, every row checked by `kb intake check`'s own validator (jsonschema, the oracle)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kbkit.__main__ import main
from kbkit.infra.errors import InputError
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.schemas import DROP_RECORD, EVENTS, schema_errors
from kbkit.intake.sources.drop import MARKER, bugfix_row, landed_record, read_drop_file
from kbkit.intake.sources.git import git_rows
from kbkit.intake.sources.github_pulls import parse_pulls
from kbkit.intake.sources.mailbox import parse_comments

SLUG = "acme/app"
IDENTITY = RepoIdentity(SLUG, {})
# One line of text: anything but NUL (git cannot store it) and line breaks (a subject is one
# line); surrogates only where JSON can carry them.
LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00\n\r"))
LONG_LINE = st.one_of(LINE, st.builds(lambda c, n: c * n, st.sampled_from("aé日"), st.integers(1990, 20_500)))  # fmt: skip
NUMBER = st.integers(min_value=-3, max_value=10**12)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GIT = settings(FAST, max_examples=30)  # each example is a real repository


def _valid(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        assert schema_errors(EVENTS, row) == [], row


def _git(repo: Path, *args: str, message: str | None = None) -> None:
    """git in `repo`; `message` goes to a file that the `-F -` in args stands for."""
    env = dict(os.environ, GIT_COMMITTER_DATE="2026-11-30T08:00:00Z")
    if message is not None:
        file = repo / ".git" / "kbkit-test-message"
        file.write_bytes(message.encode())
        args = tuple(str(file) if a == "-" else a for a in args)
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _subject(title: str, number: int, merge: bool) -> str:
    return f"Merge pull request #{number} from dev/x" if merge else f"{title} (#{number})"


@pytest.mark.slow
@GIT
@given(st.lists(st.tuples(LONG_LINE, NUMBER, st.booleans(), LINE), min_size=1, max_size=4))
def test_record_git_rows_pass_the_checker(commits: list[tuple[str, int, bool, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder)
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "Initial import")
        for title, number, merge, body in commits:
            if merge:  # a merge commit: the PR title is the body's first line
                _git(repo, "checkout", "-q", "-b", "side")
                _git(repo, "commit", "-q", "--allow-empty", "-m", "work")
                _git(repo, "checkout", "-q", "main")
                _git(repo, "commit", "-q", "--allow-empty", "-m", "base")
                message = f"{_subject(title, number, True)}\n\n{title}\n{body}"
                _git(repo, "merge", "-q", "--no-ff", "side", "-F", "-", message=message)
                _git(repo, "branch", "-q", "-D", "side")
            else:
                message = f"{_subject(title, number, False)}\n\n{body}"
                _git(repo, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-",
                     message=message)  # fmt: skip
        _valid(git_rows(repo, "main", SLUG, set()).rows)


def test_the_issue_cases_through_record_git_and_check(tmp_path: Path, capsys: Any) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "Fix login (#0)")
    _git(repo, "commit", "-q", "--allow-empty", "-F", "-", message="T" * 20_000 + " (#7)")
    assert main(["intake", "record-git", "--repo", str(tmp_path), "--git", str(repo),
                 "--slug", SLUG]) == 0  # fmt: skip
    rows = [
        json.loads(line) for line in (tmp_path / "intake/events.jsonl").read_text().splitlines()
    ]
    assert [r["number"] for r in rows] == [7]  # "(#0)" names no PR
    assert len(rows[0]["title"]) == 2000 and "cut by kbkit" in rows[0]["title"]
    capsys.readouterr()
    assert main(["intake", "check", "--repo", str(tmp_path)]) == 0, capsys.readouterr().out


TIME = st.sampled_from(
    ["2026-11-30T08:00:00Z", "2026-11-30T08:00:00+02:00", "2026-11-30T08:00:00.5Z"]
)
PR = st.fixed_dictionaries(
    {
        "number": NUMBER,
        "title": st.one_of(LINE, st.text(max_size=1100)),
        "body": st.one_of(st.none(), st.text(max_size=5000)),
        "merged_at": st.one_of(st.none(), TIME),
        "updated_at": TIME,
        "html_url": st.one_of(LINE, st.just("https://github.com/acme/app/pull/1")),
        "merge_commit_sha": st.one_of(st.none(), LINE, st.text("0123456789abcdef", min_size=7, max_size=70)),
        "labels": st.lists(st.fixed_dictionaries({"name": st.one_of(LINE, LONG_LINE)}), max_size=3),
        "user": st.fixed_dictionaries({"login": st.one_of(LINE, LONG_LINE)}),
        "draft": st.booleans(),
        "base": st.just({"repo": {"full_name": SLUG}}),
    }
)  # fmt: skip


@pytest.mark.slow
@FAST
@given(st.lists(PR, min_size=1, max_size=4), st.booleans())
def test_record_prs_rows_pass_the_checker(pulls: list[dict[str, Any]], escaped: bool) -> None:
    # as JSON text, with every non-ASCII character \u-escaped or not (lone surrogates too)
    data = json.dumps(pulls, ensure_ascii=escaped).encode("utf-8", "surrogatepass")
    assume(escaped or b"\xed" not in data)  # raw surrogates are no UTF-8 GitHub could send
    try:
        scan = parse_pulls("pulls.json", decode_pages("pulls.json", data), IDENTITY)
    except InputError:
        return  # refused whole, before anything is recorded: nothing to check
    _valid(scan.rows)


GROUP = st.fixed_dictionaries(
    {
        "signature": st.text(min_size=0, max_size=2500),
        "jobs": st.lists(LINE, max_size=3),
        "root_cause": st.one_of(st.text(max_size=9000), st.just("a real cause")),
        "fix_summary": st.text(max_size=9000),
        "verification": st.one_of(st.text(max_size=9000), st.just("tests pass")),
        "files": st.lists(LINE, max_size=3),
    }
)
RUN = st.fixed_dictionaries(
    {
        "run_id": st.one_of(st.just("run-1"), LINE),
        "repo": st.one_of(st.just(SLUG), st.just("app"), LINE),
        "pr": st.one_of(st.none(), NUMBER),
        "kind": st.just("bugfix_run"),
        "title": st.one_of(LINE, LONG_LINE, st.text(max_size=600)),
        "groups": st.lists(GROUP, min_size=1, max_size=3),
        "created_at": TIME,
        "push": st.just({"dry_run": False, "ok": True}),
    }
)


@pytest.mark.slow
@FAST
@given(RUN)
def test_drop_then_collect_rows_pass_the_checker(run: dict[str, Any]) -> None:
    try:
        record, _ = landed_record(run, "RUN.json", {"app": SLUG})
    except InputError:
        return  # the producer reports the bad run (fail-open), writes nothing
    if record is None:
        return
    assert schema_errors(DROP_RECORD, record) == []
    with tempfile.TemporaryDirectory() as folder:  # the file `drop` writes, read by `collect`
        drops = Path(folder)
        path = drops / f"{record['run_id']}.json"
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
        read = read_drop_file(path, drops)
    if IDENTITY.watches(read["repo"]):
        _valid([bugfix_row(read, IDENTITY, "drop")])


@pytest.mark.slow
@FAST
@given(
    st.lists(st.tuples(RUN, st.sampled_from(["OWNER", "MEMBER", "NONE"])), min_size=1, max_size=3)
)
def test_mailbox_rows_pass_the_checker(posts: list[tuple[dict[str, Any], str]]) -> None:
    comments = []
    for number, (run, association) in enumerate(posts, 1):
        record = {k: v for k, v in run.items() if k != "push"}
        block = json.dumps(record, indent=2, ensure_ascii=False).replace("`", "\\u0060")
        body = f"{MARKER}\nA record.\n\n```json\n{block}\n```\n"
        comments.append({"id": number, "body": body, "author_association": association,
                         "user": {"login": "dev"}})  # fmt: skip
    data = json.dumps(comments).encode()
    scan = parse_comments("comments.json", decode_pages("comments.json", data), IDENTITY)
    _valid(scan.rows)
