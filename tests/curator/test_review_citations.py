"""Review notes as citable evidence: a rule citing a reviewer's comment is accepted, one
citing a comment that is not in the batch is rejected as `review-citation`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbkit.curator import REASONS, KnowledgeCurator, KnowledgeEvidenceBatch, ReviewNote
from tests.curator.conftest import event, make_clone, row, section

PR = "acme/app#12"
COMMENT = f"{PR}:discussion_r345"
REVIEW = f"{PR}:pullrequestreview-678"


def notes() -> tuple[ReviewNote, ...]:
    return (
        ReviewNote(
            COMMENT,
            "inline",
            "carol",
            "reviewer",
            "Links must stay inside the tree; refuse `../` targets.",
            association="MEMBER",
            state="changes_requested",
            accepted="suggestion",
            path="tools/links.py",
            line=40,
            start_line=38,
            resolved=True,
            hunk="@@ -30,6 +30,9 @@\n+    target = resolve(link)",
        ),  # fmt: skip
        ReviewNote(
            REVIEW,
            "review",
            "carol",
            "reviewer",
            "Please refuse links that leave.",
            association="MEMBER",
            state="changes_requested",
        ),  # fmt: skip
    )


def review_batch() -> KnowledgeEvidenceBatch:
    return KnowledgeEvidenceBatch([event(PR, discussion=notes())], 5)


@pytest.fixture(scope="module")
def curator(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeCurator:
    return KnowledgeCurator(make_clone(tmp_path_factory.mktemp("rc") / "clone"))


def _validate(curator: KnowledgeCurator, proposal: dict[str, Any]) -> Any:
    validation = curator.validate_proposals({"proposals": [proposal]}, review_batch())
    assert validation.accepted_indexes + validation.rejected_indexes == [0]
    return validation


def test_a_rule_citing_a_review_comment_is_accepted(curator: KnowledgeCurator) -> None:
    validation = _validate(curator, row(cite=f"{COMMENT}; {REVIEW}"))
    assert validation.rejected == ()
    assert validation.accepted[0].citations == (COMMENT, REVIEW)
    assert validation.accepted[0].section.endswith(f"^[{COMMENT}; {REVIEW}]")


def test_the_pr_itself_stays_citable(curator: KnowledgeCurator) -> None:
    assert _validate(curator, row(cite=PR)).rejected == ()


@pytest.mark.parametrize(
    "make",
    [
        # a comment id the batch does not hold, in the marker and in citations
        lambda: row(cite=f"{PR}:discussion_r999"),
        # in citations only: the marker cites a real one
        lambda: {**row(cite=COMMENT), "citations": [f"{PR}:discussion_r999"]},
        # in the marker only
        lambda: {**row(cite=COMMENT), "section": section(cite=f"{PR}:issuecomment-1")},
        # another PR's comment
        lambda: row(cite="acme/app#13:discussion_r345"),
        # a made-up anchor
        lambda: row(cite=f"{PR}:comment-345"),
    ],
)
def test_a_rule_citing_an_invented_comment_is_rejected_with_a_stable_reason(
    curator: KnowledgeCurator, make: Any
) -> None:
    validation = _validate(curator, make())
    assert "review-citation" in REASONS
    [rejected] = validation.rejected
    assert rejected.reason == "review-citation", rejected
    assert "no event of the batch holds" in rejected.message


def test_a_source_outside_the_batch_is_still_a_citation_problem(curator: KnowledgeCurator) -> None:
    validation = _validate(curator, row(section=section(cite="PR #555"), cite=PR))
    assert validation.rejected[0].reason == "citation"


def test_the_wire_schema_lists_the_notes_as_citable(curator: KnowledgeCurator) -> None:
    schema = curator.proposal_schema(5, review_batch())
    enum = schema["properties"]["proposals"]["items"]["properties"]["citations"]["items"]["enum"]
    assert enum == [PR, COMMENT, REVIEW]


def test_an_accepted_review_citation_survives_revalidation(
    curator: KnowledgeCurator, tmp_path: Path
) -> None:
    validation = _validate(curator, row(cite=COMMENT))
    curator.revalidate(validation)  # raises when a claimed row no longer holds


def test_the_prompt_fences_the_discussion_and_names_each_note(curator: KnowledgeCurator) -> None:
    text = curator.build_prompt(review_batch()).text
    block = text.split('<untrusted_data n="1" kind="merged_pr">')[1].split("</untrusted_data>")[0]
    assert f"| - id: {COMMENT}" in block and f"| - id: {REVIEW}" in block
    assert "inline comment by carol (MEMBER, reviewer); on tools/links.py lines 38-40" in block
    assert "the review requested changes; thread resolved; ACCEPTED" in block
    assert "refuse `../` targets" in block
    assert "# Review discussion" in text and "an id that is not in the evidence rejects" in text
