"""The lint family: frontmatter and its fields, tags, staleness, orphans, rule pages and
adapter manifests (`kb check-wiki-lint`).

Each rule of the family is declared here, once; the modules beside this one hold the checks
that report them (`fields`, `schema`, `rule_pages`, `orphans`, `adapters`).
"""

from __future__ import annotations

from kbkit.rulebook.findings import ERROR, WARNING
from kbkit.rulebook.rule import Rule

FRONTMATTER_MISSING = Rule(
    "lint/frontmatter-missing",
    ERROR,
    "a checked page has no frontmatter",
    why="the policy's required fields (title, dates, type, tags, ...) live in a page's frontmatter",
    fix="start the page with a `---` frontmatter block (copy one from a sibling page)",
    example="# Deploy\n\nA page that does not start with a `---` block.",
)
FRONTMATTER_INVALID = Rule(
    "lint/frontmatter-invalid",
    ERROR,
    "the frontmatter is not a valid YAML mapping",
    why="frontmatter that does not parse is as good as none",
    fix="make the block between the `---` lines a valid YAML mapping",
    example="---\ntitle: [Deploy\n---",
)
FRONTMATTER_DUPLICATE_KEY = Rule(
    "lint/frontmatter-duplicate-key",
    ERROR,
    "a frontmatter key is written twice",
    why="YAML silently keeps the last of two equal keys, so the page says something else than its author sees",
    fix="keep one of the two keys (merge their values)",
    example='---\ntitle: "Deploy"\ntitle: "Deploying"\n---',
)
FIELD_MISSING = Rule(
    "lint/field-missing",
    ERROR,
    "a required frontmatter field is missing",
    why="search, staleness and ownership read these frontmatter fields on every page",
    fix="add the missing field to the page's frontmatter",
    example='---\ntitle: "Deploy"\n---  (no `updated:`, while the policy requires it)',
    fixable=True,
)
TYPE_INVALID = Rule(
    "lint/type-invalid",
    ERROR,
    "type is not one of the allowed types",
    why="the page type decides which checks and templates apply",
    fix="set `type:` to one of the policy's page types",
    example="type: tutorial  (the policy's types are guide, rule, ...)",
)
DATE_INVALID = Rule(
    "lint/date-invalid",
    ERROR,
    "created/updated is not a real YYYY-MM-DD date",
    why="staleness is computed from `updated:`; an impossible date hides a stale page",
    fix="write `created:` and `updated:` as real dates, YYYY-MM-DD",
    example="updated: 2024-02-30",
)
TAGS_EMPTY = Rule(
    "lint/tags-empty",
    ERROR,
    "tags is missing, empty or not a list",
    why="untagged pages fall out of every topic listing",
    fix="give the page a list of taxonomy tags",
    example="tags: []",
)
TAG_UNKNOWN = Rule(
    "lint/tag-unknown",
    ERROR,
    "a tag is not in the taxonomy",
    why="tags are a controlled vocabulary; a typo splits a topic in two",
    fix="use a tag from the taxonomy, or add the tag to the policy in the same change",
    example="tags: [deploi]  (the taxonomy has deploy)",
)
TAXONOMY_MISSING = Rule(
    "lint/taxonomy-missing",
    ERROR,
    "the tag taxonomy cannot be found",
    why="tags cannot be checked without the list of allowed tags (reported once a page carries a tag)",
    fix="add `taxonomy: tags:` to knowledge/policy.yaml (`kb init` writes one)",
    example="a page with `tags: [deploy]` while the policy has no `taxonomy: tags:`",
)
CONFIDENCE_INVALID = Rule(
    "lint/confidence-invalid",
    ERROR,
    "confidence is not high, medium or low",
    why="confidence drives which pages get reviewed first",
    fix="set `confidence:` to high, medium or low",
    example="confidence: sure",
)
NEEDS_REVIEW = Rule(
    "lint/needs-review",
    WARNING,
    "low confidence or contested",
    why="low-confidence or contested pages should not be trusted silently",
    fix="review the page, then raise its confidence or settle the dispute",
    example="confidence: low",
)
STALE = Rule(
    "lint/stale",
    WARNING,
    "not updated for longer than the staleness limit",
    why="knowledge decays; an old page may describe code that no longer exists",
    fix="re-read the page, fix what changed and bump `updated:`",
    example="updated: 2019-01-15  (older than `limits.stale_days`)",
)

FRONTMATTER_SCHEMA = Rule(
    "lint/frontmatter-schema",
    ERROR,
    "the frontmatter breaks the policy's frontmatter JSON Schema",
    why="the team's own frontmatter contract (keys, formats, allowed values) is its policy schema",
    fix="change the offending key to what `frontmatter.schema` in the policy asks for, or change the schema (it may `$ref` a built-in profile's, tools/kbkit/policy/profiles/frontmatter/<profile>.schema.json)",
    example="owner: 42  (the policy's frontmatter schema asks for a string)",
)

