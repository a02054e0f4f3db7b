"""Fuzzing: no input crashes the page parser, the per-page lint or the rule-ID extraction."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.checks import wiki_lint
from kbkit.checks.rules import family
from kbkit.checks.runner import run_validators
from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy, policy_from_file
from kbkit.tree.rules import rule_ids

POLICIES = (builtin_policy("default"), builtin_policy("infermatrix"))

# Pieces that steer the parsers into their interesting states: frontmatter markers, fences of
# both markers and several lengths, links with titles and <...>, reference definitions, YAML
# punctuation, dates, rule-ID shapes, HTML comments, CR/LF and a BOM.
FRAGMENTS = (
    "---",
    "...",
    "\n",
    "\r\n",
    "\r",
    "\ufeff",
    "```",
    "````",
    "~~~",
    "    ",
    "`",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "![",
    "](x.md",
    ' "t")',
    "[r]: ",
    "#",
    "## ",
    "### REV-1a — ",
    "- **REV-2b — t.** ",
    "- AFD-1a：",
    "title: ",
    "tags: [",
    "{a: 1}",
    "created: 2026-13-45",
    'updated: "2026-02-30"',
    "on: ",
    ": ",
    "- ",
    "&a ",
    "*a",
    "!!python/object ",
    "'",
    '"',
    "|",
    "<!-- kb-disable-next-line lint/orphan: r -->",
    "\\",
    "\t",
    "中文",
)

markdownish = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map(
    "".join
)


def _exercise(data: bytes) -> None:
    page = parse_page("knowledge/general/x.md", data)
    assert page.path == "knowledge/general/x.md"
    assert page.size == len(data)
    for policy in POLICIES:
        for finding in wiki_lint.page_findings("general/x.md", page, policy):
            assert finding.line >= 0
            assert finding.rule_id in family("lint/")
        for rule in rule_ids(page, policy):
            assert 1 <= rule.line <= max(page.line_count, 1)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    _exercise(data)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish)
def test_markdownish_text_never_crashes(text: str) -> None:
    _exercise(text.encode("utf-8", "surrogatepass"))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=markdownish, front=markdownish)
def test_frontmatter_shaped_text_never_crashes(body: str, front: str) -> None:
    _exercise(f"---\n{front}\n---\n{body}".encode("utf-8", "surrogatepass"))


yaml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from(["2026-01-01", "2026-13-45", "low", "rule", "a", ""])
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = ("title", "created", "updated", "type", "tags", "confidence", "contested")


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), yaml_values, max_size=len(FIELDS)))
def test_any_field_values_give_findings_not_crashes(meta: dict[str, object]) -> None:
    """Whole-tree lint (taxonomy, stale, orphans, rule IDs) on arbitrary frontmatter values."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        (repo / "knowledge/general").mkdir(parents=True)
        (repo / "knowledge/policy.yaml").write_text("taxonomy:\n  tags: [a]\n")
        front = yaml.safe_dump(meta, allow_unicode=True)
        page = f"---\n{front}---\n### REV-1a — x\n"
        (repo / "knowledge/general/rules.md").write_text(page, encoding="utf-8")
        (repo / "knowledge/general/again.md").write_text(page, encoding="utf-8")
        policy = policy_from_file(repo / "knowledge/policy.yaml")
        findings, _ = run_validators(repo, policy, ("lint",), date(2026, 11, 30), use_cache=False)
    assert all(f.rule_id in family("lint/") for f in findings)
    assert any(f.rule_id == "lint/orphan" for f in findings)
