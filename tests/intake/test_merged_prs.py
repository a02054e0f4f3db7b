from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from intake_factories import SLUG, make_pr, write_pages

from kbkit.__main__ import main
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE, load_events, record_events
from kbkit.intake.merged_prs import CURSOR_FILE, advance_cursor, read_cursor, scan_since
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.schemas import EVENTS, schema_errors
from kbkit.intake.sources.github_pulls import parse_pulls

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE = PROJECT / "intake" / "samples" / "github-pulls.json"
ANY_REPO = RepoIdentity(None, {})


def record(tmp_path: Path, *args: str) -> int:
    return main(["intake", "record-prs", "--repo", str(tmp_path), *args])


def test_sample_pages_record_every_merged_pr_and_no_unmerged_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record(tmp_path, "--from", str(SAMPLE)) == 0
    events = load_events(tmp_path / "intake")
    assert sorted(key[1] for key in events) == [f"{SLUG}#{n}" for n in (37, 38, 40, 41)]
    draft = events[("merged_pr", f"{SLUG}#38")]
    assert draft["draft"] is True and draft["merged_at"] == "2026-11-28T14:00:30Z"
    row = events[("merged_pr", f"{SLUG}#41")]
    assert row["labels"] == ["bug", "validators"] and row["author"] == "mei-lin"
    assert row["url"] == f"https://github.com/{SLUG}/pull/41" and row["via"] == "github"
    assert all(schema_errors(EVENTS, event) == [] for event in events.values())
    out = capsys.readouterr().out
    assert "4 merged PR(s) recorded" in out and "2 closed without merging skipped" in out
    cursor = json.loads((tmp_path / "intake" / CURSOR_FILE).read_text())
    assert cursor == {"version": 1, "merged_prs": {SLUG: "2026-11-29T16:42:11Z"}}
    before = {
        name: (tmp_path / "intake" / name).read_bytes() for name in (EVENTS_FILE, STATUS_FILE)
    }
    assert record(tmp_path, "--from", str(SAMPLE)) == 0
    assert "0 merged PR(s) recorded, 4 already recorded" in capsys.readouterr().out
    assert before == {n: (tmp_path / "intake" / n).read_bytes() for n in before}


def test_cursor_moves_forward_only_and_scans_overlap(tmp_path: Path) -> None:
    advance_cursor(tmp_path, {SLUG: "2026-11-30T08:15:00Z"})
    advance_cursor(tmp_path, {SLUG: "2026-11-29T00:00:00Z", "o/r": "2026-01-01T00:00:00Z"})
    assert read_cursor(tmp_path) == {SLUG: "2026-11-30T08:15:00Z", "o/r": "2026-01-01T00:00:00Z"}
    assert scan_since("2026-11-30T08:15:00Z") == "2026-11-30T07:15:00Z"
    assert scan_since(None) is None
    assert not list(tmp_path.glob(".cursor.json*"))  # no temp file left behind


def test_aliases_normalize_a_renamed_repository(tmp_path: Path) -> None:
    pages = [[make_pr(1, repo="kbkit-dev/kb-tools"), make_pr(2, repo="KBKIT-dev/KBKIT")]]
    write_pages(tmp_path / "p.json", pages)
    assert (
        record(
            tmp_path, "--from", "p.json", "--slug", SLUG, "--alias", f"kbkit-dev/kb-tools={SLUG}"
        )
        == 0
    )
    events = load_events(tmp_path / "intake")
    assert {row["repo"] for row in events.values()} == {SLUG}
    assert sorted(key[1] for key in events) == [f"{SLUG}#1", f"{SLUG}#2"]


def test_alias_from_config_file(tmp_path: Path) -> None:
    (tmp_path / "intake").mkdir()
    (tmp_path / "intake" / "config.yaml").write_text(
        f"repo: {SLUG}\naliases:\n  old-org/kbkit: {SLUG}\n"
    )
    write_pages(tmp_path / "p.json", [[make_pr(3, repo="old-org/kbkit")]])
    assert record(tmp_path, "--from", "p.json") == 0
    assert list(load_events(tmp_path / "intake")) == [("merged_pr", f"{SLUG}#3")]


def test_stdin_through_a_real_kb_process(tmp_path: Path) -> None:
    pages = json.dumps([make_pr(5)]) + json.dumps([make_pr(6, merged=False)])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kbkit",
            "intake",
            "record-prs",
            "--from",
            "-",
            "--repo",
            str(tmp_path),
        ],
        input=pages,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "<stdin>: 1 merged PR(s) recorded" in done.stdout
    assert list(load_events(tmp_path / "intake")) == [("merged_pr", f"{SLUG}#5")]


