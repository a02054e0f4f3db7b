"""Bad input (issue §7) and the real corpus: a finding or a clear error, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path

import pytest
from tests.conftest import corpus_or_skip

from kbkit.__main__ import main
from kbkit.checks.runner import run_validators
from kbkit.policy.model import builtin_policy, policy_from_file

DEFAULT = builtin_policy("default")
TODAY = date(2026, 11, 30)


def valid_tree(repo: Path) -> None:
    files = {
        "knowledge/repos/_index.md": "# Repos\n",
        "knowledge/general/_index.md": "- [page](page.md)\n- [x](x.md)\n",
        "knowledge/general/page.md": "# Page\n\nssh 10.1.2.3\n",
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)


def tree_findings(repo: Path) -> list[tuple[str, str]]:
    findings, _ = run_validators(repo, DEFAULT, ("tree",), TODAY)
    return [(f.path, f.rule_id) for f in findings]


def test_symlink_loop_is_reported_and_the_run_continues(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/x.md").symlink_to("x.md")
    found = tree_findings(tmp_path)
    assert ("knowledge/general/x.md", "kb/unreadable") in found
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_looping_folder_symlink_is_not_followed(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/loop").symlink_to("..", target_is_directory=True)
    found = tree_findings(tmp_path)
    assert ("knowledge/general/loop", "kb/symlink-folder") in found
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_folder_named_like_a_page(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/x.md").mkdir()
    found = tree_findings(tmp_path)
    assert ("knowledge/general/x.md", "kb/unreadable") in found
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_a_fifo_page_is_one_finding_and_does_not_hang(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    os.mkfifo(tmp_path / "knowledge/general/x.md")
    found = tree_findings(tmp_path)  # opening the FIFO for reading would block forever
    assert [r for p, r in found if p == "knowledge/general/x.md"] == ["kb/unreadable"]
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_a_link_to_dev_zero_is_one_finding_and_is_not_read(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/x.md").symlink_to("/dev/zero")
    found = tree_findings(tmp_path)
    assert [r for p, r in found if p == "knowledge/general/x.md"] == ["kb/unreadable"]
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_a_link_out_of_the_tree_is_reported_and_its_content_never_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid_tree(tmp_path)
    (tmp_path / "passwd").write_text("root:x:0:0:SECRET-ROOT-LINE 10.7.7.7 [gone](gone.md)\n")
    (tmp_path / "knowledge/general/x.md").symlink_to(tmp_path / "passwd")
    (tmp_path / "knowledge/general/inside.md").symlink_to("page.md")
    (tmp_path / "knowledge/general/_index.md").write_text(
        "- [page](page.md)\n- [x](x.md)\n- [inside](inside.md)\n"
    )
    code = main(["check", "--repo", str(tmp_path), "--policy", "default", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 1
    assert "SECRET" not in out and "10.7.7.7" not in out and "gone.md" not in out
    report = json.loads(out)
    on_x = [f for f in report["findings"] if f["path"] == "knowledge/general/x.md"]
    assert [f["rule"] for f in on_x] == ["kb/unreadable"]
    assert "leaves the knowledge root" in on_x[0]["message"]
    # a symlink inside the tree keeps working: the page behind it is checked
    found = tree_findings(tmp_path)
    assert ("knowledge/general/inside.md", "tree/secret-ip") in found


def test_a_page_over_the_read_limit_is_reported_from_its_size(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/x.md").write_bytes(b"10.1.2.3 \xff\n" * 200_000)
    found, _ = run_validators(tmp_path, DEFAULT, ("tree",), TODAY)
    on_x = [f for f in found if f.path == "knowledge/general/x.md"]
    assert [f.rule_id for f in on_x] == ["kb/unreadable"]  # not read: no IP, no UTF-8 error
    assert on_x[0].message.startswith("2200000 bytes, over the read limit of 1048576 bytes")


def test_a_fifo_entry_page_is_a_finding_not_a_hang(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    os.mkfifo(tmp_path / "CONTRIBUTING.md")
    (tmp_path / "policy.yaml").write_text("entry_page: CONTRIBUTING.md\n")
    policy = policy_from_file(tmp_path / "policy.yaml")
    found, _ = run_validators(tmp_path, policy, ("tree",), TODAY)
    entry = [f for f in found if f.path == "CONTRIBUTING.md"]
    assert [f.rule_id for f in entry] == ["tree/entry-too-long"]
    assert "a FIFO" in entry[0].message


def test_a_fifo_taxonomy_or_manifest_is_a_finding_not_a_hang(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    os.mkfifo(tmp_path / "SCHEMA.md")
    (tmp_path / "adapters" / "x").mkdir(parents=True)
    os.mkfifo(tmp_path / "adapters" / "x" / "manifest.yaml")
    (tmp_path / "adapters" / "y").mkdir()
    (tmp_path / "adapters" / "y" / "manifest.yaml").symlink_to("/etc/passwd")
    (tmp_path / "policy.yaml").write_text("taxonomy:\n  file: SCHEMA.md\n  section: Tags\n")
    policy = policy_from_file(tmp_path / "policy.yaml")
    found, _ = run_validators(tmp_path, policy, ("lint",), TODAY)
    by_path = {(f.path, f.rule_id): f.message for f in found}
    assert (
        "SCHEMA.md is a FIFO, not a regular file" in by_path[("SCHEMA.md", "lint/taxonomy-missing")]
    )
    assert "a FIFO" in by_path[("adapters/x/manifest.yaml", "lint/adapter-yaml")]
    assert "leaves the repository" in by_path[("adapters/y/manifest.yaml", "lint/adapter-yaml")]
    assert "root:" not in repr(found)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod-000 file")
def test_unreadable_page(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    page = tmp_path / "knowledge/general/x.md"
    page.write_text("# x\n")
    page.chmod(0)
    try:
        found = tree_findings(tmp_path)
    finally:
        page.chmod(0o644)
    assert ("knowledge/general/x.md", "kb/unreadable") in found
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b"# Caf\xe9\n", "kb/unreadable"),
        (b"\x7fELF\x02\x01\x01\x00\x00", "kb/unreadable"),
        (b"", None),
        (b"\xef\xbb\xbf# BOM\r\n\r\n[page](page.md)\r\n", None),
        (b"---\ntitle: [unclosed\n---\n# x\n", None),  # frontmatter is lint's business
    ],
    ids=["latin1", "binary", "empty", "bom-crlf", "bad-frontmatter"],
)
def test_odd_pages(tmp_path: Path, data: bytes, rule: str | None) -> None:
    valid_tree(tmp_path)
    (tmp_path / "knowledge/general/x.md").write_bytes(data)
    found = tree_findings(tmp_path)
    on_x = [r for path, r in found if path == "knowledge/general/x.md"]
    assert on_x == ([rule] if rule else [])
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


def test_corrupt_git_index_is_a_finding(tmp_path: Path) -> None:
    valid_tree(tmp_path)
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\0\0\0\x02\0\0\0\x09garbage")
    found = tree_findings(tmp_path)
    assert ("knowledge/local", "tree/local-tracked") in found
    assert ("knowledge/general/page.md", "tree/secret-ip") in found


@pytest.mark.parametrize(
    ("policy_text", "needle"),
    [
        (None, "no such file"),
        ("limits: [unclosed\n", "invalid policy YAML"),
        ("- a list\n", "must be a YAML mapping"),
        ("danger:\n  words: nope\n", "must be a list"),
        ("secrets:\n  bogus: 1\n", "unknown policy key"),
        ("incidents:\n  name_pattern: '[unclosed'\n", "incidents.name_pattern"),
        ("secrets:\n  allowed_ip_networks: [10.0.0.0/33]\n", "secrets.allowed_ip_networks"),
    ],
    ids=[
        "missing",
        "malformed",
        "not-a-mapping",
        "wrong-type",
        "unknown-key",
        "bad-regex",
        "bad-network",
    ],
)
def test_bad_policy_is_a_clear_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy_text: str | None, needle: str
) -> None:
    valid_tree(tmp_path)
    policy = tmp_path / "policy.yaml"
    if policy_text is not None:
        policy.write_text(policy_text)
    code = main(["check-knowledge-tree", "--repo", str(tmp_path), "--policy", str(policy)])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert "Traceback" not in err


@pytest.mark.corpus
def test_corpus_reports_exactly_the_reference_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = corpus_or_skip("infermatrix-knowledge")
    repo = tmp_path / "corpus"  # a copy: the shared corpus is read-only
    shutil.copytree(corpus, repo)
    argv = ["check-knowledge-tree", "--repo", str(repo), "--policy", "infermatrix"]
    shutil.rmtree(repo / ".kbkit-cache", ignore_errors=True)
    code = main([*argv, "--format", "json", "--today", "2026-11-30"])
    report = json.loads(capsys.readouterr().out)
    assert main([*argv, "--format", "json", "--today", "2026-11-30"]) == code  # warm cache
    assert json.loads(capsys.readouterr().out) == report
    assert code == 0
    assert report["summary"]["errors"] == 0
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [
        ("knowledge/general/review/guides/review-execution-contract.md", "tree/page-near-limit"),
        ("knowledge/repos/vllm-omni/models/hunyuan-image3/rules.md", "tree/page-near-limit"),
    ]


@pytest.mark.corpus
def test_kb_check_on_the_corpus_reports_what_both_reference_validators_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both validators in one process: 0 errors and the 2 near-limit warnings (README of the
    corpus); run in place without a cache, so the read-only corpus is never written."""
    repo = corpus_or_skip("infermatrix-knowledge")
    argv = ["check", "--repo", str(repo), "--policy", "infermatrix", "--no-cache"]
    code = main([*argv, "--format", "json", "--today", "2026-11-30"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["summary"] == {"errors": 0, "warnings": 2, "pages": 426}
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [
        ("tree/page-near-limit", "warning"),
        ("tree/page-near-limit", "warning"),
    ]
