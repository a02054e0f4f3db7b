"""Rule-ID extraction: the four syntactic forms, and what is not a definition."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy, policy_from_file
from kbkit.tree.model import load_tree
from kbkit.tree.rules import BOLD_BULLET, HEADING, PLAIN_BULLET, RuleId, id_regex, rule_ids
from tests.conftest import corpus_or_skip

DEFAULT = builtin_policy("default")

PAGE = """---
title: "Rules"
type: rule
tags: [review]
notes:
- REV-9z：inside the frontmatter, not a definition
---
# Rules

Only `REV-<digit><letter>` strings are IDs; REV-1a in prose is a reference.

- **REV-0a — Start from the map.** Read the index first.
- REV-0b：plain bullet, full-width colon.
* REV-0c: plain bullet, ASCII colon.

## REV-1a — Heading form

  - REV-8a：a nested bullet is a reference

### VOMNI-CFG-1g — Hyphenated prefix

#### REV-1b

```text
### REV-7a — inside a fence
- REV-7b：inside a fence
```

    - REV-7c：indented code

| group | ids |
|---|---|
| a | REV-1a |

## REV-1ab — not an ID (two letters)
## Grouping heading
"""


def test_the_four_forms_with_lines_and_levels() -> None:
    page = parse_page("knowledge/general/rules.md", PAGE.encode())
    assert rule_ids(page, DEFAULT) == [
        RuleId("REV-0a", 12, BOLD_BULLET, 0),
        RuleId("REV-0b", 13, PLAIN_BULLET, 0),
        RuleId("REV-0c", 14, PLAIN_BULLET, 0),
        RuleId("REV-1a", 16, HEADING, 2),
        RuleId("VOMNI-CFG-1g", 20, HEADING, 3),
        RuleId("REV-1b", 22, HEADING, 4),
    ]


def test_unclosed_frontmatter_defines_nothing() -> None:
    page = parse_page("x.md", b"---\ntitle: x\n- REV-1a: y\n## REV-1b - z\n")
    assert rule_ids(page, DEFAULT) == []


def test_crlf_and_bom_keep_lines() -> None:
    text = "\ufeff---\r\ntitle: x\r\n---\r\n\r\n### REV-2a — t\r\n- **REV-2b — u.** v\r\n"
    page = parse_page("x.md", text.encode())
    assert [(r.id, r.line) for r in rule_ids(page, DEFAULT)] == [("REV-2a", 5), ("REV-2b", 6)]


def test_the_id_pattern_comes_from_the_policy(tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("rules:\n  id_pattern: 'R\\d{3}'\n")
    policy = policy_from_file(policy_file)
    page = parse_page("x.md", b"## R001 - first\n## REV-1a - not under this policy\n- R002: x\n")
    assert [r.id for r in rule_ids(page, policy)] == ["R001", "R002"]
    assert id_regex(policy).match("R123")
    assert not id_regex(policy).match("R1234")


@pytest.mark.slow
@pytest.mark.corpus
def test_corpus_counts_match_the_contract() -> None:
    """Contract §2.5: 144 unique IDs on the rule pages, 35 `##`, 36 `###`, 57 bold, 16 plain."""
    repo = corpus_or_skip("infermatrix-knowledge")
    policy = builtin_policy("infermatrix")
    tree = load_tree(repo, policy)
    forms: Counter[tuple[str, int]] = Counter()
    owners: dict[str, list[str]] = {}
    for rel, page in tree.page_items():
        if page.meta.get("type") != "rule":
            continue
        for rule in rule_ids(page, policy):
            forms[(rule.form, rule.level)] += 1
            owners.setdefault(rule.id, []).append(rel)
    assert forms == {
        (HEADING, 2): 35,
        (HEADING, 3): 36,
        (BOLD_BULLET, 0): 57,
        (PLAIN_BULLET, 0): 16,
    }
    assert len(owners) == 144
    assert all(len(pages) == 1 for pages in owners.values())


def test_asking_twice_about_one_page_gives_the_same_ids_under_each_pattern(
    tmp_path: Path,
) -> None:
    # rule_ids remembers the last page it read: the answer must still follow the policy's
    # pattern, and a caller changing the returned list must not change the next answer
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("rules:\n  id_pattern: 'R\\d{3}'\n")
    other = policy_from_file(policy_file)
    page = parse_page("x.md", b"## R001 - first\n## REV-1a - second\n- R002: x\n")
    first = rule_ids(page, DEFAULT)
    assert [r.id for r in first] == ["REV-1a"]
    first.clear()
    assert [r.id for r in rule_ids(page, DEFAULT)] == ["REV-1a"]
    assert [r.id for r in rule_ids(page, other)] == ["R001", "R002"]
    assert [r.id for r in rule_ids(page, DEFAULT)] == ["REV-1a"]
