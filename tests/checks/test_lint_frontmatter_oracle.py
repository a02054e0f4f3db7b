"""The built-in frontmatter rules: the hand-written checks (fast path) against their JSON
Schema (`kbkit.policy.frontmatter_schema`) run by jsonschema with the format checker on (oracle).

Both must flag the same keys of the same pages: over every case folder, kbkit's own tree, a
synthetic tree, fuzzed frontmatter and, when present, ../shared/corpus. Also: the shipped
schemas are the generated ones, and a team's schema can `$ref` them.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from benchmarks.gen_tree import generate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker
from tests.conftest import corpus_or_skip

from kbkit.checks import wiki_lint
from kbkit.checks.registry import analyze_page
from kbkit.checks.rules.lint.fields import field_findings
from kbkit.checks.rules.lint.schema import error_key, reported_keys
from kbkit.checks.runner import validator_run
from kbkit.checks.scopes import scopes
from kbkit.infra.errors import UsageError
from kbkit.pages.page import parse_page
from kbkit.policy.frontmatter_schema import SHIPPED, frontmatter_schema, shipped
from kbkit.policy.model import PROFILES, Policy, builtin_policy, load_policy, policy_from_file
from kbkit.tree.model import LoadOptions, load_tree
from kbkit.tree.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "cases"
TODAY = date(2026, 11, 30)
Verdicts = dict[str, set[str]]  # root-relative page -> the frontmatter keys found wrong


def _schema_keys(schema: dict[str, Any], meta: dict[str, Any]) -> set[str]:
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    return {str(error_key(error)) for error in validator.iter_errors(meta)}


def verdicts(repo: Path, policy: Policy) -> tuple[Verdicts, Verdicts]:
    """(fast path, oracle) verdicts of every page lint checks in the tree at `repo`."""
    options = LoadOptions(analyze=analyze_page, keep_pages=True)
    tree = load_tree(repo, policy, options)
    run = validator_run(tree, ("lint",), TODAY)  # before suppressions and severities
    found = [*run.cross, *(f for local in run.local.values() for f in local)]
    taxonomy = load_taxonomy(repo, policy)
    tags = taxonomy.tags if taxonomy.problem is None else None
    fast: Verdicts = {}
    oracle: Verdicts = {}
    for rel in wiki_lint.scope(tree):
        page = tree.pages[rel]
        front = page.frontmatter
        if page.error is not None or front.data is None:
            continue  # not a mapping: lint/frontmatter-missing or -invalid, no key verdicts
        mine = [f for f in found if f.path == tree.repo_path(rel)]
        fast[rel] = reported_keys(page, mine)
        required = scopes(policy).required_fields(rel)
        schema = frontmatter_schema(policy.data["frontmatter"], required, tags)
        oracle[rel] = _schema_keys(schema, front.data)
    return fast, oracle


def _agree(repo: Path, policy: Policy) -> int:
    fast, oracle = verdicts(repo, policy)
    differ = {rel: (fast[rel], oracle[rel]) for rel in fast if fast[rel] != oracle[rel]}
    assert differ == {}, "page: (hand-written, jsonschema)"
    return sum(1 for keys in fast.values() if keys)


def _case_repos() -> list[Path]:
    return sorted(p for p in CASES.glob("*/*/*/repo") if p.is_dir())


@pytest.mark.parametrize("repo", _case_repos(), ids=lambda p: str(p.parent.relative_to(CASES)))
def test_case_folders_agree(repo: Path, tmp_path: Path) -> None:
    case = repo.parent
    config = (
        yaml.safe_load((case / "case.yaml").read_text()) if (case / "case.yaml").exists() else {}
    )
    args = (config or {}).get("args", [])
    spec = args[args.index("--policy") + 1] if "--policy" in args else None
    copy = tmp_path / "repo"
    shutil.copytree(repo, copy, symlinks=True)
    try:
        policy = load_policy(copy, spec)
    except UsageError:
        pytest.skip("the case's policy is refused (a policy case, no pages to compare)")
    _agree(copy, policy)


def test_the_verdicts_are_not_empty_on_the_bad_cases(tmp_path: Path) -> None:
    """The comparison sees real problems: each field case is flagged by both, on its key."""
    expected = {
        "field-missing": "title",
        "type-invalid": "type",
        "date-invalid": "created",
        "tags-empty": "tags",
        "confidence-invalid": "confidence",
        "tag-unknown": "tags",
    }
    for name, key in expected.items():
        copy = tmp_path / name
        shutil.copytree(CASES / "wiki-lint" / "bad" / name / "repo", copy, symlinks=True)
        fast, oracle = verdicts(copy, load_policy(copy))
        assert any(key in keys for keys in fast.values()), name
        assert fast == oracle, name


def test_kbkits_own_tree_agrees() -> None:
    policy = load_policy(ROOT)
    fast, oracle = verdicts(ROOT, policy)
    assert len(fast) > 20
    assert fast == oracle


def test_a_synthetic_tree_agrees(tmp_path: Path) -> None:
    generate(tmp_path, 300)
    fast, oracle = verdicts(tmp_path, load_policy(tmp_path))
    assert len(fast) > 200
    assert fast == oracle


@pytest.mark.corpus
def test_the_corpus_agrees(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(corpus_or_skip("infermatrix-knowledge"), repo, symlinks=True)
    fast, oracle = verdicts(repo, builtin_policy("infermatrix"))
    assert len(fast) > 200
    assert fast == oracle


REAL_TREES = sorted((ROOT / "tests" / "real-trees").glob("*/policy.yaml"))


@pytest.mark.parametrize("path", REAL_TREES, ids=lambda p: p.parent.name)
def test_an_exported_real_tree_agrees(path: Path) -> None:
    """With KBKIT_REAL_TREES=DIR (as tests/checks/test_real_tree_policies.py)."""
    exports = os.environ.get("KBKIT_REAL_TREES")
    tree = Path(exports) / path.parent.name if exports else None
    if tree is None or not tree.is_dir():
        pytest.skip("set KBKIT_REAL_TREES=DIR with DIR/<tree>/ an export of the tree")
    policy = policy_from_file(path)
    fast, oracle = verdicts(tree, policy)
    if not fast:  # mdBook pages carry none (rust-lang/book)
        pytest.skip("no page of this tree has front matter: there is nothing to compare")
    assert fast == oracle
    # the default profile's frontmatter rules flag nearly every page of these trees
    data = {**policy.data, "frontmatter": builtin_policy("default").data["frontmatter"]}
    fast, oracle = verdicts(tree, Policy({**data, "overrides": []}, "default frontmatter"))
    assert sum(1 for keys in fast.values() if keys) >= 0.9 * len(fast) > 0
    assert fast == oracle


# Values that sit on the edges of the built-in rules: real and impossible dates, non-ASCII
# digits, a trailing newline, blank titles, wrong types, empty and mixed lists.
SCALARS = st.sampled_from(
    [
        "2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "２０２４-01-01", "2024-01-01\n",
        "20240101", "", " ", "\u3000", "x", "guide", "rule", "index", "Rule", "high", "low",
        "medium", "kbkit", 1, 0, 1.5, True, False, None, "2024-01-01T00:00:00",
    ]
)  # fmt: skip
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), SCALARS, max_size=2),
)
KEYS = ["title", "created", "updated", "type", "tags", "confidence", "sources", "contested"]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=len(KEYS)))
def test_fuzzed_frontmatter_agrees(meta: dict[str, Any]) -> None:
    # JSON is YAML: each value is written exactly as the fuzzer chose it
    text = "---\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in meta.items()) + "---\n# P\n"
    page = parse_page("knowledge/general/p.md", text.encode())
    assert page.frontmatter.data == meta
    policy = builtin_policy("default")
    fast = reported_keys(page, field_findings("general/p.md", page, policy))
    assert fast == _schema_keys(shipped("default"), meta)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_shipped_schemas_are_the_generated_ones(profile: str) -> None:
    """Regenerate with: .venv/bin/python -m tests.checks.test_lint_frontmatter_oracle"""
    policy = builtin_policy(profile)
    assert shipped(profile) == frontmatter_schema(policy.data["frontmatter"], profile=profile)
    Draft202012Validator.check_schema(shipped(profile))
    assert (SHIPPED / f"{profile}.schema.json").read_text().endswith("}\n")


def write_shipped() -> None:
    """Rewrite `policies/frontmatter/<profile>.schema.json` from the built-in profiles."""
    for name in PROFILES:
        schema = frontmatter_schema(builtin_policy(name).data["frontmatter"], profile=name)
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        (SHIPPED / f"{name}.schema.json").write_text(text, "utf-8")


if __name__ == "__main__":
    write_shipped()
