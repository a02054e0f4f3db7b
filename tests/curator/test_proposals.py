"""Validation: every reason code, every row accounted for, policy labels honoured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbkit.curator import REASONS, KnowledgeCurator
from kbkit.curator.proposals import content_id
from tests.curator.conftest import KBKIT, WRITING, batch, make_clone, row, section


@pytest.fixture(scope="module")
def curator(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeCurator:
    return KnowledgeCurator(make_clone(tmp_path_factory.mktemp("v") / "clone"))


def _reason(curator: KnowledgeCurator, r: dict[str, Any], *ids: str) -> str | None:
    ids = ids or ("PR #101", "PR #102")
    validation = curator.validate_proposals({"proposals": [r]}, batch(*ids))
    assert validation.accepted_indexes + validation.rejected_indexes == [0]
    return validation.rejected[0].reason if validation.rejected else None


def test_a_good_row_is_accepted_with_a_content_address(curator: KnowledgeCurator) -> None:
    validation = curator.validate_proposals(json.dumps({"proposals": [row()]}), batch())
    assert validation.rejected == ()
    accepted = validation.accepted[0]
    assert accepted.id == content_id(WRITING, section())
    assert accepted.base_sha256 == curator.catalog().pages[WRITING].sha256
    assert validation.to_dict()["accepted_indexes"] == [0]


BAD_ROWS = [
    ("schema", lambda: {**row(), "extra": True}),
    ("schema", lambda: {k: v for k, v in row().items() if k != "after"}),
    ("unknown-target", lambda: row(target="general/nowhere/rules")),
    ("unknown-target", lambda: row(target="../../etc/passwd")),
    ("schema", lambda: {**row(), "citations": ["PR #999"]}),
    ("schema", lambda: {**row(), "title": "x" * 200}),
    ("rule-id-format", lambda: row(rule_id="write-3b")),
    ("rule-id-format", lambda: row(rule_id="WRITE-3")),
    ("rule-id-prefix", lambda: row(rule_id="KBK-9a")),
    ("rule-id-taken", lambda: row(rule_id="WRITE-1a")),
    ("anchor", lambda: row(after="WRITE-7z")),
    ("anchor", lambda: row(after="## 9. Nowhere")),
    ("heading", lambda: row(section=section(level=2))),
    ("heading", lambda: row(section=section(title="Another title"))),
    ("heading", lambda: row(section=section(sep=":"))),
    ("heading", lambda: row(section="Intro line\n\n" + section())),
    ("section-shape", lambda: row(section=section().replace("\n\n", "\n", 1))),
    ("section-shape", lambda: row(section=section() + "\n\nA trailing paragraph. ^[PR #101]")),
    ("section-shape", lambda: row(section=section().replace("- Must not", "\n- Must not"))),
    (
        "section-shape",
        lambda: row(
            section=section().replace("- Must not", "  ```\n  make clean\n  ```\n- Must not")
        ),
    ),
    ("section-shape", lambda: row(section=section() + "\n### WRITE-3c — second")),
    ("bullets", lambda: row(section=section(labels=("Trigger", "Must not", "Must", "Acceptance")))),
    ("bullets", lambda: row(section=section(labels=("When", "Must", "Must not", "Acceptance")))),
    ("bullets", lambda: row(section="\n".join(section().split("\n")[:-1]) + " ^[PR #101]")),
    ("provenance", lambda: row(section=section().replace(" ^[PR #101]", ""))),
    ("citation", lambda: row(section=section(cite="PR #555"), cite="PR #101")),
    ("schema", lambda: {**row(cite="PR #101"), "citations": []}),
    ("citation", lambda: {**row(cite="PR #101"), "citations": ["PR #101", "PR #102"]}),
    ("unsafe-text", lambda: row(section=section().replace("outside", "out\u202eside"))),
    ("unsafe-text", lambda: row(section=section().replace("outside", "out\u200bside"))),
]


@pytest.mark.parametrize(("reason", "make"), BAD_ROWS)
def test_bad_rows_get_their_reason(curator: KnowledgeCurator, reason: str, make: Any) -> None:
    assert reason in REASONS
    assert _reason(curator, make()) == reason


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("Must", "connect to 10.1.2.3 first"),
        ("Must", "read /home/alice/notes"),
        ("Must", "copy C:\\Users\\bob\\key.txt"),
        # a pasted JSON string: the BEGIN line and a key body (a BEGIN line alone is prose)
        (
            "Must",
            "paste -----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5v\\n here",
        ),
        ("Must", "set StrictHostKeyChecking=no for the runner"),
        ("Trigger", "CI passes --gpus all to the container"),
    ],
)
def test_unsafe_text_reuses_the_tree_validators_page_checks(
    curator: KnowledgeCurator, where: str, text: str
) -> None:
    body = section().replace(f"- {where}: ", f"- {where}: {text}; ", 1)
    assert _reason(curator, row(section=body)) == "unsafe-text"


def test_a_must_not_bullet_may_name_the_forbidden_operation(curator: KnowledgeCurator) -> None:
    body = section().replace("- Must not: ", "- Must not: set StrictHostKeyChecking=no or ", 1)
    assert _reason(curator, row(section=body)) is None


def test_every_row_is_accounted_for(curator: KnowledgeCurator) -> None:
    rows = [
        row("WRITE-3b"),
        row("WRITE-3b", title="Link targets stay inside the tree"),  # same ID again
        "not an object",
        row("KBK-3a", target=KBKIT, title="Locks are per clone"),
        row("WRITE-3c", title="Third of a kind", after="WRITE-3b"),
        row("WRITE-3d", title="One too many"),
    ]
    validation = curator.validate_proposals({"proposals": rows}, batch(max_rules=5))
    assert sorted(validation.accepted_indexes + validation.rejected_indexes) == list(range(6))
    reasons = {r.model_index: r.reason for r in validation.rejected}
    assert reasons == {1: "rule-id-duplicate", 2: "schema", 5: "over-max-rules"}
    assert [a.rule_id for a in validation.accepted] == ["WRITE-3b", "KBK-3a", "WRITE-3c"]
    again = type(validation).from_dict(json.loads(json.dumps(validation.to_dict())))
    assert again == validation


@pytest.mark.parametrize(
    "reply", ["", "not json", "[]", '{"proposals": {}}', '{"proposals": [], "x": 1}', b"\xff"]
)
def test_an_unusable_reply_has_no_rows(curator: KnowledgeCurator, reply: Any) -> None:
    validation = curator.validate_proposals(reply, batch())
    assert validation.reply_error and validation.rows == 0 and not validation.accepted


def test_target_changed_after_the_catalog(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c")
    curator = KnowledgeCurator(clone)
    curator.build_prompt(batch())
    page = clone / "knowledge" / f"{WRITING}.md"
    page.write_bytes(page.read_bytes() + b"\nEdited by a human.\n")
    assert _reason(curator, row()) == "target-changed"


def test_bullet_style_pages_refuse_heading_sections(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c")
    page = clone / "knowledge" / f"{WRITING}.md"
    text = page.read_text()
    head, _, _ = text.partition("## 1. Page shape")
    page.write_text(head + "## Rules\n\n- **WRITE-1a — Short.** Body text.\n")
    curator = KnowledgeCurator(clone)
    assert curator.catalog().pages[WRITING].style == "bullet"
    assert _reason(curator, row("WRITE-1b")) == "bullet-style-page"


def test_infermatrix_labels(tmp_path: Path) -> None:
    curator = KnowledgeCurator(make_clone(tmp_path / "c"), policy="infermatrix")
    chinese = section(labels=("触发", "强制", "禁止", "验收")).replace(": ", "：")
    assert _reason(curator, row(section=chinese)) is None
    must = section(labels=("触发", "必须", "禁止", "验收"))
    assert _reason(curator, row(section=must)) is None
    assert _reason(curator, row()) == "bullets"  # English labels under the Chinese policy


def test_colon_style_pages_take_colon_headings(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c")
    page = clone / "knowledge" / f"{WRITING}.md"
    page.write_text(page.read_text().replace(" — ", ": "))
    curator = KnowledgeCurator(clone)
    assert curator.catalog().pages[WRITING].separator == ":"
    assert _reason(curator, row()) == "heading"
    assert (
        _reason(curator, row(section=section(sep=":").replace("WRITE-3b :", "WRITE-3b:"))) is None
    )
