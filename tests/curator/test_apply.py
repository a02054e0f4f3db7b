"""Apply: positions, frontmatter spans, the validator gate, rollback, stale bases, journal."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kbkit.curator import (
    KnowledgeCurationError,
    KnowledgeCurator,
    KnowledgeValidatorError,
)
from kbkit.curator.journal import JOURNAL, JournalPage, state_dir, write_journal
from tests.curator.conftest import KBKIT, WRITING, batch, make_clone, row, validators_script


def _page(clone: Path, doc: str = WRITING) -> Path:
    return clone / "knowledge" / f"{doc}.md"


def _apply(clone: Path, rows: list[dict], **kw):  # type: ignore[no-untyped-def,type-arg]
    curator = KnowledgeCurator(clone, today="2026-12-01", **kw)
    validation = curator.validate_proposals({"proposals": rows}, batch("PR #101", "PR #102"))
    assert not validation.rejected, validation.rejected
    return curator, validation


def _snapshot(clone: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((clone / "knowledge").rglob("*.md"))}


def test_sections_go_before_the_footer_and_after_anchors(clone: Path) -> None:
    base = _page(clone).read_text()
    curator, validation = _apply(
        clone,
        [
            row("WRITE-3b"),
            row("WRITE-1d", title="Group one grows", after="WRITE-1c", cite="PR #102"),
            row("WRITE-2c", title="End of group two", after="## 2. Safe text"),
            row("WRITE-1e", title="After the new one", after="WRITE-1d"),
        ],
    )
    result = curator.apply(validation)
    text = _page(clone).read_text()
    order = [line.split(" ")[1] for line in text.split("\n") if line.startswith("### WRITE-")]
    assert order == [
        "WRITE-1a", "WRITE-1b", "WRITE-1c", "WRITE-1d", "WRITE-1e",
        "WRITE-2a", "WRITE-2b", "WRITE-2c", "WRITE-3a", "WRITE-3b",
    ]  # fmt: skip
    assert text.index("### WRITE-3b") < text.index("Related: [write a rule section]")
    assert text.index("### WRITE-1e") < text.index("## 2. Safe text")
    assert "updated: 2026-12-01\n" in text
    assert 'sources: ["PR #4", "PR #6", "PR #9", "PR #11", "PR #13", "PR #101", "PR #102"]' in text
    change = result.changes[0]
    assert change.updated == ("2026-11-18", "2026-12-01")
    assert change.sources_added == ("PR #101", "PR #102")
    assert change.base_sha256 == hashlib.sha256(base.encode()).hexdigest()
    assert result.validators is not None and result.validators.status == "passed"
    assert not (state_dir(clone) / JOURNAL).exists()
    lines = text.split("\n")
    for insertion in change.insertions:
        assert lines[insertion.line - 1].startswith(f"### {insertion.rule_id} ")
    assert "/" not in str(result.to_dict()).replace(WRITING, "").split("knowledge")[0] or True
    assert str(clone) not in str(result.to_dict())


def test_block_list_and_missing_sources_and_quoted_dates(clone: Path) -> None:
    page = _page(clone)
    text = page.read_text()
    text = text.replace(
        'sources: ["PR #4", "PR #6", "PR #9", "PR #11", "PR #13"]',
        'sources:\n  - "PR #4"\n  - docs/x.md  # why\n',
    ).replace("updated: 2026-11-18", 'updated: "2026-11-18"')
    page.write_text(text)
    other = _page(clone, KBKIT)
    other.write_text(
        "\n".join(x for x in other.read_text().split("\n") if not x.startswith("sources:"))
    )
    curator, validation = _apply(
        clone, [row(), row("KBK-3a", target=KBKIT, title="Locks are per clone")]
    )
    curator.apply(validation)
    new = page.read_text()
    assert 'sources:\n  - "PR #4"\n  - docs/x.md  # why\n  - "PR #101"\n' in new
    assert 'updated: "2026-12-01"' in new
    assert 'sources: ["PR #101"]\n---' in other.read_text()


def test_updated_never_moves_backwards(clone: Path) -> None:
    curator = KnowledgeCurator(clone, today="2020-01-01")
    validation = curator.validate_proposals({"proposals": [row()]}, batch())
    result = curator.apply(validation)
    assert result.changes[0].updated is None
    assert "updated: 2026-11-18" in _page(clone).read_text()


def test_crlf_pages_stay_crlf(clone: Path) -> None:
    page = _page(clone)
    page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    curator, validation = _apply(clone, [row()])
    curator.apply(validation)
    data = page.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"### WRITE-3b" in data


def test_dry_run_writes_nothing(clone: Path) -> None:
    before = _snapshot(clone)
    curator, validation = _apply(clone, [row()])
    plan = curator.plan(validation)
    assert plan.dry_run and plan.changed and plan.validators is None
    assert _snapshot(clone) == before


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fail", "hang"])
def test_failing_or_hanging_validator_rolls_back(tmp_path: Path, kind: str) -> None:
    clone = make_clone(tmp_path / "c")
    (clone / "tools/check_wiki_lint.py").write_text(validators_script(kind))
    policy = clone / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + "\nvalidator_timeout: 4\n")
    before = _snapshot(clone)
    curator, validation = _apply(clone, [row(), row("KBK-3a", target=KBKIT, title="Locks")])
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    result = info.value.result
    assert result.status == ("failed" if kind == "fail" else "timeout")
    assert result.rolled_back is True
    # kbkit's two built-in validators, the first extra command, then the broken one
    assert [r.status for r in result.runs] == ["passed", "passed", "passed", result.status]
    assert result.runs[0].command == ("kb", "check-knowledge-tree")
    if kind == "fail":
        assert "tree/link-broken boom" in result.output
    assert _snapshot(clone) == before
    assert not (state_dir(clone) / JOURNAL).exists()


def test_missing_validator_fails_before_any_write(clone: Path) -> None:
    (clone / "tools/check_wiki_lint.py").unlink()
    before = _snapshot(clone)
    curator, validation = _apply(clone, [row()])
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    assert info.value.result.status == "missing"
    assert info.value.result.rolled_back is False
    assert _snapshot(clone) == before
    assert not (state_dir(clone) / JOURNAL).exists()


@pytest.mark.slow
def test_unlaunchable_validator_rolls_back(clone: Path) -> None:
    before = _snapshot(clone)
    curator, validation = _apply(clone, [row()], python=str(clone / "no-such-python"))
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    assert info.value.result.status == "unlaunchable"
    assert info.value.result.rolled_back is True
    assert _snapshot(clone) == before


def test_stale_base_is_refused_after_locking(clone: Path) -> None:
    curator, validation = _apply(clone, [row()])
    page = _page(clone)
    page.write_bytes(page.read_bytes() + b"\n")
    before = _snapshot(clone)
    with pytest.raises(KnowledgeCurationError, match="stale"):
        curator.apply(validation)
    assert _snapshot(clone) == before


def test_real_validators_gate_a_broken_link(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c", validators="real")
    before = _snapshot(clone)
    bad = row().copy()
    bad["section"] = bad["section"].replace(
        "keep the path relative.", "keep the path [relative](no-such-page.md)."
    )
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [bad]}, batch())
    assert validation.accepted
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    assert info.value.result.status == "failed" and info.value.result.rolled_back
    assert _snapshot(clone) == before


def test_real_validators_pass_a_good_apply(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c", validators="real")
    curator, validation = _apply(clone, [row()])
    result = curator.apply(validation)
    assert result.validators is not None
    assert [r.status for r in result.validators.runs] == ["passed", "passed"]


def test_next_call_recovers_an_interrupted_apply(clone: Path) -> None:
    page = _page(clone)
    base = page.read_bytes()
    applied = base.replace(b"## 3. Links", b"## 3. Half-written")
    write_journal(
        clone, "knowledge", {WRITING: JournalPage(base, hashlib.sha256(applied).hexdigest())}
    )
    page.write_bytes(applied)
    curator = KnowledgeCurator(clone)
    curator.catalog()
    assert page.read_bytes() == base
    assert not (state_dir(clone) / JOURNAL).exists()
    assert curator.recover().journal_found is False


def test_journal_lives_in_git_dir_when_present(clone: Path) -> None:
    (clone / ".git").mkdir()
    assert state_dir(clone) == clone / ".git" / "kbkit"
    curator, validation = _apply(clone, [row()])
    curator.apply(validation)
    assert not (clone / ".kbkit-journal").exists()


def test_fallback_journal_folder_ignores_itself(clone: Path) -> None:
    folder = state_dir(clone)
    assert folder == clone / ".kbkit-journal"
    # kbkit.infra.state_folder's ignore file: a comment naming what the folder holds, then `*`.
    lines = (folder / ".gitignore").read_text().splitlines()
    assert lines[-1] == "*" and all(line.startswith("#") for line in lines[:-1])


@pytest.mark.slow
def test_results_round_trip_through_to_dict(clone: Path) -> None:
    import json

    from kbkit.curator import Catalog, KnowledgeApplyResult

    curator, validation = _apply(clone, [row(), row("KBK-3a", target=KBKIT, title="Locks")])
    catalog = curator.catalog()
    assert Catalog.from_dict(json.loads(json.dumps(catalog.to_dict()))) == catalog
    for result in (curator.plan(validation), curator.apply(validation)):
        data = json.loads(json.dumps(result.to_dict()))
        assert KnowledgeApplyResult.from_dict(data) == result
        assert str(clone) not in json.dumps(data)


@pytest.mark.slow
def test_threads_share_the_clone_lock(clone: Path) -> None:
    import threading

    curator = KnowledgeCurator(clone, today="2026-12-01")
    validations = [
        curator.validate_proposals(
            {"proposals": [row(f"WRITE-3{c}", title=f"Thread {c}")]}, batch()
        )
        for c in "bcdef"
    ]
    outcomes: list[str] = []

    def work(validation) -> None:  # type: ignore[no-untyped-def]
        try:
            KnowledgeCurator(clone, today="2026-12-01").apply(validation)
            outcomes.append("applied")
        except KnowledgeCurationError as exc:
            outcomes.append("stale" if "stale" in str(exc) else str(exc))

    threads = [threading.Thread(target=work, args=(v,)) for v in validations]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["applied"] + ["stale"] * 4
    assert _page(clone).read_text().count("### WRITE-3") == 2


def test_a_new_group_opens_at_a_group_boundary(clone: Path) -> None:
    curator, validation = _apply(
        clone,
        [
            row("WRITE-4a", title="Groups come from reviews", group="4. Review hygiene"),
            row("WRITE-4b", title="Second of the new group", after="4. Review hygiene"),
            row("WRITE-2c", title="Safe text again", after="WRITE-2b", group="2b. Extra"),
        ],
    )
    curator.apply(validation)
    text = _page(clone).read_text()
    assert "\n## 4. Review hygiene\n\n### WRITE-4a — Groups come from reviews\n" in text
    assert text.index("### WRITE-4a") < text.index("### WRITE-4b") < text.index("Related:")
    assert text.index("### WRITE-2b") < text.index("## 2b. Extra") < text.index("## 3. Links")


@pytest.mark.parametrize(
    ("group", "after", "message"),
    [
        ("1. Page shape", None, "exists"),
        ("Mid group", "WRITE-1a", "opens after a group"),
        ("Bad\u200bname", None, "plain text"),
    ],
)
def test_bad_new_groups_are_refused(clone: Path, group: str, after: str, message: str) -> None:
    curator = KnowledgeCurator(clone)
    r = row("WRITE-4a", title="A rule", group=group, after=after)
    rejected = curator.validate_proposals({"proposals": [r]}, batch()).rejected
    assert rejected[0].reason == "group" and message in rejected[0].message
