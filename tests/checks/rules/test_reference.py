"""What is written from the rule declarations stays equal to them: the policy schema's list
of rule ids and docs/reference/rules.md (`make generate` rewrites both)."""

from __future__ import annotations

from pathlib import Path

from kbkit.checks.rules import all_rules
from kbkit.checks.rules.reference import (
    POLICY_SCHEMA,
    REFERENCE_PAGE,
    policy_schema_text,
    reference_page,
    sarif_rules,
)
from kbkit.policy.schema import policy_schema

ROOT = Path(__file__).resolve().parents[3]
FIX = "run `make generate` (python -m kbkit.checks.rules.reference --write)"


def test_the_policy_schema_lists_every_declared_rule_id() -> None:
    current = POLICY_SCHEMA.read_text(encoding="utf-8")
    assert current == policy_schema_text(current), FIX
    assert policy_schema()["$defs"]["rule_ids"]["enum"] == sorted(all_rules())


def test_the_rule_reference_page_is_written_from_the_declarations() -> None:
    assert (ROOT / REFERENCE_PAGE).read_text(encoding="utf-8") == reference_page(), FIX


def test_the_reference_page_has_every_rule_with_its_example() -> None:
    page = reference_page()
    for rule in all_rules().values():
        assert f"\n### {rule.id}\n" in page
        assert rule.example.splitlines()[0] in page


def test_the_schema_text_is_rewritten_in_place_not_reformatted() -> None:
    current = POLICY_SCHEMA.read_text(encoding="utf-8")
    stale = current.replace('"tree/link-broken", ', "")
    assert stale != current
    assert policy_schema_text(stale) == current


def test_sarif_rules_carry_a_full_description_and_help() -> None:
    rules = sarif_rules()
    assert set(rules) == set(all_rules())
    broken = rules["tree/link-broken"]
    assert broken.full.startswith("a relative link points to nothing: a broken link is")
    assert "kb-disable-next-line tree/link-broken" in broken.help
