"""Why each rule exists and how to fix a finding: the text `kb rule ID` adds to the registry.

What a rule checks and its default severity come from the validators' registries
(`kbkit.checks.registry.all_rules`); this module only adds the reader's side. A rule without
an entry here still explains itself from the registry (tests/test_rule_command.py keeps the
two in step).
"""

from __future__ import annotations

from typing import NamedTuple

from kbkit.rulebook.findings import SarifRule


class RuleDoc(NamedTuple):
    why: str
    fix: str


_SECRET = "the tree is shared and copied into prompts: machine details leak with it"

DOCS: dict[str, RuleDoc] = {
    "kb/suppression-invalid": RuleDoc(
        "a suppression must say which rule it silences and why, or reviewers cannot judge it",
        "write `<!-- kb-disable-next-line RULE-ID: reason -->` with both parts",
    ),
    "kb/suppression-unused": RuleDoc(
        "a stale suppression would silently hide the next real finding on that line",
        "delete the comment, or move it to the line before the finding it is meant for",
    ),
    "kb/unreadable": RuleDoc(
        "a page no one can parse is a page no check (and no reader) sees",
        "save the page as UTF-8 text, fix the broken symlink, or rename a folder named like a page",
    ),
    "lint/adapter-checklist": RuleDoc(
        "agents load the review checklist by path; a wrong path briefs them with nothing",
        "point `review_checklist` at an existing page under the knowledge root",
    ),
    "lint/adapter-keys": RuleDoc(
        "unknown keys in an adapter manifest are typos that no agent ever reads",
        "use only the keys the policy lists in `adapters.keys`",
    ),
    "lint/adapter-list": RuleDoc(
        "briefing lists are read as lists of page paths",
        "write the key as a YAML list of strings",
    ),
    "lint/adapter-raw": RuleDoc(
        "agents should be briefed from synthesized pages, not raw incidents or results",
        "point the briefing at the guide or rule page that distills the evidence",
    ),
    "lint/adapter-shape": RuleDoc(
        "the `knowledge:` block is read as a mapping of briefing keys",
        "make `knowledge:` a YAML mapping",
    ),
    "lint/adapter-yaml": RuleDoc(
        "a manifest that does not parse briefs no agent",
        "fix the YAML syntax (run it through a YAML parser)",
    ),
    "lint/confidence-invalid": RuleDoc(
        "confidence drives which pages get reviewed first",
        "set `confidence:` to high, medium or low",
    ),
    "lint/date-invalid": RuleDoc(
        "staleness is computed from `updated:`; an impossible date hides a stale page",
        "write `created:` and `updated:` as real dates, YYYY-MM-DD",
    ),
    "lint/field-missing": RuleDoc(
        "search, staleness and ownership read these frontmatter fields on every page",
        "add the missing field to the page's frontmatter",
    ),
    "lint/frontmatter-invalid": RuleDoc(
        "frontmatter that does not parse is as good as none",
        "make the block between the `---` lines a valid YAML mapping",
    ),
    "lint/frontmatter-missing": RuleDoc(
        "the policy's required fields (title, dates, type, tags, ...) live in a page's frontmatter",
        "start the page with a `---` frontmatter block (copy one from a sibling page)",
    ),
    "lint/frontmatter-schema": RuleDoc(
        "the team's own frontmatter contract (keys, formats, allowed values) is its policy schema",
        "change the offending key to what `frontmatter.schema` in the policy asks for, or change the schema "
        "(it may `$ref` a built-in profile's, tools/kbkit/policy/profiles/frontmatter/<profile>.schema.json)",
    ),
    "lint/needs-review": RuleDoc(
        "low-confidence or contested pages should not be trusted silently",
        "review the page, then raise its confidence or settle the dispute",
    ),
    "lint/orphan": RuleDoc(
        "a page nothing links to is a page no one finds",
        "link it from a related page or from its folder's index",
    ),
    "lint/rule-id-duplicate": RuleDoc(
        "rule IDs are cited in reviews and prompts; one ID must mean one rule",
        "give the later rule a new ID (published IDs are never renumbered)",
    ),
    "lint/rule-bullets": RuleDoc(
        "a rule is only usable when its trigger, must, must-not and acceptance are all there, "
        "in the order readers and the curator expect",
        "give the section the four labelled bullets (Trigger, Must, Must not, Acceptance) in "
        "that order",
    ),
    "lint/rule-source": RuleDoc(
        "a rule without provenance cannot be reviewed or retired when its reason goes away",
        "end the section's last bullet with a `^[source]` marker naming the PR or incident",
    ),
    "lint/title-unquoted": RuleDoc(
        "an unquoted title with a colon or a leading special character is read differently "
        "by YAML than it looks",
        'quote the title: `title: "Deploy: the checklist"`',
    ),
    "lint/frontmatter-duplicate-key": RuleDoc(
        "YAML silently keeps the last of two equal keys, so the page says something else "
        "than its author sees",
        "keep one of the two keys (merge their values)",
    ),
    "lint/stale": RuleDoc(
        "knowledge decays; an old page may describe code that no longer exists",
        "re-read the page, fix what changed and bump `updated:`",
    ),
    "lint/tag-unknown": RuleDoc(
        "tags are a controlled vocabulary; a typo splits a topic in two",
        "use a tag from the taxonomy, or add the tag to the policy in the same change",
    ),
    "lint/tags-empty": RuleDoc(
        "untagged pages fall out of every topic listing",
        "give the page a list of taxonomy tags",
    ),
    "lint/taxonomy-missing": RuleDoc(
        "tags cannot be checked without the list of allowed tags (reported once a page "
        "carries a tag)",
        "add `taxonomy: tags:` to knowledge/policy.yaml (`kb init` writes one)",
    ),
    "lint/type-invalid": RuleDoc(
        "the page type decides which checks and templates apply",
        "set `type:` to one of the policy's page types",
    ),
    "tree/child-registered-twice": RuleDoc(
        "an index lists each sub-folder once so the tree reads as a tree",
        "remove the extra link to the sub-folder's _index.md",
    ),
    "tree/child-unregistered": RuleDoc(
        "a sub-folder its parent does not link is invisible from the top",
        "link `child/_index.md` from the parent folder's _index.md",
    ),
    "tree/danger-code": RuleDoc(
        "readers copy and run code blocks; a mass kill or forced recursive delete does damage",
        "name the exact process or path, or move the command into a must-not bullet",
    ),
    "tree/danger-text": RuleDoc(
        "the tree must not teach unsafe practice (disabled host checks, grabbing all GPUs)",
        "remove the instruction, or state it as a prohibition in a must-not bullet",
    ),
    "tree/duplicate-page": RuleDoc(
        "two copies of a page drift apart; readers cannot tell which is true",
        "keep one page and link to it from the other place",
    ),
    "tree/entry-too-long": RuleDoc(
        "the entry page is read first by every contributor and agent; it must stay short",
        "move detail into linked pages",
    ),
    "tree/group-too-large": RuleDoc(
        "a group folder past its limit stops being browsable",
        "split the folder into sub-folders",
    ),
    "tree/incident-field": RuleDoc(
        "incident pages are evidence; their fields are read mechanically",
        "add the field as an exact bullet line with a value",
    ),
    "tree/incident-id-duplicate": RuleDoc(
        "incident ids are cited as evidence; one id must mean one incident",
        "give the later incident a new id",
    ),
    "tree/incident-name": RuleDoc(
        "incident pages sort by date in their name",
        "rename the page to YYYY-MM-DD-<slug>.md with a real date",
    ),
    "tree/incident-state": RuleDoc(
        "incident states are compared exactly",
        "use exactly one of the policy's incident states",
    ),
    "tree/index-missing": RuleDoc(
        "every folder with pages is entered through its _index.md",
        "add an _index.md that links each page and sub-folder of the folder",
    ),
    "tree/link-absolute": RuleDoc(
        "absolute paths break in every other checkout",
        "write the link relative to the page",
    ),
    "tree/link-anchor": RuleDoc(
        "a link to a heading that no longer exists lands readers at the top of a long page",
        "link an existing heading (GitHub slug: lowercase, punctuation dropped, spaces to `-`) or add an anchor",
    ),
    "tree/link-broken": RuleDoc(
        "a broken link is a dead end for readers and agents (and for a fresh clone)",
        "fix the path, add (and stage) the missing page, or remove the link",
    ),
    "tree/local-tracked": RuleDoc(
        "local/ holds machine-specific notes that must never be committed",
        "`git rm --cached` the file and keep it untracked",
    ),
    "tree/owner-guides": RuleDoc(
        "owner folders hold rules and architecture; guides live under work topics",
        "move the folder to the repository's topic guides",
    ),
    "tree/owner-nested": RuleDoc(
        "owner axes sit directly under repos/<repo>/ so ownership has one place",
        "move the folder up to repos/<repo>/",
    ),
    "tree/page-near-limit": RuleDoc(
        "a page close to the split limit will soon need splitting",
        "plan a split, or mark the page with the policy's no-split marker in its index",
    ),
    "tree/page-registered-twice": RuleDoc(
        "an index lists each page once",
        "remove the extra link (the finding names its line)",
    ),
    "tree/page-too-large": RuleDoc(
        "long pages are skimmed, not read, and cost prompt budget",
        "split the page by topic and link the parts from the index",
    ),
    "tree/page-unregistered": RuleDoc(
        "a page its folder's index does not link is invisible from the top",
        "add one link to the page in its folder's _index.md",
    ),
    "tree/root-missing": RuleDoc(
        "the policy promises these root folders; a fresh clone must have them",
        "create the root folder with an _index.md (git does not keep empty folders)",
    ),
    "tree/secret-ip": RuleDoc(
        _SECRET,
        "replace the address with a placeholder or a documentation range (192.0.2.0/24)",
    ),
    "tree/secret-private-key": RuleDoc(
        _SECRET,
        "delete the key from the page and rotate it: it is in the git history now",
    ),
    "tree/secret-token": RuleDoc(
        "a token in a page is a live credential for anyone who reads or clones the tree",
        "remove the token, then revoke or rotate it (it stays in the git history); write a "
        "stand-in such as `ghp_EXAMPLE` or `<your-token>` in documentation",
    ),
    "tree/secret-remote-home": RuleDoc(
        _SECRET,
        "write `/home/<user>` or a path relative to the project",
    ),
    "tree/secret-windows-home": RuleDoc(
        _SECRET,
        "write `C:\\Users\\<name>` (a placeholder) or a relative path",
    ),
    "tree/too-many-pages": RuleDoc(
        "a folder with too many pages stops being browsable",
        "group the pages into sub-folders",
    ),
}


def suppression(rule_id: str) -> str:
    """How to silence one finding of a rule, or all of them."""
    return (
        f"one finding: `<!-- kb-disable-next-line {rule_id}: reason -->` on the line before it; "
        f"a whole page (or, in its _index.md, a folder): `<!-- kb-disable-file {rule_id}: reason -->`; "
        "every finding, or per path glob: `rules:` / `overrides:` in the policy"
    )


def sarif_rules() -> dict[str, SarifRule]:
    """Every rule as a SARIF log describes it: its summary, default severity, why and fix."""
    from kbkit.rulebook.catalog import all_rules

    described = {}
    for rule in all_rules().values():
        doc = DOCS.get(rule.id)
        why = f"Why: {doc.why}.\nFix: {doc.fix}.\n" if doc else ""
        help_text = f"{why}Suppress: {suppression(rule.id)}."
        described[rule.id] = SarifRule(rule.id, rule.severity, rule.summary, help_text)
    return described
