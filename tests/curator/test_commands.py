"""`kb curate ...` on files: JSON out, dry run exits 1, bad input names the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from tests.curator.conftest import WRITING, batch, row


def _files(tmp_path: Path, rows: list[dict]) -> tuple[str, str]:  # type: ignore[type-arg]
    b = tmp_path / "batch.json"
    b.write_text(json.dumps(batch("PR #101").to_dict()))
    p = tmp_path / "reply.json"
    p.write_text(json.dumps({"proposals": rows}))
    return str(b), str(p)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_prompt_schema_validate_apply(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b, p = _files(tmp_path, [row()])
    repo = ["--repo", str(clone)]
    code, out, _ = _run(["curate", "prompt", *repo, "--batch", b], capsys)
    assert code == 0 and WRITING in json.loads(out)["targets"]
    code, out, _ = _run(["curate", "schema", *repo, "--batch", b], capsys)
    assert code == 0 and json.loads(out)["additionalProperties"] is False
    validation = tmp_path / "validation.json"
    code, out, _ = _run(
        ["curate", "validate", *repo, "--batch", b, "--proposals", p, "--output", str(validation)],
        capsys,
    )
    assert code == 0 and json.loads(out)["accepted_indexes"] == [0]
    page = clone / "knowledge" / f"{WRITING}.md"
    before = page.read_bytes()
    code, out, _ = _run(
        ["curate", "apply", *repo, "--validation", str(validation), "--dry-run"], capsys
    )
    assert code == 1 and page.read_bytes() == before
    planned = json.loads(out)["changes"][0]["insertions"][0]
    assert planned["rule_id"] == "WRITE-3b" and planned["text"].startswith("### WRITE-3b")
    code, out, _ = _run(
        ["curate", "apply", *repo, "--validation", str(validation), "--today", "2026-12-01"], capsys
    )
    assert code == 0 and json.loads(out)["validators"]["status"] == "passed"
    assert b"### WRITE-3b" in page.read_bytes()
    code, out, err = _run(["curate", "apply", *repo, "--validation", str(validation)], capsys)
    assert code == 1 and "stale" in err
    code, out, _ = _run(["curate", "recover", *repo], capsys)
    assert code == 0 and json.loads(out)["journal_found"] is False


def test_rejections_exit_1_and_apply_with_batch(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b, p = _files(tmp_path, [row(rule_id="WRITE-1a")])
    code, out, _ = _run(
        ["curate", "validate", "--repo", str(clone), "--batch", b, "--proposals", p], capsys
    )
    assert code == 1 and json.loads(out)["rejected"][0]["reason"] == "rule-id-taken"
    code, out, _ = _run(
        ["curate", "apply", "--repo", str(clone), "--batch", b, "--proposals", p, "--dry-run"],
        capsys,
    )
    assert code == 0 and json.loads(out)["changes"] == []
    assert json.loads(out)["rejected"][0]["reason"] == "rule-id-taken"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not valid JSON"),
        ('{"events": []}', "events: a batch needs"),
        ("[]", "expected a JSON object"),
    ],
)
def test_bad_batch_file_is_named(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, needle: str
) -> None:
    bad = tmp_path / "bad-batch.json"
    bad.write_text(content)
    before = sorted((clone / "knowledge").rglob("*"))
    code, _, err = _run(["curate", "prompt", "--repo", str(clone), "--batch", str(bad)], capsys)
    assert code == 1 and str(bad) in err and needle in err
    assert err.count("\n") == 1
    assert sorted((clone / "knowledge").rglob("*")) == before


def test_usage_errors(clone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["curate", "apply", "--repo", str(clone)], capsys)
    assert code == 2 and "--validation" in err
    code, _, err = _run(
        ["curate", "apply", "--repo", str(clone), "--validation", "missing.json"], capsys
    )
    assert code == 2 and "missing.json: no such file" in err  # a usage error, as everywhere


def test_recover_restores_an_interrupted_apply(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit.curator.catalog import sha256
    from kbkit.curator.journal import JOURNAL, JournalPage, state_dir, write_journal

    page = clone / "knowledge" / f"{WRITING}.md"
    base = page.read_bytes()
    applied = base + b"\n### WRITE-9z half\n"
    write_journal(
        clone,
        "knowledge",
        {
            WRITING: JournalPage(base, sha256(applied)),
            "general/review/rules": JournalPage(b"unchanged?", sha256(b"applied")),
        },
    )
    page.write_bytes(applied)
    (clone / "knowledge/general/review/rules.md").write_bytes(b"unchanged?")
    code, out, _ = _run(["curate", "recover", "--repo", str(clone)], capsys)
    assert code == 0
    assert json.loads(out) == {
        "journal_found": True,
        "restored": [WRITING],
        "unchanged": ["general/review/rules"],
        "kept": [],
    }
    assert page.read_bytes() == base
    assert not (state_dir(clone) / JOURNAL).exists()


def test_a_corrupt_journal_is_reported_not_guessed(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit.curator.journal import JOURNAL, state_dir

    (state_dir(clone) / JOURNAL).write_text('{"version": 2, "pages": {"../../etc/x": {}}}')
    before = sorted(p.read_bytes() for p in (clone / "knowledge").rglob("*.md"))
    code, _, err = _run(["curate", "recover", "--repo", str(clone)], capsys)
    assert code == 1 and "journal" in err and "restore the pages with git" in err
    assert sorted(p.read_bytes() for p in (clone / "knowledge").rglob("*.md")) == before
