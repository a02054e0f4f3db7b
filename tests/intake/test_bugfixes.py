from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.infra.errors import InputError
from kbkit.intake.ledger import EVENTS_FILE, load_events, load_status
from kbkit.intake.sources.drop import write_drop_record

FIXTURES = Path(__file__).with_name("fixtures")
PROJECT = Path(__file__).resolve().parents[2]


def producer_run() -> dict[str, object]:
    return json.loads((FIXTURES / "producer_run.json").read_text())


# ---- producer side: pinned on its own fixture (a change to `drop` must break this test) ----


def test_producer_writes_the_pinned_v1_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drops = tmp_path / "drops"
    assert (
        main(["intake", "drop", "--run", str(FIXTURES / "producer_run.json"), "--dir", str(drops)])
        == 0
    )
    written = drops / "kbkit-dev+kbkit+bugfix-2026-11-30-0815.json"
    assert json.loads(written.read_text()) == {
        "run_id": "bugfix-2026-11-30-0815",
        "repo": "kbkit-dev/kbkit",
        "pr": 57,
        "kind": "bugfix_run",
        "title": "check-wiki-lint crashed on a page whose frontmatter is a list",
        "groups": [
            {
                "signature": "wiki-lint: AttributeError 'list' object has no attribute 'get'",
                "jobs": ["ci/check"],
                "root_cause": "The frontmatter loader assumed a mapping and called .get on a "
                "YAML list.",
                "fix_summary": "Report frontmatter-not-mapping as a finding instead of crashing.",
                "verification": "New bad case tests/cases/wiki_lint/bad/list-frontmatter passes; "
                "make check green.",
                "files": [
                    "tools/kbkit/pages/frontmatter.py",
                    "tests/cases/wiki_lint/bad/list-frontmatter.md",
                ],
            }
        ],
        "created_at": "2026-11-30T08:15:00Z",
    }
    assert sorted(p.name for p in drops.iterdir()) == [written.name]  # no temp file left
    out = capsys.readouterr().out
    assert f"wrote {written}" in out and "(1 verified group(s))" in out


def test_producer_reads_the_directory_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBKIT_DROP_DIR", str(tmp_path / "env-drops"))
    assert main(["intake", "drop", "--run", str(FIXTURES / "producer_run.json")]) == 0
    assert (tmp_path / "env-drops" / "kbkit-dev+kbkit+bugfix-2026-11-30-0815.json").is_file()


@pytest.mark.parametrize(
    ("change", "summary"),
    [
        ({"push": {"dry_run": True, "ok": True}}, "dry run, nothing landed"),
        ({"push": {"dry_run": False, "ok": False}}, "the push failed"),
        (
            {
                "groups": [
                    {
                        "signature": "s",
                        "jobs": [],
                        "root_cause": "cause",
                        "fix_summary": "",
                        "verification": "  ",
                        "files": [],
                    }
                ]
            },
            "no fix group has both",
        ),
    ],
)
def test_producer_is_fail_open_when_nothing_landed(
    change: dict[str, object], summary: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = producer_run() | change
    (tmp_path / "run.json").write_text(json.dumps(run))
    assert main(["intake", "drop", "--run", "run.json", "--dir", "drops"]) == 0
    assert summary in capsys.readouterr().out
    assert not (tmp_path / "drops").exists()


def test_producer_without_a_directory_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["intake", "drop", "--run", str(FIXTURES / "producer_run.json")]) == 0
    assert "KBKIT_DROP_DIR is not set" in capsys.readouterr().out