RULE_BULLETS = Rule(
    "lint/rule-bullets",
    ERROR,
    "a rule section lacks the four labelled bullets in order (what the curator refuses)",
    why="a rule is only usable when its trigger, must, must-not and acceptance are all there, in the order readers and the curator expect",
    fix="give the section the four labelled bullets (Trigger, Must, Must not, Acceptance) in that order",
    example="## R-12 Pin base images\n- **Must:** pin by digest.\n  (no Trigger, Must not or Acceptance bullet)",
)
RULE_SOURCE = Rule(
    "lint/rule-source",
    ERROR,
    "a rule section's last bullet has no ^[source] marker",
    why="a rule without provenance cannot be reviewed or retired when its reason goes away",
    fix="end the section's last bullet with a `^[source]` marker naming the PR or incident",
    example="- **Acceptance:** the build uses a digest.  (no ^[source] marker)",
)
TITLE_UNQUOTED = Rule(
    "lint/title-unquoted",
    ERROR,
    "the frontmatter title is not quoted",
    why="an unquoted title with a colon or a leading special character is read differently by YAML than it looks",
    fix='quote the title: `title: "Deploy: the checklist"`',
    example="title: Deploy: the checklist",
    fixable=True,
)
RULE_ID_DUPLICATE = Rule(
    "lint/rule-id-duplicate",
    ERROR,
    "a rule id is defined on two rule pages",
    why="rule IDs are cited in reviews and prompts; one ID must mean one rule",
    fix="give the later rule a new ID (published IDs are never renumbered)",
    example="## R-12 Pin base images   (R-12 is already defined on another rule page)",
)

ORPHAN = Rule(
    "lint/orphan",
    WARNING,
    "no page links to this page",
    why="a page nothing links to is a page no one finds",
    fix="link it from a related page or from its folder's index",
    example="a page that no other page (and no index) links to",
)

ADAPTER_YAML = Rule(
    "lint/adapter-yaml",
    ERROR,
    "an adapter manifest is not valid YAML",
    why="a manifest that does not parse briefs no agent",
    fix="fix the YAML syntax (run it through a YAML parser)",
    example="knowledge:\n  briefing_docs: [a, b",
)
ADAPTER_SHAPE = Rule(
    "lint/adapter-shape",
    ERROR,
    "an adapter manifest's knowledge: is not a mapping",
    why="the `knowledge:` block is read as a mapping of briefing keys",
    fix="make `knowledge:` a YAML mapping",
    example="knowledge: [ops/deploy.md]",
)
ADAPTER_KEYS = Rule(
    "lint/adapter-keys",
    ERROR,
    "an adapter manifest has unknown knowledge: keys",
    why="unknown keys in an adapter manifest are typos that no agent ever reads",
    fix="use only the keys the policy lists in `adapters.keys`",
    example="knowledge:\n  brefing_docs: [ops/deploy.md]",
)
ADAPTER_LIST = Rule(
    "lint/adapter-list",
    ERROR,
    "an adapter briefing list is not a list of strings",
    why="briefing lists are read as lists of page paths",
    fix="write the key as a YAML list of strings",
    example="knowledge:\n  briefing_docs: ops/deploy.md",
)
ADAPTER_RAW = Rule(
    "lint/adapter-raw",
    ERROR,
    "an adapter briefing doc points into the evidence layer",
    why="agents should be briefed from synthesized pages, not raw incidents or results",
    fix="point the briefing at the guide or rule page that distills the evidence",
    example="knowledge:\n  briefing_docs: [ops/incidents/2024-05-01-outage.md]",
)
ADAPTER_CHECKLIST = Rule(
    "lint/adapter-checklist",
    ERROR,
    "an adapter review checklist is missing or invalid",
    why="agents load the review checklist by path; a wrong path briefs them with nothing",
    fix="point `review_checklist` at an existing page under the knowledge root",
    example="knowledge:\n  review_checklist: review/missing.md",
)

RULES = (
    FRONTMATTER_MISSING,
    FRONTMATTER_INVALID,
    FRONTMATTER_DUPLICATE_KEY,
    FIELD_MISSING,
    TYPE_INVALID,
    DATE_INVALID,
    TAGS_EMPTY,
    TAG_UNKNOWN,
    TAXONOMY_MISSING,
    CONFIDENCE_INVALID,
    NEEDS_REVIEW,
    STALE,
    FRONTMATTER_SCHEMA,
    RULE_BULLETS,
    RULE_SOURCE,
    TITLE_UNQUOTED,
    RULE_ID_DUPLICATE,
    ORPHAN,
    ADAPTER_YAML,
    ADAPTER_SHAPE,
    ADAPTER_KEYS,
    ADAPTER_LIST,
    ADAPTER_RAW,
    ADAPTER_CHECKLIST,
)
