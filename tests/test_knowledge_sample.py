"""kbkit's own knowledge/ keeps the documented rule-page shape (DESIGN §3).

The validators check structure and metadata; this checks what the curator and the demo rely
on besides: each rules page has one prefix of its own and names it, every rule section has
the four labelled bullets in order and ends with a provenance marker whose sources the page
lists, and rule IDs are unique across the tree. Labels and the ID pattern come from the
tree's policy, so the test follows the policy rather than repeating it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from kbkit.pages.page import Page, parse_page
from kbkit.policy.model import Policy, load_policy

PROJECT = Path(__file__).resolve().parents[1]
KNOWLEDGE = PROJECT / "knowledge"
MARKER = re.compile(r"\^\[([^\]]+)\]$")


class RuleSection(NamedTuple):
    rule_id: str
    name: str
    line: int
    bullets: list[str]  # each bullet's text, continuation lines joined with one space
    trailing: list[str]  # non-blank lines after the bullet list, before the next heading


def pages() -> list[Page]:
    return [
        parse_page(path.relative_to(PROJECT).as_posix(), path.read_bytes())
        for path in sorted(KNOWLEDGE.rglob("*.md"))
    ]


def rule_pages() -> list[Page]:
    return [page for page in pages() if page.meta.get("type") == "rule"]


def sections(page: Page, heading: re.Pattern[str]) -> list[RuleSection]:
    lines = page.text.split("\n")
    headings = sorted(page.headings, key=lambda h: h.line)
    found = []
    for i, head in enumerate(headings):
        match = heading.fullmatch(head.text)
        if head.level != 3 or match is None:
            continue
        end = headings[i + 1].line - 1 if i + 1 < len(headings) else len(lines)
        bullets: list[str] = []
        trailing: list[str] = []
        in_list = True
        for text in lines[head.line : end]:
            if not text.strip():
                in_list = in_list and not bullets
                continue
            if in_list and text.startswith("- "):
                bullets.append(text[2:].strip())
            elif in_list and bullets and text.startswith("  "):
                bullets[-1] += " " + text.strip()
            else:
                in_list = False
                trailing.append(text)
        found.append(RuleSection(match["id"], match["name"], head.line, bullets, trailing))
    return found


@pytest.fixture(scope="module")
def policy() -> Policy:
    return load_policy(PROJECT)


@pytest.fixture(scope="module")
def heading(policy: Policy) -> re.Pattern[str]:
    return re.compile(rf"(?P<id>{policy.data['rules']['id_pattern']}) — (?P<name>\S.*)")


@pytest.mark.slow
def test_the_policy_sets_a_taxonomy_that_the_pages_use(policy: Policy) -> None:
    tags = policy.data["taxonomy"]["tags"]
    assert 15 <= len(tags) <= 25 and len(set(tags)) == len(tags)
    used = {tag for page in pages() for tag in page.meta.get("tags", [])}
    assert used <= set(tags)
    assert {"general", "kbkit"} <= used


def test_there_are_rule_pages_for_the_documented_owners() -> None:
    names = {page.path for page in rule_pages()}
    assert {
        "knowledge/general/writing/rules.md",
        "knowledge/general/review/rules.md",
        "knowledge/repos/kbkit/rules.md",
        "knowledge/repos/kbkit/components/validators/rules.md",
        "knowledge/repos/kbkit/components/intake/rules.md",
        "knowledge/repos/kbkit/components/curator/rules.md",
    } <= names


@pytest.mark.parametrize("page", rule_pages(), ids=lambda p: p.path)
def test_rule_page_shape(page: Page, policy: Policy, heading: re.Pattern[str]) -> None:
    labels = policy.data["rules"]["labels"]
    order = [labels[key] for key in ("trigger", "must", "must_not", "acceptance")]
    found = sections(page, heading)
    assert len(found) >= 3, "a rules page holds at least three rules"
    assert [h.level for h in page.headings][:1] == [1], "the page starts with an H1"

    prefixes = {s.rule_id.rsplit("-", 1)[0] for s in found}
    assert len(prefixes) == 1, f"one ID prefix per page, got {sorted(prefixes)}"
    prefix = prefixes.pop()
    assert f"Only `{prefix}-<digit><letter>` IDs are auditable rules." in " ".join(
        page.text.split()
    )
    stray = [h.text for h in page.headings if h.level == 3 and not heading.fullmatch(h.text)]
    assert stray == [], "every ### heading on a rules page is a rule section"

    sources = set(page.meta.get("sources") or [])
    for index, section in enumerate(found):
        where = f"{page.path}:{section.line} {section.rule_id}"
        got = [b.split(":", 1)[0] for b in section.bullets]
        in_order = len(got) == 4 and all(g in opts for g, opts in zip(got, order, strict=True))
        assert in_order, f"{where}: bullets {got}, expected one each of {order}"
        marker = MARKER.search(section.bullets[-1])
        assert marker, f"{where}: the last bullet ends with a ^[source] marker"
        cited = {s.strip() for s in marker.group(1).split(";")}
        assert cited <= sources, f"{where}: {sorted(cited - sources)} missing from sources:"
        if index < len(found) - 1:
            assert section.trailing == [], (
                f"{where}: only the last section may be followed by a footer"
            )


def test_rule_ids_are_unique_across_the_tree(heading: re.Pattern[str]) -> None:
    seen: dict[str, str] = {}
    prefix_owner: dict[str, str] = {}
    for page in rule_pages():
        for section in sections(page, heading):
            assert section.rule_id not in seen, (
                f"{section.rule_id} on {seen.get(section.rule_id)} and {page.path}"
            )
            seen[section.rule_id] = page.path
            prefix = section.rule_id.rsplit("-", 1)[0]
            assert prefix_owner.setdefault(prefix, page.path) == page.path, (
                f"prefix {prefix} on two pages"
            )
    assert len(seen) >= 18


def test_section_parser_reads_wrapped_bullets_and_footers(heading: re.Pattern[str]) -> None:
    text = (
        '---\ntitle: "x"\ntype: rule\n---\n\n# X\n\n## 1. Group\n\n### AB-1a — Name\n\n'
        "- Trigger: t\n  wrapped.\n- Must: m\n- Must not: n\n- Acceptance: a ^[PR #1]\n\n"
        "Related: [y](y.md).\n"
    )
    (section,) = sections(parse_page("x.md", text.encode()), heading)
    assert section.rule_id == "AB-1a" and section.name == "Name"
    assert section.bullets[0] == "Trigger: t wrapped."
    assert section.bullets[-1] == "Acceptance: a ^[PR #1]"
    assert section.trailing == ["Related: [y](y.md)."]