def test_producer_write_error_is_fail_open(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the drop directory should be")
    outcome = write_drop_record(producer_run(), tmp_path / "blocker")
    assert outcome.path is None and "could not write" in outcome.summary


def test_strict_drop_fails_when_the_record_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write error loses the landed fix's record: fail-open (exit 0, one line) by default,
    exit 1 with --strict."""
    (tmp_path / "run.json").write_text(json.dumps(producer_run()))
    (tmp_path / "blocker").write_text("a file where the drop directory should be")
    argv = ["intake", "drop", "--run", "run.json", "--dir", "blocker/drops"]
    assert main(argv) == 0
    assert "could not write" in capsys.readouterr().out
    assert main([*argv, "--strict"]) == 1
    assert "could not write" in capsys.readouterr().out
    assert (tmp_path / "blocker").read_text() == "a file where the drop directory should be"


def test_producer_refuses_a_run_of_the_wrong_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.json").write_text(json.dumps(producer_run() | {"pr": "fifty"}))
    # fail-open: one honest line, exit 0; --strict (tests, CI) turns it into exit 1
    assert main(["intake", "drop", "--run", "run.json", "--dir", "drops"]) == 0
    assert "run.json: not a valid drop record v1: at $.pr" in capsys.readouterr().out
    assert main(["intake", "drop", "--run", "run.json", "--dir", "drops", "--strict"]) == 1
    assert "record not delivered" in capsys.readouterr().out
    with pytest.raises(InputError, match="push"):
        write_drop_record({"run_id": "x"}, tmp_path)


# ---- consumer side: pinned on a separate fixture (a change to `collect` must break this) ----


def test_consumer_records_the_pinned_v1_record(tmp_path: Path) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "bugfix-2026-11-28-2210.json").write_bytes(
        (FIXTURES / "consumer_drop_record.json").read_bytes()
    )
    assert main(["intake", "collect", "--drops", str(drops), "--repo", str(tmp_path)]) == 0
    events = load_events(tmp_path / "intake")
    row = events[("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-28-2210")]
    assert row.pop("recorded_at")
    assert row == {
        "source_kind": "bugfix_run",
        "source_id": "kbkit-dev/kbkit:bugfix-2026-11-28-2210",
        "repo": "kbkit-dev/kbkit",
        "title": "Knowledge tree accepted a rule heading without its group digit",
        "pr": 52,
        "via": "drop",
        "record": json.loads((FIXTURES / "consumer_drop_record.json").read_text()),
    }
    assert (
        row["record"]["groups"][0]["root_cause"]
        == "The rule heading pattern made the group digit optional."
    )
    assert (
        load_status(tmp_path / "intake")[("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-28-2210")][
            "state"
        ]
        == "pending"
    )


def test_producer_output_is_accepted_by_the_consumer(tmp_path: Path) -> None:
    drops = tmp_path / "drops"
    write_drop_record(producer_run(), drops)
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    assert main(["intake", "collect", "--drops", str(drops)]) == 0  # idempotent
    lines = (tmp_path / "intake" / EVENTS_FILE).read_bytes().splitlines()
    assert len(lines) == 1 and (drops / "kbkit-dev+kbkit+bugfix-2026-11-30-0815.json").exists()


def test_sample_drops_are_valid(tmp_path: Path) -> None:
    samples = PROJECT / "intake" / "samples" / "drops"
    drops = tmp_path / "drops"
    drops.mkdir()
    for path in samples.iterdir():
        (drops / path.name).write_bytes(path.read_bytes())
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    assert len(load_events(tmp_path / "intake")) == 3


def _bad_drops(drops: Path, outside: Path) -> dict[str, str]:
    """name -> expected reason, for every kind of unusable drop file."""
    good = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    (drops / "malformed.json").write_text('{"run_id": ')
    (drops / "latin1.json").write_bytes(b'{"title": "caf\xe9"}')
    (drops / "shape.json").write_text(json.dumps(good | {"groups": []}))
    (drops / "list.json").write_text("[]")
    (drops / "huge.json").write_text(json.dumps(good | {"title": "x" * (1 << 20)}))
    (drops / "folder.json").mkdir()
    (drops / "notes.txt").write_text("hello")
    outside.write_text(json.dumps(good | {"run_id": "outside"}))
    (drops / "escape.json").symlink_to(outside)
    (drops / "loop.json").symlink_to(drops / "loop.json")
    (drops / "dangling.json").symlink_to(drops / "gone.json")
    return {
        "malformed.json": "malformed JSON",
        "latin1.json": "not UTF-8",
        "shape.json": "not a valid drop record v1: at $.groups",
        "list.json": "not a valid drop record v1",
        "huge.json": "larger than 1048576 bytes",
        "folder.json": "a directory, not a drop file",
        "notes.txt": "not a .json file",
        "escape.json": "a symlink pointing outside the drop directory",
        "loop.json": "a dangling symlink or a symlink loop",
        "dangling.json": "a dangling symlink or a symlink loop",
    }


def test_bad_drop_files_are_quarantined_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "first.json").write_bytes((FIXTURES / "consumer_drop_record.json").read_bytes())
    assert main(["intake", "collect", "--drops", str(drops)]) == 0
    ledger = tmp_path / "intake" / EVENTS_FILE
    before = ledger.read_bytes()
    outside = tmp_path / "outside.json"
    expected = _bad_drops(drops, outside)
    good = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    (drops / "inside-target.json").write_text(json.dumps(good | {"run_id": "inside"}))
    os.symlink("inside-target.json", drops / "inside-link.json")
    capsys.readouterr()
    assert main(["intake", "collect", "--drops", str(drops)]) == 1
    err = capsys.readouterr().err
    quarantine = drops / "quarantine"
    for name, reason in expected.items():
        assert (quarantine / name).exists() or (quarantine / name).is_symlink(), name
        assert reason in (quarantine / f"{name}.reason").read_text(), name
        assert f"quarantine/{name}: {name}: {reason}" in err
        assert not (drops / name).exists() and not (drops / name).is_symlink()
    assert outside.exists()  # the symlink moved, never its target
    # the good files are still there, only the new valid run was added
    assert ledger.read_bytes().startswith(before)
    assert sorted(k[1] for k in load_events(tmp_path / "intake")) == [
        "kbkit-dev/kbkit:bugfix-2026-11-28-2210",
        "kbkit-dev/kbkit:inside",
    ]
    assert main(["intake", "collect", "--drops", str(drops)]) == 0  # quarantine is left alone


def test_collect_needs_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["intake", "collect"]) == 2
    assert "pass --drops DIR or set KBKIT_DROP_DIR" in capsys.readouterr().err
    assert main(["intake", "collect", "--drops", "missing"]) == 2
    assert "missing: no such folder" in capsys.readouterr().err


def test_producer_never_writes_outside_the_drop_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.json").write_text(json.dumps(producer_run() | {"run_id": "../escaped"}))
    argv = ["intake", "drop", "--run", "run.json", "--dir", "drops/inner", "--strict"]
    assert main(argv) == 1
    assert "at $.run_id" in capsys.readouterr().out
    assert not (tmp_path / "drops").exists() and not list(tmp_path.glob("**/escaped*"))


def test_collect_quarantines_a_record_for_another_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    record = json.loads((FIXTURES / "consumer_drop_record.json").read_text())
    (drops / "theirs.json").write_text(json.dumps(record | {"repo": "someone-else/other"}))
    argv = ["intake", "collect", "--drops", str(drops), "--slug", record["repo"]]
    assert main(argv) == 1
    reason = (drops / "quarantine" / "theirs.json.reason").read_text()
    assert "someone-else/other" in reason and "not the watched repository" in reason
    assert load_events(tmp_path / "intake") == {}
