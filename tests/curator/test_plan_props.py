"""Property tests: section insertion lands on boundaries and the post-condition holds."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.curator.plan import PlanError, check_postcondition, plan_page
from kbkit.curator.proposals import AcceptedProposal
from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy
from kbkit.tree.rules import HEADING, rule_ids
from tests.curator.conftest import section

POLICY = builtin_policy("default")
words = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=30).map(str.strip).filter(bool)


@st.composite
def pages(draw: st.DrawFn) -> tuple[bytes, list[str], list[str]]:
    sources = draw(st.lists(st.sampled_from(["PR #1", "PR #2", "docs/a.md"]), unique=True))
    block = draw(st.booleans())
    if block and sources:
        src = "sources:\n" + "".join(f'  - "{s}"\n' for s in sources)
    else:
        src = "sources: [" + ", ".join(f'"{s}"' for s in sources) + "]\n"
    front = f'---\ntitle: "T"\ncreated: 2026-01-01\nupdated: 2026-02-0{draw(st.integers(1, 9))}\n'
    front += f"type: rule\ntags: [general]\n{src}---\n\n# Rules\n\nIntro paragraph.\n"
    body = []
    ids: list[str] = []
    groups: list[str] = []
    for g in range(1, draw(st.integers(1, 3)) + 1):
        groups.append(f"{g}. Group {g}")
        body.append(f"\n## {g}. Group {g}\n")
        for letter in "abc"[: draw(st.integers(1, 3))]:
            rid = f"PROP-{g}{letter}"
            ids.append(rid)
            body.append(f"\n{section(rid, draw(words).title() or 'Name', cite='PR #1')}\n")
            if draw(st.booleans()):
                body.append("\nA note paragraph that belongs to this rule.\n")
    tail = draw(st.sampled_from(["", "\nRelated: [x](x.md).\n", "\n## Related\n\n- [x](x.md)\n"]))
    text = front + "".join(body) + tail
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text.encode(), ids, groups


def _proposal(rid: str, after: str | None, cite: str) -> AcceptedProposal:
    text = section(rid, f"New rule {rid}", cite=cite)
    return AcceptedProposal(
        "x" * 64, 0, "general/p/rules", rid, f"New rule {rid}", after, text, (cite,), "", ""
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages(), st.data())
def test_insertions_keep_every_base_byte(
    page: tuple[bytes, list[str], list[str]], data: st.DataObject
) -> None:
    raw, ids, groups = page
    count = data.draw(st.integers(1, 4))
    proposals = []
    new_ids: list[str] = []
    for n in range(count):
        anchors = [None, *ids, *groups, *new_ids]
        after = data.draw(st.sampled_from(anchors))
        rid = f"PROP-9{'abcd'[n]}"
        proposals.append(_proposal(rid, after, data.draw(st.sampled_from(["PR #1", "PR #7"]))))
        new_ids.append(rid)
    plan = plan_page(
        "general/p/rules", "knowledge/general/p/rules.md", raw, proposals, POLICY, "2026-03-01"
    )
    result = plan.result
    # Independent check: base lines survive in order; only updated/sources lines change.
    old = raw.decode().splitlines()
    new = result.decode().splitlines()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            assert all(line.startswith(("updated:", "sources:")) for line in old[i1:i2]), old[i1:i2]
    parsed = parse_page("p.md", result)
    heading_ids = [r.id for r in rule_ids(parsed, POLICY) if r.form == HEADING]
    assert [i for i in heading_ids if i in ids] == ids
    for proposal in proposals:
        assert heading_ids.count(proposal.rule_id) == 1
        assert proposal.section in result.decode().replace("\r\n", "\n")
        if proposal.after in ids or proposal.after in new_ids:
            assert heading_ids.index(proposal.rule_id) > heading_ids.index(proposal.after)
        if proposal.after is None:
            assert heading_ids.index(proposal.rule_id) > heading_ids.index(ids[-1])
    text = result.decode()
    for marker in ("Related: [x]", "## Related"):
        if marker in text:
            assert all(text.index(f" {p.rule_id} ") < text.index(marker) for p in proposals)
    assert "updated: 2026-03-01" in text


@settings(max_examples=60, deadline=None)
@given(pages(), st.integers(0, 10_000))
def test_postcondition_catches_any_stray_byte(
    page: tuple[bytes, list[str], list[str]], where: int
) -> None:
    raw, ids, _ = page
    plan = plan_page(
        "general/p/rules", "p.md", raw, [_proposal("PROP-9a", None, "PR #7")], POLICY, "2026-03-01"
    )
    index = where % len(plan.result)
    flipped = bytes([plan.result[index] ^ 0x01])
    tampered = plan._replace(result=plan.result[:index] + flipped + plan.result[index + 1 :])
    with pytest.raises(PlanError):
        check_postcondition(tampered, POLICY)


BASE = (
    '---\ntitle: "Rules"\ncreated: 2026-01-01\nupdated: 2026-02-01\ntype: rule\n'
    "tags: [review]\n{sources}---\n# Rules\n\n### PROP-1a — first\n\n- Trigger: a.\n"
    "- Must: b.\n- Must not: c.\n- Acceptance: d. ^[PR #1]\n"
)


def test_an_escaped_quote_in_sources_does_not_end_the_string() -> None:
    raw = BASE.format(sources='sources: ["a\\"]", "PR #1"]\n').encode()
    plan = plan_page(
        "general/p/rules",
        "knowledge/general/p/rules.md",
        raw,
        [_proposal("PROP-1b", None, "PR #7")],
        POLICY,
        "2026-03-01",
    )
    assert b'sources: ["a\\"]", "PR #1", "PR #7"]\n' in plan.result
    assert parse_page("p.md", plan.result).meta["sources"] == ['a"]', "PR #1", "PR #7"]


def test_new_sources_key_ends_like_its_frontmatter_when_the_body_uses_crlf() -> None:
    front, body = BASE.format(sources="").split("---\n# Rules", 1)
    raw = (front + "---\n# Rules" + body.replace("\n", "\r\n")).encode()
    plan = plan_page(
        "general/p/rules",
        "knowledge/general/p/rules.md",
        raw,
        [_proposal("PROP-1b", None, "PR #7")],
        POLICY,
        "2026-03-01",
    )
    assert b'tags: [review]\nsources: ["PR #7"]\n---\n' in plan.result
    assert parse_page("p.md", plan.result).meta["sources"] == ["PR #7"]