HUGE = "x" * 70_000
BAD_INPUTS = {
    "malformed": (b'[{"number": 1,\n "title": }]', "p.json:2: malformed JSON"),
    "not-utf8": (b'[{"number": 1, "title": "caf\xe9"}]', "p.json:1: not UTF-8"),
    "not-objects": (b"[1, 2]", "expected a pull request object, got int"),
    "no-merged-at": (
        json.dumps([{k: v for k, v in make_pr(9).items() if k != "merged_at"}]).encode(),
        "(PR #9): missing `merged_at`",
    ),
    "no-number": (
        json.dumps([{k: v for k, v in make_pr(9).items() if k != "number"}]).encode(),
        "missing `number`",
    ),
    "huge-body": (json.dumps([make_pr(9, body=HUGE)]).encode(), "longer than GitHub allows"),
    "wrong-repo": (
        json.dumps([make_pr(9, repo="someone/else")]).encode(),
        "PR of someone/else, but the watched repository is kbkit-dev/kbkit",
    ),
    "empty": (b"  \n", "empty input"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_refused_and_touches_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pages(tmp_path / "good.json", [[make_pr(1), make_pr(2)]])
    assert record(tmp_path, "--from", "good.json", "--slug", SLUG) == 0
    folder = tmp_path / "intake"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    data, message = BAD_INPUTS[case]
    # the bad item comes after a good, new PR: nothing of the page may be recorded
    (tmp_path / "p.json").write_bytes(data)
    capsys.readouterr()
    assert record(tmp_path, "--from", "p.json", "--slug", SLUG) == 1
    err = capsys.readouterr().err
    assert err.startswith("kb: error: p.json") and message in err
    assert err.count("\n") == 1  # one line, no traceback
    assert before == {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_bad_item_late_in_the_input_records_nothing_of_it(tmp_path: Path) -> None:
    bad = {k: v for k, v in make_pr(99).items() if k != "merged_at"}
    write_pages(tmp_path / "p.json", [[make_pr(1)], [make_pr(2), bad]])
    assert record(tmp_path, "--from", "p.json") == 1
    assert not (tmp_path / "intake" / EVENTS_FILE).exists()


def test_missing_file_and_directory_are_usage_level_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record(tmp_path, "--from", "nope.json") == 2
    assert "nope.json: no such file" in capsys.readouterr().err
    (tmp_path / "d").mkdir()
    assert record(tmp_path, "--from", "d") == 2
    assert "d: is a directory" in capsys.readouterr().err


# 40 PRs over 40 hours; each scan is a window [start, end) of updated_at, newest first.
PRS = [
    make_pr(
        n,
        merged=n % 5 != 0,
        draft=n % 7 == 0,
        updated_at=f"2026-11-{28 + n // 24:02d}T{n % 24:02d}:00:00Z",
    )
    for n in range(1, 41)
]
WINDOWS = st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), min_size=1, max_size=8)


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(WINDOWS)
def test_overlapping_windows_record_each_merged_pr_exactly_once(
    tmp_path_factory: pytest.TempPathFactory, windows: list[tuple[int, int]]
) -> None:
    folder = tmp_path_factory.mktemp("ledger")
    expected: set[str] = set()
    for a, b in windows:
        start, end = min(a, b), max(a, b)
        page = sorted(PRS[start : end + 1], key=lambda pr: pr["updated_at"], reverse=True)
        label = f"window {start}-{end}"
        pages = decode_pages(label, json.dumps(page).encode())
        scan = parse_pulls(label, pages, ANY_REPO)
        record_events(folder, scan.rows)
        advance_cursor(folder, scan.newest)
        expected |= {f"{SLUG}#{pr['number']}" for pr in page if pr["merged_at"]}
    events, status = folder / EVENTS_FILE, folder / STATUS_FILE
    lines = [json.loads(x) for x in events.read_bytes().splitlines()] if events.exists() else []
    assert sorted(row["source_id"] for row in lines) == sorted(expected)
    assert len(status.read_bytes().splitlines() if status.exists() else []) == len(expected)
    newest = max(a if a > b else b for a, b in windows)
    assert read_cursor(folder)[SLUG] == PRS[newest]["updated_at"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "bad",
    [
        {"updated_at": "9999-12-31T23:59:59Z"},  # would pin the cursor forever
        {"updated_at": "2026-12-05T00:00:00Z"},  # days after the (pinned) clock
        {"updated_at": "0001-01-01T00:00:00+01:00"},  # overflowed into a traceback
        {"updated_at": "2026-W48-1"},  # parses, but GitHub never sends it
        {"updated_at": "2026-11-30"},
        {"merged_at": "1999-01-01T00:00:00Z"},  # before GitHub existed
        {"merged_at": "3000-01-01T00:00:00+00:00"},
    ],
)
def test_a_malformed_time_anywhere_records_nothing_and_leaves_the_cursor(
    tmp_path: Path, bad: dict[str, str]
) -> None:
    good = tmp_path / "good.json"
    write_pages(good, [[make_pr(1, updated_at="2026-11-28T10:00:00Z")]])
    assert record(tmp_path, "--from", str(good), "--slug", SLUG) == 0
    folder = tmp_path / "intake"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    poisoned = make_pr(3)
    poisoned.update(bad)
    pages = write_pages(tmp_path / "pages.json", [[make_pr(2)], [poisoned, make_pr(4)]])
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "intake", "record-prs", "--repo", str(tmp_path),
         "--slug", SLUG, "--from", str(pages)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "PR #3" in done.stderr and str(pages) in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before


@pytest.mark.slow
def test_an_incomplete_page_set_on_stdin_records_nothing(tmp_path: Path) -> None:
    page1 = write_pages(tmp_path / "page1.json", [[make_pr(1), make_pr(2)]])
    # what a pipe from a `gh api --paginate` that died in the middle of page 2 delivers
    script = f'cat {page1}; printf \'[{{"number": 3, "title": "cut\'; exit 1'
    done = subprocess.run(
        f"({script}) | {sys.executable} -m kbkit intake record-prs --repo {tmp_path} "
        f"--slug {SLUG} --from -",
        shell=True, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "<stdin>" in done.stderr and "malformed JSON" in done.stderr
    assert not (tmp_path / "intake" / EVENTS_FILE).exists()
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()


def test_record_prs_help_says_when_the_cursor_advances(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["intake", "record-prs", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "advances only on a complete input" in text
