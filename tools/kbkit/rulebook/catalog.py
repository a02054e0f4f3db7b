"""Every rule kbkit reports, by stable id: the catalogs of the two validators and kbkit's own.

A catalog is data, apart from the checks: policy validation (`kbkit.policy.schema`, which
rejects unknown rule ids) and `kb rules` read it without importing the validators, which
read the policy (issue #17). The validators report these ids; `kbkit.rulebook.docs` explains them.
"""

from __future__ import annotations

from typing import NamedTuple

from kbkit.rulebook.findings import ERROR, WARNING


class Rule(NamedTuple):
    id: str
    severity: str
    summary: str


UNREADABLE = Rule(
    "kb/unreadable",
    ERROR,
    "a page or folder cannot be read as UTF-8 markdown (reported by every run)",
)
SUPPRESSION_UNUSED = Rule(
    "kb/suppression-unused",
    ERROR,
    "a kb-disable-next-line or kb-disable-file comment suppresses nothing",
)
SUPPRESSION_INVALID = Rule(
    "kb/suppression-invalid",
    ERROR,
    "a kb-disable-next-line or kb-disable-file comment without a rule id or reason",
)

TREE_RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("tree/root-missing", ERROR, "a configured root folder is missing"),
        Rule("tree/index-missing", ERROR, "a folder with pages has no _index.md"),
        Rule(
            "tree/page-unregistered",
            ERROR,
            "a page is not registered: not linked from its folder's _index.md, or not listed "
            "in the site's navigation",
        ),
        Rule(
            "tree/page-registered-twice",
            ERROR,
            "a page is linked more than once from its _index.md",
        ),
        Rule(
            "tree/child-unregistered",
            ERROR,
            "a sub-folder's _index.md is not linked from the parent index",
        ),
        Rule(
            "tree/child-registered-twice",
            ERROR,
            "a sub-folder's _index.md is linked more than once",
        ),
        Rule(
            "tree/too-many-pages",
            WARNING,
            "an ordinary folder holds more pages than the fan-out limit",
        ),
        Rule("tree/group-too-large", ERROR, "a group folder holds more pages than its limit"),
        Rule("tree/link-absolute", ERROR, "a link uses an absolute path"),
        Rule("tree/link-broken", ERROR, "a relative link points to nothing"),
        Rule("tree/link-anchor", ERROR, "a link's #fragment names no heading of its page"),
        Rule("tree/page-too-large", ERROR, "a page is past the split limit"),
        Rule("tree/page-near-limit", WARNING, "a page is close to the split limit"),
        Rule("tree/secret-ip", ERROR, "an IP address that is not loopback"),
        Rule("tree/secret-windows-home", ERROR, "a Windows or macOS home folder path"),
        Rule("tree/secret-remote-home", ERROR, "a /home/<user> or /data/<user> path"),
        Rule("tree/secret-private-key", ERROR, "a private key block"),
        Rule(
            "tree/secret-token",
            ERROR,
            "a credential token (GitHub, AWS, Stripe, Slack, ...: the families lessons are "
            "redacted for)",
        ),
        Rule("tree/danger-text", ERROR, "a dangerous operation named in text"),
        Rule("tree/danger-code", ERROR, "a dangerous command inside code"),
        Rule("tree/incident-name", ERROR, "an incident page name is not YYYY-MM-DD-name.md"),
        Rule("tree/incident-field", ERROR, "an incident page lacks a required field"),
        Rule("tree/incident-state", ERROR, "an incident state is not one of the allowed states"),
        Rule("tree/incident-id-duplicate", ERROR, "two incident pages share an id"),
        Rule("tree/owner-nested", ERROR, "an owner axis folder is nested too deep"),
        Rule("tree/owner-guides", ERROR, "an owner folder holds guides"),
        Rule("tree/duplicate-page", ERROR, "two pages have the same text"),
        Rule("tree/local-tracked", ERROR, "a file under local/ is tracked by git"),
        Rule("tree/entry-too-long", ERROR, "the contributor entry page is too long"),
    )
}

LINT_RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("lint/taxonomy-missing", ERROR, "the tag taxonomy cannot be found"),
        Rule("lint/frontmatter-missing", ERROR, "a checked page has no frontmatter"),
        Rule("lint/frontmatter-invalid", ERROR, "the frontmatter is not a valid YAML mapping"),
        Rule("lint/frontmatter-duplicate-key", ERROR, "a frontmatter key is written twice"),
        Rule("lint/field-missing", ERROR, "a required frontmatter field is missing"),
        Rule("lint/type-invalid", ERROR, "type is not one of the allowed types"),
        Rule("lint/date-invalid", ERROR, "created/updated is not a real YYYY-MM-DD date"),
        Rule("lint/tags-empty", ERROR, "tags is missing, empty or not a list"),
        Rule("lint/tag-unknown", ERROR, "a tag is not in the taxonomy"),
        Rule("lint/confidence-invalid", ERROR, "confidence is not high, medium or low"),
        Rule("lint/needs-review", WARNING, "low confidence or contested"),
        Rule("lint/stale", WARNING, "not updated for longer than the staleness limit"),
        Rule("lint/orphan", WARNING, "no page links to this page"),
        Rule("lint/adapter-yaml", ERROR, "an adapter manifest is not valid YAML"),
        Rule("lint/adapter-shape", ERROR, "an adapter manifest's knowledge: is not a mapping"),
        Rule("lint/adapter-keys", ERROR, "an adapter manifest has unknown knowledge: keys"),
        Rule("lint/adapter-list", ERROR, "an adapter briefing list is not a list of strings"),
        Rule("lint/adapter-raw", ERROR, "an adapter briefing doc points into the evidence layer"),
        Rule("lint/adapter-checklist", ERROR, "an adapter review checklist is missing or invalid"),
        Rule("lint/rule-id-duplicate", ERROR, "a rule id is defined on two rule pages"),
        Rule(
            "lint/rule-bullets",
            ERROR,
            "a rule section lacks the four labelled bullets in order (what the curator refuses)",
        ),
        Rule("lint/rule-source", ERROR, "a rule section's last bullet has no ^[source] marker"),
        Rule("lint/title-unquoted", ERROR, "the frontmatter title is not quoted"),
        Rule(
            "lint/frontmatter-schema",
            ERROR,
            "the frontmatter breaks the policy's frontmatter JSON Schema",
        ),
    )
}


def all_rules() -> dict[str, Rule]:
    """Every rule by id: the tree and lint validators', then kbkit's own (kb/...)."""
    return {
        **TREE_RULES,
        **LINT_RULES,
        **{rule.id: rule for rule in (SUPPRESSION_UNUSED, SUPPRESSION_INVALID, UNREADABLE)},
    }


def nearest_rule(typed: str) -> str | None:
    """The rule id closest to a mistyped one (`tree/link-brokn`), if any is close."""
    import difflib

    close = difflib.get_close_matches(typed, sorted(all_rules()), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_rule(typed: str) -> str:
    """The words for a rule id no validator has: `unknown rule 'x': did you mean 'y'?`."""
    guess = nearest_rule(typed)
    hint = f": did you mean '{guess}'?" if guess else " (`kb rules` lists them)"
    return f"unknown rule '{typed}'{hint}"
