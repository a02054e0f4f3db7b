"""Unit tests of the wiki-lint validator (the example trees are in tests/cases/wiki-lint)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from tests.conftest import corpus_or_skip

from kbkit.__main__ import main
from kbkit.checks import wiki_lint
from kbkit.checks.rules import family
from kbkit.checks.rules.lint.fields import parse_date
from kbkit.checks.runner import run_validators
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy, builtin_policy, policy_from_file
from kbkit.tree.model import load_tree
from kbkit.tree.rules import rule_ids
from kbkit.tree.taxonomy import load_taxonomy

DEFAULT = builtin_policy("default")
TODAY = date(2026, 11, 30)


def _page(text: str, path: str = "knowledge/general/x.md"):  # type: ignore[no-untyped-def]
    return parse_page(path, text.encode())


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _policy(tmp_path: Path, text: str) -> Policy:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return policy_from_file(path)


GOOD = (
    '---\ntitle: "G"\ncreated: 2026-01-01\nupdated: 2026-11-01\ntype: guide\ntags: [a]\n---\n# G\n'
)


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("general/x.md", True),
        ("general/guides/x.md", True),
        ("general/_index.md", True),
        ("general/incidents/2026-01-01-x.md", False),
        ("repos/r/topic/history/x.md", False),
        ("general/results.md", True),  # a file name is not an evidence folder
        ("skills/x.md", False),
        ("general.md", False),
    ],
)
def test_scope_is_roots_minus_evidence(rel: str, expected: bool) -> None:
    assert wiki_lint.in_scope(rel, DEFAULT) is expected


def test_lint_exclude_is_a_path_prefix(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "lint_exclude: [repos/skip/]\n")
    assert not wiki_lint.in_scope("repos/skip/x.md", policy)
    assert not wiki_lint.in_scope("repos/skip/deep/x.md", policy)
    assert wiki_lint.in_scope("repos/skipped/x.md", policy)


def _lint_scope_oracle(rel: str, policy: Policy) -> bool:
    """The scope as the contract spells it, path by path (in_scope remembers folders)."""
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] not in policy.data["roots"]:
        return False
    if set(parts[:-1]) & set(policy.data["evidence_dirs"]):
        return False
    for prefix in policy.data["lint_exclude"]:
        cut = str(prefix).strip("/")
        if rel == cut or rel.startswith(cut + "/"):
            return False
    return True


def _tree_scope_oracle(rel: str, policy: Policy) -> str | None:
    parts = rel.split("/")
    if len(parts) > 1 and parts[0] in policy.data["roots"]:
        return "root"
    excluded = set(map(str, policy.data["extra_scan_exclude"]))
    if not policy.data["extra_scan"] or set(parts[:-1]) & excluded:
        return None
    return "extra"


@pytest.mark.parametrize(
    "overrides",
    [
        "",
        "lint_exclude: [repos/skip/, general/b.md, general/a/b, /]\n",
        "lint_exclude: [general]\nevidence_dirs: [b, history]\nextra_scan: false\n",
        "extra_scan_exclude: [a, skills]\nroots: [general, skills]\n",
    ],
)
def test_the_remembered_scopes_equal_the_contract_on_every_path(
    tmp_path: Path, overrides: str
) -> None:
    from itertools import product

    from kbkit.checks.knowledge_tree import page_scope

    policy = _policy(tmp_path, overrides) if overrides else DEFAULT
    names = ["general", "repos", "skip", "skipped", "a", "b", "b.md", "history", "skills"]
    rels = ["x.md", "general.md", "general/a/b.md"]
    for depth in (1, 2, 3):
        for folders in product(names, repeat=depth):
            rels.extend(["/".join(folders) + "/x.md", "/".join(folders) + "/b.md"])
    for _ in range(2):  # in and out of path order: the last folder is remembered
        for rel in rels:
            assert wiki_lint.in_scope(rel, policy) is _lint_scope_oracle(rel, policy), rel
            assert page_scope(rel, policy) == _tree_scope_oracle(rel, policy), rel


def test_page_findings_are_pure_and_deterministic() -> None:
    page = _page("---\ntitle: 3\ncreated: 2026-02-30\ntype: howto\ntags: [{a: 1}]\n---\n")
    first = wiki_lint.page_findings("general/x.md", page, DEFAULT)
    assert first == wiki_lint.page_findings("general/x.md", page, DEFAULT)
    assert sorted((f.line, f.rule_id) for f in first) == [
        (1, "lint/field-missing"),  # updated
        (2, "lint/field-missing"),  # title is not text
        (3, "lint/date-invalid"),
        (4, "lint/type-invalid"),
        (5, "lint/tag-unknown"),  # a mapping is not a tag
    ]
    assert wiki_lint.page_findings("general/incidents/x.md", page, DEFAULT) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-02-28", date(2026, 2, 28)),
        ("2024-02-29", date(2024, 2, 29)),
        ("2026-02-29", None),
        ("2026-13-45", None),
        ("2026-1-5", None),
        ("2026-01-01 10:00:00", None),
        ("2026-01-01T10:00:00", None),
        (20260101, None),
        (None, None),
        (["2026-01-01"], None),
    ],
)
def test_parse_date_accepts_only_real_calendar_dates(value: object, expected: date | None) -> None:
    assert parse_date(value) == expected


def test_impossible_dates_quoted_or_not_are_findings_never_crashes() -> None:
    for written in ("2026-13-45", '"2026-13-45"', "'2026-13-45'"):
        text = GOOD.replace("updated: 2026-11-01", f"updated: {written}")
        findings = wiki_lint.page_findings("general/x.md", _page(text), DEFAULT)
        assert [(f.line, f.rule_id) for f in findings] == [(4, "lint/date-invalid")]


def test_yaml_error_line_is_the_file_line() -> None:
    text = '---\ntitle: "T"\ncreated: 2026-01-01\ntags: [a, "b]\n---\n'
    (finding,) = wiki_lint.page_findings("general/x.md", _page(text), DEFAULT)
    assert finding.rule_id == "lint/frontmatter-invalid"
    assert finding.line in (4, 5)


def _tree_run(repo: Path, policy: Policy, today: date = TODAY) -> list[tuple[str, int, str]]:
    findings, _ = run_validators(repo, policy, ("lint",), today, use_cache=False)
    return [(f.path, f.line, f.rule_id) for f in findings]


def test_stale_is_measured_against_the_given_day(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _write(
        repo,
        {
            "knowledge/policy.yaml": "taxonomy:\n  tags: [a]\n",
            "knowledge/general/_index.md": GOOD.replace("guide", "index") + "[x](x.md)\n",
            "knowledge/general/x.md": GOOD,
        },
    )
    policy = policy_from_file(repo / "knowledge/policy.yaml")
    assert _tree_run(repo, policy, date(2027, 11, 1)) == []  # exactly 365 days
    stale = ("knowledge/general/x.md", 4, "lint/stale")
    assert stale in _tree_run(repo, policy, date(2027, 11, 2))


def test_missing_taxonomy_is_reported_once_not_per_tag(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _write(
        repo,
        {
            "knowledge/general/_index.md": GOOD.replace("guide", "index") + "[x](x.md)\n",
            "knowledge/general/x.md": GOOD.replace("[a]", "[a, b, c]"),
        },
    )
    policy = _policy(tmp_path, "taxonomy:\n  file: doc/SCHEMA.md\n  section: Tags\n")
    assert _tree_run(repo, policy) == [("doc/SCHEMA.md", 0, "lint/taxonomy-missing")]


def test_taxonomy_section_ends_at_the_next_heading_of_its_level(tmp_path: Path) -> None:
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc/S.md").write_text(
        "# S\n\n## Tags\n\n- `a`, `b`\n\n### Sub\n\n`c`\n\n```\n`in-code`\n```\n\n## Next\n\n`d`\n"
    )
    policy = _policy(tmp_path, "taxonomy:\n  file: doc/S.md\n  section: Tags\n")
    taxonomy = load_taxonomy(tmp_path, policy)
    assert taxonomy.problem is None
    assert taxonomy.tags == {"a", "b", "c"}


def test_orphans_use_the_shared_link_parser(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    index = GOOD.replace("guide", "index")
    _write(
        repo,
        {
            "knowledge/policy.yaml": "taxonomy:\n  tags: [a]\n",
            "knowledge/general/_index.md": index
            + '[t](titled.md "Title")\n\n[r][ref]\n\n`[c](code.md)`\n\n[ref]: <ref page.md>\n',
            "knowledge/general/titled.md": GOOD,
            "knowledge/general/ref page.md": GOOD,
            "knowledge/general/code.md": GOOD,
        },
    )
    policy = policy_from_file(repo / "knowledge/policy.yaml")
    assert _tree_run(repo, policy) == [("knowledge/general/code.md", 0, "lint/orphan")]


def test_rule_ids_on_non_rule_pages_are_not_duplicates(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    section = (
        "\n### REV-1a — x\n\n- Trigger: a\n- Must: b\n- Must not: c\n- Acceptance: d ^[PR #1]\n"
    )
    rule = GOOD.replace("type: guide", "type: rule") + section
    _write(
        repo,
        {
            "knowledge/policy.yaml": "taxonomy:\n  tags: [a]\n",
            "knowledge/general/_index.md": GOOD.replace("guide", "index")
            + "[r](rules.md) [g](guide.md) [s](sub/_index.md)\n",
            "knowledge/general/rules.md": rule,
            "knowledge/general/guide.md": GOOD + "\n### REV-1a — explained\n",
            "knowledge/general/sub/_index.md": GOOD.replace("guide", "index") + "[r](rules.md)\n",
            "knowledge/general/sub/rules.md": rule,
        },
    )
    policy = policy_from_file(repo / "knowledge/policy.yaml")
    assert _tree_run(repo, policy) == [
        ("knowledge/general/sub/rules.md", 10, "lint/rule-id-duplicate")
    ]


def test_page_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    _write(
        repo,
        {
            "knowledge/policy.yaml": "taxonomy:\n  tags: [a]\n",
            "knowledge/general/_index.md": GOOD.replace("guide", "index") + "[x](x.md)\n",
            "knowledge/general/x.md": GOOD,
            "knowledge/general/incidents/_index.md": "# I\n",
            "knowledge/AGENTS.md": "# not under a root\n",
        },
    )
    policy = policy_from_file(repo / "knowledge/policy.yaml")
    assert run_validators(repo, policy, ("lint",), TODAY)[1] == 2  # linted pages
    assert run_validators(repo, policy, ("tree", "lint"), TODAY)[1] == 3  # pages under the roots
    assert main(["check-wiki-lint", "--repo", str(repo), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["pages"] == 2


@pytest.mark.corpus
def test_corpus_lints_clean(capsys: pytest.CaptureFixture[str]) -> None:
    """The reference lint reports 0 errors and 0 warnings over 267 pages on this snapshot."""
    repo = corpus_or_skip("infermatrix-knowledge")
    argv = ["check-wiki-lint", "--repo", str(repo), "--policy", "infermatrix", "--no-cache"]
    code = main([*argv, "--today", "2026-11-30", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == []
    assert report["summary"] == {"errors": 0, "warnings": 0, "pages": 267}
    assert code == 0


@pytest.mark.corpus
def test_corpus_taxonomy_and_shared_rule_ids() -> None:
    repo = corpus_or_skip("infermatrix-knowledge")
    policy = builtin_policy("infermatrix")
    assert len(load_taxonomy(repo, policy).tags) == 34
    tree = load_tree(repo, policy)
    components = "repos/vllm-omni/components/configuration"
    guide = rule_ids(tree.pages[f"{components}/deployment-memory-budget.md"], policy)
    rules = rule_ids(tree.pages[f"{components}/rules.md"], policy)
    shared = {"CONF-1a", "CONF-2a", "CONF-3a", "CONF-4a", "CONF-5a"}
    assert shared <= {r.id for r in guide} & {r.id for r in rules}
    assert tree.pages[f"{components}/deployment-memory-budget.md"].meta["type"] == "guide"


def test_every_lint_and_kb_rule_has_a_wiki_lint_bad_case() -> None:
    """The lint half of test_cases.py's coverage check, independent of the tree validator."""
    cases = Path(__file__).resolve().parents[1] / "cases" / "wiki-lint" / "bad"
    covered = {
        line.rsplit(" ", 1)[-1]
        for expected in cases.glob("*/expected.txt")
        for line in expected.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    wanted = set(family("lint/")) | {
        "kb/suppression-unused",
        "kb/suppression-invalid",
        "kb/unreadable",
    }
    assert sorted(wanted - covered) == []


def test_an_invalid_rule_id_pattern_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    section = (
        "\n### REV-1a — x\n\n- Trigger: a\n- Must: b\n- Must not: c\n- Acceptance: d ^[PR #1]\n"
    )
    rule = GOOD.replace("type: guide", "type: rule") + section
    _write(
        repo,
        {
            "knowledge/policy.yaml": "taxonomy:\n  tags: [a]\nrules:\n  id_pattern: '[A-Z'\n",
            "knowledge/general/_index.md": GOOD.replace("guide", "index") + "[r](rules.md)\n",
            "knowledge/general/rules.md": rule,
        },
    )
    assert main(["check-wiki-lint", "--repo", str(repo)]) == 2
    assert "rules.id_pattern" in capsys.readouterr().err


def test_an_untagged_tree_needs_no_taxonomy_until_a_page_has_a_tag(tmp_path: Path) -> None:
    """No taxonomy and no tag anywhere: nothing to check, so nothing to report. The first
    page with a tag needs the list of allowed tags, and the cause is reported once."""
    repo = tmp_path / "repo"
    _write(
        repo,
        {
            "knowledge/general/_index.md": "# General\n\n- [a](a.md)\n",
            "knowledge/general/a.md": '---\ntitle: "A"\n---\n# A\n',
        },
    )
    policy = _policy(tmp_path, "frontmatter:\n  required: [title]\n")
    assert policy.data["taxonomy"]["tags"] == [] and not policy.data["taxonomy"]["file"]
    found, _ = run_validators(repo, policy, ("lint",), TODAY, use_cache=False)
    assert "lint/taxonomy-missing" not in {f.rule_id for f in found}
    _write(repo, {"knowledge/general/a.md": '---\ntitle: "A"\ntags: [ops]\n---\n# A\n'})
    found, _ = run_validators(repo, policy, ("lint",), TODAY, use_cache=False)
    assert [f.rule_id for f in found if "taxonomy" in f.rule_id or "tag" in f.rule_id] == [
        "lint/taxonomy-missing"
    ]
