"""The SDK's reason texts for kbkit's rejection codes (kbkit's codes stay the source of truth)."""

from __future__ import annotations

from kbkit.curator import Catalog, RejectedProposal

OVER_LIMIT = "batch rule limit exceeded"
NOT_OBJECT = "proposal must be an object"
SHAPE = "proposal fields do not match the v1 shape"
TEXT_TYPES = "proposal text fields must be strings"
SOURCE_TYPES = "proposal sources must be an array of strings"
OUTSIDE_CATALOG = "page is outside the repository rules catalog"
BAD_ID = "rule_id has an invalid shape"
HEADING = "section must contain one matching level-two rule heading"
SOURCE_BOUNDS = "sources must contain 1..8 distinct bounded references"
FOREIGN_SOURCE = "proposal cites evidence outside this batch"
UNCITED_SOURCE = "every proposal source must be cited in the section"
DUPLICATE = "duplicate page/rule_id in proposal output"
EXISTS_HERE = "rule_id already exists in the target page"

# kbkit reason code -> SDK text; codes the SDK has no word for keep a kbkit-specific text.
_TEXTS = {
    "reply-invalid": SHAPE,
    "over-max-rules": OVER_LIMIT,
    "schema": SHAPE,
    "unknown-target": OUTSIDE_CATALOG,
    "escape": OUTSIDE_CATALOG,
    "symlink": OUTSIDE_CATALOG,
    "link-scheme": "section contains unsafe text",
    "link-host": "section contains unsafe text",
    "target-changed": "target page changed during validation",
    "bullet-style-page": "target page keeps its rules as bullets, not sections",
    "rule-id-format": BAD_ID,
    "rule-id-prefix": "rule_id does not use the target page's prefix",
    "rule-id-duplicate": DUPLICATE,
    "anchor": HEADING,
    "group": HEADING,
    "heading": HEADING,
    "section-shape": "section must be the heading, a blank line and the labelled bullets",
    "bullets": "section bullets do not match the rule shape (Trigger, Required)",
    "provenance": UNCITED_SOURCE,
    "citation": UNCITED_SOURCE,
    "unsafe-text": "section contains unsafe text",
}


def reason_text(rejected: RejectedProposal, catalog: Catalog, page_id: str) -> str:
    """The SDK reason for one kbkit rejection of a row aimed at `page_id` (an SDK page ID)."""
    if rejected.reason == "rule-id-taken" and rejected.rule_id:
        owners = catalog.defined.get(rejected.rule_id, ())
        owner = f"{catalog.knowledge_root}/{owners[0]}.md" if owners else "another page"
        return EXISTS_HERE if owner == page_id else f"rule_id already exists on {owner}"
    if rejected.reason == "schema" and rejected.message.startswith("section"):
        return "section length is outside 40..6000 characters"
    return _TEXTS.get(rejected.reason, f"proposal rejected ({rejected.reason})")
