"""The catalog: which pages may receive rules, and what each entry tells the model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurator
from tests.curator.conftest import WRITING, make_clone

TOPIC_PAGE = """---
title: "CI rules"
created: 2026-11-01
updated: 2026-11-01
type: rule
tags: [kbkit, rules]
---

# CI rules

Only `KCI-<digit><letter>` IDs are auditable rules.

## Related

- [kbkit](_index.md)
"""


def test_catalog_entries_of_the_own_tree(clone: Path) -> None:
    catalog = KnowledgeCurator(clone).catalog()
    assert set(catalog.pages) == {
        "general/review/rules",
        "general/writing/rules",
        "repos/kbkit/rules",
        "repos/kbkit/components/curator/rules",
        "repos/kbkit/components/intake/rules",
        "repos/kbkit/components/validators/rules",
    }
    page = catalog.pages[WRITING]
    data = (clone / "knowledge" / f"{WRITING}.md").read_bytes()
    assert page.sha256 == hashlib.sha256(data).hexdigest()
    assert page.prefix == "WRITE" and page.style == "heading" and page.heading_level == 3
    assert page.separator == "—" and page.heading_marker() == "###"
    assert page.rule_ids[:3] == ("WRITE-1a", "WRITE-1b", "WRITE-1c")
    assert page.groups == ("1. Page shape", "2. Safe text", "3. Links")
    assert page.owner == "general/writing/_index"
    assert page.owner_summary.startswith("Writing knowledge pages: Owner of the house format")
    assert catalog.defined["WRITE-1a"] == (WRITING,)
    assert str(clone) not in str(catalog.to_dict())


def test_topic_pages_count_and_other_pages_do_not(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c")
    folder = clone / "knowledge" / "repos" / "kbkit"
    (folder / "rules-ci.md").write_text(TOPIC_PAGE)
    (folder / "rules-draft.md").write_text(TOPIC_PAGE.replace("type: rule", "type: guide"))
    (folder / "rules_other.md").write_text(TOPIC_PAGE)
    (clone / "knowledge" / "rules.md").write_text(TOPIC_PAGE)  # outside the roots
    catalog = KnowledgeCurator(clone).catalog()
    assert "repos/kbkit/rules-ci" in catalog.pages
    for absent in ("repos/kbkit/rules-draft", "repos/kbkit/rules_other", "rules"):
        assert absent not in catalog.pages
    empty = catalog.pages["repos/kbkit/rules-ci"]
    assert empty.style == "empty" and empty.prefix is None and empty.rule_ids == ()


def test_first_rule_of_an_empty_page_goes_before_related(tmp_path: Path) -> None:
    from tests.curator.conftest import batch, row

    clone = make_clone(tmp_path / "c")
    page = clone / "knowledge" / "repos" / "kbkit" / "rules-ci.md"
    page.write_text(TOPIC_PAGE)
    index = page.parent / "_index.md"  # registered, so kbkit's validators pass the apply
    index.write_text(index.read_text() + "\n- [CI rules](rules-ci.md)\n")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    target = "repos/kbkit/rules-ci"
    rows = [
        row("WRITE-4a", target=target, title="Borrowed prefix"),
        row("KCI-1a", target=target, title="CI runs the validators"),
    ]
    validation = curator.validate_proposals({"proposals": rows}, batch())
    assert [r.reason for r in validation.rejected] == ["rule-id-prefix"]
    curator.apply(validation)
    text = page.read_text()
    assert text.index("### KCI-1a — CI runs the validators") < text.index("## Related")
    assert text.index("Only `KCI-<digit><letter>`") < text.index("### KCI-1a")


def test_related_sections_are_not_groups(clone: Path) -> None:
    from tests.curator.conftest import batch, row

    curator = KnowledgeCurator(clone)
    page = curator.catalog().pages["general/review/rules"]
    assert page.groups == ("1. What may enter the tree", "2. Reviewing the day branch")
    r = row("REV-2c", target="general/review/rules", title="Anchor test", after="Related")
    assert curator.validate_proposals({"proposals": [r]}, batch()).rejected[0].reason == "anchor"


def test_rule_pages_are_found_whatever_frontmatter_required_lists(clone: Path) -> None:
    policy = clone / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + "\nfrontmatter:\n  required: [title]\n")
    catalog = KnowledgeCurator(clone).catalog()
    assert {"general/writing/rules", "repos/kbkit/rules"} <= set(catalog.pages)


def test_the_rule_page_name_pattern_is_policy(clone: Path) -> None:
    from kbkit.infra.errors import UsageError
    from tests.curator.conftest import batch, row

    policy = clone / "knowledge/policy.yaml"
    base = policy.read_text()
    policy.write_text(base + "\nrules:\n  page_name: '^rules-[a-z0-9-]+\\.html\\.md$'\n")
    page = clone / "knowledge/repos/kbkit/rules-ci.html.md"
    page.write_text(TOPIC_PAGE)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    assert set(curator.catalog().pages) == {"repos/kbkit/rules-ci.html"}
    proposal = row("KCI-1a", target="repos/kbkit/rules-ci.html", title="CI runs the checks")
    validation = curator.validate_proposals({"proposals": [proposal]}, batch())
    assert not validation.rejected
    plan = curator.plan(validation)
    assert [c.document_id for c in plan.changes] == ["repos/kbkit/rules-ci.html"]
    policy.write_text(base + "\nrules:\n  page_name: '(unclosed'\n")
    with pytest.raises(UsageError, match="rules.page_name"):
        KnowledgeCurator(clone).catalog()
