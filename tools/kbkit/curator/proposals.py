"""Validate a model's reply: every row is accepted or rejected with a stable reason code.

Reason codes (README, "Curator"): reply-invalid, over-max-rules, schema, unknown-target,
target-changed, bullet-style-page, rule-id-format, rule-id-prefix, rule-id-taken,
rule-id-duplicate, anchor, group, heading, section-shape, bullets, provenance, citation,
review-citation, unsafe-text, escape, symlink, link-scheme, link-host, table-row, new-page.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.arrangement import START, Arrangement, Entry, Spot
from kbkit.curator.catalog import Catalog, CatalogPage, sha256, slot_page
from kbkit.curator.confine import (
    linked_part,
    page_inside,
    page_path,
    read_page,
    symlink_message,
)
from kbkit.curator.errors import KnowledgeCurationError
from kbkit.curator.events import KnowledgeEvidenceBatch
from kbkit.curator.layout import BULLET_STYLE, Layout, id_prefix, page_layout
from kbkit.curator.new_page import (
    NewPage,
    NewPageSlot,
    index_row_problem,
    new_page_layout,
    skeleton,
    title_problem,
)
from kbkit.curator.review_notes import NOTE_CITATION
from kbkit.curator.schema import item_schemas
from kbkit.curator.section import check_section, cited_sources, normalize
from kbkit.curator.table import TableRow, TableRows, render_row
from kbkit.infra import clock
from kbkit.infra.charset import INVISIBLE
from kbkit.infra.json_input import loads
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import ERROR
from kbkit.tree.rules import id_regex

REASONS = (
    "reply-invalid",
    "over-max-rules",
    "schema",
    "unknown-target",
    "target-changed",
    "bullet-style-page",
    "rule-id-format",
    "rule-id-prefix",
    "rule-id-taken",
    "rule-id-duplicate",
    "anchor",
    "group",
    "heading",
    "section-shape",
    "bullets",
    "provenance",
    "citation",
    "review-citation",
    "unsafe-text",
    "escape",
    "symlink",
    "link-scheme",
    "link-host",
    "table-row",
    "new-page",
)


class AcceptedProposal(NamedTuple):
    id: str  # SHA-256 of target + "\n" + section (+ table rows): same rule text, same id
    model_index: int  # the row's position in the model reply
    target: str  # document ID
    rule_id: str
    title: str
    after: str | None
    section: str  # normalized, no trailing newline
    citations: tuple[str, ...]
    base_sha256: str
    rationale: str
    group: str | None = None  # a new group heading opened right before the section
    table_rows: tuple[TableRow, ...] = ()  # rows inserted into tables of the target page
    new_page: NewPage | None = None  # the row creates its target (an owner's first rule page)

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["citations"] = list(self.citations)
        data["table_rows"] = [r.to_dict() for r in self.table_rows]
        data["new_page"] = self.new_page.to_dict() if self.new_page else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AcceptedProposal:
        values = dict(data)
        values["citations"] = tuple(values["citations"])
        values.setdefault("group", None)
        values["table_rows"] = tuple(TableRow.from_dict(r) for r in values.get("table_rows") or ())
        new_page = values.get("new_page")
        values["new_page"] = NewPage.from_dict(new_page) if new_page else None
        return cls(**values)


class RejectedProposal(NamedTuple):
    model_index: int
    reason: str  # one of REASONS
    message: str
    target: str | None
    rule_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RejectedProposal:
        return cls(**data)


class KnowledgeProposalValidation(NamedTuple):
    accepted: tuple[AcceptedProposal, ...]
    rejected: tuple[RejectedProposal, ...]
    rows: int  # how many rows the reply held
    reply_error: str | None  # why the reply as a whole was unusable (then rows == 0)

    @property
    def accepted_indexes(self) -> list[int]:
        return [p.model_index for p in self.accepted]

    @property
    def rejected_indexes(self) -> list[int]:
        return [p.model_index for p in self.rejected]

    def to_dict(self) -> dict[str, Any]:
        return {
            "api_version": 1,
            "rows": self.rows,
            "reply_error": self.reply_error,
            "accepted_indexes": self.accepted_indexes,
            "rejected_indexes": self.rejected_indexes,
            "accepted": [p.to_dict() for p in self.accepted],
            "rejected": [p.to_dict() for p in self.rejected],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeProposalValidation:
        return cls(
            tuple(AcceptedProposal.from_dict(p) for p in data["accepted"]),
            tuple(RejectedProposal.from_dict(p) for p in data["rejected"]),
            int(data["rows"]),
            data.get("reply_error"),
        )


def content_id(
    target: str,
    section: str,
    table_rows: tuple[TableRow, ...] = (),
    new_page: NewPage | None = None,
) -> str:
    """SHA-256 of the target and the section (and the table rows, when there are any, and
    the new page's title and index row, when the row creates its page)."""
    text = f"{target}\n{section}"
    if table_rows:
        text += "\n" + json.dumps([r.to_dict() for r in table_rows], ensure_ascii=False)
    if new_page is not None:
        text += "\n" + json.dumps(new_page.wire(), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def parse_reply(reply: Any) -> tuple[list[Any] | None, str | None]:
    """The rows of a reply (a JSON string or an already parsed object)."""
    if isinstance(reply, bytes | bytearray):
        try:
            reply = reply.decode("utf-8")
        except UnicodeDecodeError:
            return None, "the reply is not UTF-8"
    if isinstance(reply, str):
        try:
            reply = loads(reply)
        except ValueError as exc:
            return None, f"the reply is not JSON ({exc})"
    if not isinstance(reply, dict) or set(reply) != {"proposals"}:
        return None, "the reply must be an object with exactly one key, 'proposals'"
    if not isinstance(reply["proposals"], list):
        return None, "'proposals' must be a list"
    return reply["proposals"], None


class _Context(NamedTuple):
    repo: Path
    policy: Policy
    catalog: Catalog
    sources: tuple[str, ...]  # what a marker may cite: source IDs and review note ids
    layouts: dict[str, Layout | None]  # by document ID; None: the page changed
    lines: dict[str, list[str]]  # by document ID: the page's lines (when it did not change)


def _schema_problem(row: Any, schemas: list[dict[str, Any]]) -> str | None:
    from jsonschema import Draft202012Validator  # imported here: only validation needs it

    for schema in schemas:
        errors = sorted(Draft202012Validator(schema).iter_errors(row), key=lambda e: list(e.path))
        if errors:
            error = errors[0]
            where = "/".join(map(str, error.path)) or "row"
            return f"{where}: {error.message[:200]}"
    return None


def _layout(ctx: _Context, page: CatalogPage) -> Layout | None:
    if page.document_id not in ctx.layouts:
        try:
            data = read_page(ctx.repo, ctx.catalog.knowledge_root, page.document_id)
        except (OSError, KnowledgeCurationError):
            data = b""
        if sha256(data) != page.sha256:
            ctx.layouts[page.document_id] = None
        else:
            text = data.decode("utf-8", "replace")
            ctx.lines[page.document_id] = [line.rstrip("\r") for line in text.split("\n")]
            rel = f"{page.document_id}.md"
            ctx.layouts[page.document_id] = page_layout(parse_page(rel, data), ctx.policy)
    return ctx.layouts[page.document_id]


def _unsafe(ctx: _Context, target: str, section: str) -> str | None:
    """Reuse the tree validator's page-level checks on a page holding just the section."""
    from kbkit.checks.knowledge_tree import page_findings

    rel = f"{target}.md"
    page = parse_page(f"{ctx.catalog.knowledge_root}/{rel}", section.encode("utf-8"))
    for finding in page_findings(rel, page, ctx.policy):
        if finding.severity == ERROR:
            return f"{finding.rule_id}: {finding.message}"
    return None


_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_BARE_URL = re.compile(r"(?:https?://|www\.)[^\s<>()]+", re.IGNORECASE)  # GFM autolinks
SAFE_SCHEMES = ("http", "https", "mailto")
_C0_AND_SPACE = "".join(map(chr, range(33)))


def link_problem(text: str, policy: Policy) -> tuple[str, str] | None:
    """(reason, message) for the first link or image of `text` that a proposal may not
    carry, None when every one may (README, "Curator": `link-scheme`, `link-host`).

    Every destination a CommonMark renderer would link (inline, reference, autolink, entity
    escapes decoded, bare `https://`/`www.` URLs as GitHub links them) is checked, also
    those kbkit's own page model drops (`javascript:`, `data:`): relative links, http,
    https, mailto and the policy's `curator.links.schemes` pass; with `curator.links.hosts`
    set, http(s) links must go to one of those hosts or a subdomain; a remote image passes
    only when its host is listed (an image is a file of the tree)."""
    from urllib.parse import urlsplit

    from markdown_it import MarkdownIt  # imported here: only validation needs it

    settings = (policy.data.get("curator") or {}).get("links") or {}
    extra = [str(s).lower() for s in settings.get("schemes") or ()]
    allowed = (*SAFE_SCHEMES, *extra)
    hosts = settings.get("hosts")
    listed = None if hosts is None else [str(h).lower().strip(".") for h in hosts]
    renderer = MarkdownIt("commonmark")
    renderer.validateLink = lambda url: True  # type: ignore[method-assign]  # every link

    def check(url: str, image: bool) -> tuple[str, str] | None:
        # as a browser reads a URL: outer spaces and controls dropped, tabs and newlines too
        clean = "".join(c for c in url if c not in "\t\n\r").strip(_C0_AND_SPACE)
        scheme = _SCHEME.match(clean)
        name = scheme.group(1).lower() if scheme else ""
        shown = clean[:80]
        if name and name not in allowed:
            return "link-scheme", (
                f"{'an image' if image else 'a link'} to {shown!r}: the scheme {name}: is not "
                f"allowed (relative links, {', '.join(allowed)}; the policy's "
                "curator.links.schemes adds schemes)"
            )
        if name not in ("", "http", "https") or not (name or clean.startswith("//")):
            return None  # a relative link, or mailto and the policy's other schemes
        try:
            host = (urlsplit(clean).hostname or "").lower()
        except ValueError:
            return "link-host", f"a link to {shown!r}: not a URL with a host"
        ok = listed is not None and any(host == h or host.endswith("." + h) for h in listed)
        if image and not ok:
            return "link-host", (
                f"a remote image from {host or shown!r}: images are files of the tree (list "
                "the host in the policy's curator.links.hosts to allow it)"
            )
        if listed is not None and not ok:
            return "link-host", (
                f"a link to {host or shown!r}, which is not in the policy's curator.links.hosts"
            )
        return None

    for token in renderer.parse(text):
        depth = 0
        for child in token.children or ():
            found = None
            if child.type == "link_open":
                depth += 1
                found = check(str(child.attrs.get("href", "")), False)
            elif child.type == "link_close":
                depth -= 1
            elif child.type == "image":
                found = check(str(child.attrs.get("src", "")), True)
            elif child.type == "text" and depth == 0:
                for bare in _BARE_URL.findall(child.content):
                    url = bare if "://" in bare else f"https://{bare}"
                    found = found or check(url.rstrip(".,;:!?*_~'\""), False)
            if found is not None:
                return found
    return None


class _Reply:
    """What earlier rows of the same reply left: the page as they leave it, per target."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}  # rule ID -> accepted row (any target)
        self.pages: dict[str, Arrangement] = {}  # target -> its new sections so far
        self.groups: dict[str, set[str]] = {}  # target -> new group headings
        self.rejected: dict[tuple[str, str], RejectedProposal] = {}  # (target, ID or group)
        self.tables: dict[str, TableRows] = {}  # target -> its tables with the new rows
        self.created: dict[str, int] = {}  # new page -> the accepted row that creates it
        self.failed_pages: dict[str, RejectedProposal] = {}  # new page -> its rejected creator

    def table_rows(self, target: str, lines: list[str]) -> TableRows:
        return self.tables.setdefault(target, TableRows(lines))

    def page(self, target: str, layout: Layout) -> Arrangement:
        return self.pages.setdefault(target, Arrangement(layout))

    def accept(self, proposal: AcceptedProposal, spot: Spot, level: int) -> None:
        self.ids[proposal.rule_id] = proposal.model_index
        if proposal.new_page is not None:
            self.created[proposal.target] = proposal.model_index
        tables = self.tables.get(proposal.target)
        for table_row in proposal.table_rows:
            assert tables is not None
            placed = tables.place(table_row)
            assert not isinstance(placed, str)
            tables.add(table_row, *placed)
        entry = Entry(proposal.rule_id, proposal.group, level)
        self.pages[proposal.target].add(spot, entry)
        if proposal.group is not None:
            self.groups.setdefault(proposal.target, set()).add(proposal.group)

    def reject(self, row: Any, rejection: RejectedProposal) -> None:
        if rejection.target is None:
            return
        if isinstance(row, dict) and isinstance(row.get("new_page"), dict):
            self.failed_pages.setdefault(rejection.target, rejection)
        names = [rejection.rule_id]
        if isinstance(row, dict) and isinstance(row.get("group"), str):
            names.append(row["group"].strip())
        for name in names:
            if name:
                self.rejected.setdefault((rejection.target, name), rejection)


def _check_row(
    ctx: _Context, index: int, row: dict[str, Any], earlier: _Reply
) -> tuple[AcceptedProposal | RejectedProposal, Spot | None, int]:
    """The row's outcome, and for an accepted one: where it goes and its heading level."""
    target, rule_id = row["target"], row["rule_id"]

    def reject(reason: str, message: str) -> tuple[RejectedProposal, Spot | None, int]:
        return RejectedProposal(index, reason, message, target, rule_id), None, 0

    page = ctx.catalog.pages.get(target)
    slot = ctx.catalog.new_pages.get(target)
    new_page: NewPage | None = None
    if page is None and slot is None:
        return reject("unknown-target", f"{target!r} is not a rule page of the catalog")
    if not page_inside(ctx.repo, ctx.catalog.knowledge_root, target):
        return reject("escape", "the page (or a folder on its path) is a symlink leaving the clone")
    for written in (target, slot.owner) if slot is not None else (target,):
        part = linked_part(ctx.repo, ctx.catalog.knowledge_root, written)
        if part is not None:
            return reject("symlink", symlink_message(written, part))
    if slot is not None:
        opened = _open_new_page(ctx, row, slot, earlier)
        if opened is not None and not isinstance(opened, NewPage):
            return reject(*opened)
        page, layout, new_page = slot_page(slot), ctx.layouts[target], opened
    elif row.get("new_page") is not None:
        return reject("new-page", "the page exists: new_page is only for a page the catalog offers")
    else:
        assert page is not None
        found = _layout(ctx, page)
        if found is None:
            return reject("target-changed", "the page changed since the catalog was read")
        layout = found
    assert layout is not None
    if layout.style == BULLET_STYLE:
        return reject("bullet-style-page", "the page keeps its rules as bullets, not sections")
    if not id_regex(ctx.policy).match(rule_id):
        return reject("rule-id-format", "the ID does not match the policy's rules.id_pattern")
    prefix = id_prefix(rule_id)
    if page.prefix is not None and prefix != page.prefix:
        return reject("rule-id-prefix", f"the page's rules use the prefix {page.prefix}")
    if page.prefix is None:
        owners = {
            d for i, docs in ctx.catalog.defined.items() if id_prefix(i) == prefix for d in docs
        }
        if owners - {target}:
            return reject("rule-id-prefix", f"{prefix} belongs to {sorted(owners)[0]}")
    if rule_id in ctx.catalog.defined:
        return reject("rule-id-taken", f"already defined in {ctx.catalog.defined[rule_id][0]}")
    if rule_id in earlier.ids:
        return reject(
            "rule-id-duplicate", f"row {earlier.ids[rule_id]} of this reply already uses it"
        )
    after = row["after"]
    if after is not None:
        after = after.strip().lstrip("#").strip() or after.strip()  # "## 2. Safe text" too
    spot = earlier.page(target, layout).locate(after)
    if spot is None:
        failed = earlier.rejected.get((target, after or ""))
        if failed is not None:
            return reject(
                "anchor",
                f"{after!r} is row {failed.model_index} of this reply, which was rejected "
                f"({failed.reason}: {failed.message})",
            )
        return reject("anchor", f"{after!r} is neither a rule section nor a group of the page")
    level = spot.level
    group = row.get("group")
    if group is not None:
        group = group.strip()
        problem_text = _group_problem(group, after, spot, layout, earlier.groups.get(target))
        if problem_text:
            return reject("group", problem_text)
        assert layout.group_rule_level is not None
        level = layout.group_rule_level
    section = normalize(row["section"])
    problem, cited = check_section(
        section,
        rule_id=rule_id,
        title=row["title"],
        level=level,
        separator=page.separator,
        policy=ctx.policy,
    )
    if problem is not None:
        return reject(problem.reason, problem.message)
    known = set(ctx.sources)
    if not cited or not set(cited) <= known:
        return reject(
            "citation",
            f"the marker cites {list(cited)}; only batch events and their review notes may be cited",
        )
    if set(cited) != set(row["citations"]):
        return reject("citation", "'citations' must list exactly the sources the marker cites")
    unsafe = _unsafe(ctx, target, section)
    if unsafe is not None:
        return reject("unsafe-text", unsafe)
    linked = link_problem(section, ctx.policy)
    if linked is not None:
        return reject(*linked)
    table_rows = tuple(
        TableRow(r["heading"], r["table"], r["after_row"], tuple(r["cells"]))
        for r in row.get("table_rows") or ()
    )
    problem_text = _table_problem(table_rows, earlier.table_rows(target, ctx.lines[target]))
    if problem_text is not None:
        return reject("table-row", problem_text)
    for table_row in table_rows:
        unsafe = _unsafe(ctx, target, render_row(table_row.cells))
        if unsafe is not None:
            return reject("unsafe-text", f"a table row: {unsafe}")
        linked = link_problem(render_row(table_row.cells), ctx.policy)
        if linked is not None:
            return reject(linked[0], f"a table row: {linked[1]}")
    accepted = AcceptedProposal(
        content_id(target, section, table_rows, new_page),
        index,
        target,
        rule_id,
        row["title"].strip(),
        after,
        section,
        tuple(row["citations"]),
        page.sha256,
        row["rationale"],
        group,
        table_rows,
        new_page,
    )
    return accepted, spot, level


def review_citation_problem(row: Any, citable: tuple[str, ...]) -> str | None:
    """Why a row cites a review note the batch does not hold (an id shaped
    `<source id>:<anchor>` that no event's discussion carries: invented, or mistyped), in its
    `citations` or its provenance marker; None when every note it cites is there."""
    if not isinstance(row, dict):
        return None
    cited = [c for c in row.get("citations") or () if isinstance(c, str)]
    section = row.get("section")
    if isinstance(section, str) and section.strip():
        cited += cited_sources(normalize(section).split("\n")[-1])
    known = set(citable)
    for citation in cited:
        if NOTE_CITATION.match(citation.strip()) and citation.strip() not in known:
            return (
                f"{citation.strip()[:120]!r} names a review note that no event of the batch "
                "holds; cite a note's id exactly as the evidence shows it"
            )
    return None


def _open_new_page(
    ctx: _Context, row: dict[str, Any], slot: NewPageSlot, earlier: _Reply
) -> NewPage | None | tuple[str, str]:
    """The new page a row creates (None: an earlier row of the reply creates it), or the
    rejection (reason, message). Sets the page's layout and lines in `ctx` as it starts."""
    target, wire = slot.document_id, row.get("new_page")
    if target in earlier.created:
        if wire is not None:
            return "new-page", f"row {earlier.created[target]} of this reply creates the page"
        return None
    if wire is None:
        failed = earlier.failed_pages.get(target)
        if failed is not None:
            return "new-page", (
                f"the page would be created by row {failed.model_index} of this reply, which "
                f"was rejected ({failed.reason}: {failed.message})"
            )
        return "new-page", "the page does not exist yet: its first row carries new_page"
    root = ctx.catalog.knowledge_root
    path = page_path(ctx.repo, root, target)
    if path.exists() or path.is_symlink():
        return "target-changed", "the page exists now (created since the catalog was read)"
    try:
        index_data = read_page(ctx.repo, root, slot.owner)
    except (OSError, KnowledgeCurationError):
        index_data = b""
    if sha256(index_data) != slot.index_sha256:
        return (
            "target-changed",
            f"the owner's index {slot.owner} changed since the catalog was read",
        )
    title = wire["title"]
    problem = title_problem(title)
    if problem is not None:
        return "new-page", problem
    index_row = TableRow.from_dict(wire["index_row"])
    index_lines = [line.rstrip("\r") for line in index_data.decode("utf-8", "replace").split("\n")]
    problem = index_row_problem(index_row, index_lines, slot.file_name)
    if problem is not None:
        return "new-page", problem
    for text in (title, render_row(index_row.cells)):
        unsafe = _unsafe(ctx, target, text)
        if unsafe is not None:
            return "unsafe-text", f"the new page: {unsafe}"
        linked = link_problem(text, ctx.policy)
        if linked is not None:
            return linked[0], f"the new page: {linked[1]}"
    index = parse_page(f"{root}/{slot.owner}.md", index_data)
    base = skeleton(title, index, ctx.policy, clock.today().isoformat())
    if isinstance(base, str):
        return "new-page", base
    rel = f"{root}/{target}.md"
    layout = new_page_layout(page_layout(parse_page(rel, base), ctx.policy), row.get("group"))
    ctx.layouts[target] = layout
    earlier.pages.pop(target, None)  # an earlier, rejected attempt may have chosen another shape
    earlier.tables.pop(target, None)
    ctx.lines[target] = [line.rstrip("\r") for line in base.decode("utf-8").split("\n")]
    return NewPage(title, index_row, slot.owner, slot.index_sha256)


def _table_problem(rows: tuple[TableRow, ...], tables: TableRows) -> str | None:
    """Why these rows cannot go into the page's tables, as earlier rows leave them (checked
    on a copy: a rejected proposal leaves the tables as they were)."""
    trial = tables.copy()
    for number, table_row in enumerate(rows):
        placed = trial.place(table_row)
        if isinstance(placed, str):
            return f"table_rows[{number}]: {placed}"
        trial.add(table_row, *placed)
    return None


def _group_problem(
    group: str, after: str | None, spot: Spot, layout: Layout, new: set[str] | None
) -> str | None:
    """Why a new group heading cannot open here (None: it can)."""
    if layout.group_rule_level is None:
        return "the page's rules are top-level headings: it has no groups"
    if INVISIBLE.search(group) or not group or group.startswith("#") or "\n" in group:
        return "a group heading is one line of plain text"
    if group in {g.text for g in layout.groups} | (new or set()):
        return f"the group {group!r} exists: name it in 'after' instead"
    if spot.opens_group:
        return None
    if not layout.groups and not (new or set()):
        return (
            "the page's rules are all top-level sections: its first group opens after its "
            "last rule ('after' null or the last rule's ID)"
        )
    if after == START:
        return "rules stand before the first group: a group at the start would take them in"
    return "a new group opens after a group, after the last rule of one, or at the end"


def validate_reply(
    reply: Any, batch: KnowledgeEvidenceBatch, catalog: Catalog, repo: Path, policy: Policy
) -> KnowledgeProposalValidation:
    """Check every row of `reply` against the catalog, the batch and the page on disk."""
    rows, error = parse_reply(reply)
    if rows is None:
        return KnowledgeProposalValidation((), (), 0, error)
    ctx = _Context(repo, policy, catalog, batch.citable_ids, {}, {})
    return _check_rows(ctx, rows, batch.max_rules)


def _check_rows(ctx: _Context, rows: list[Any], max_rules: int) -> KnowledgeProposalValidation:
    schemas = item_schemas(ctx.catalog.targets(), list(ctx.sources), max_rules)
    accepted: list[AcceptedProposal] = []
    rejected: list[RejectedProposal] = []
    earlier = _Reply()
    for index, row in enumerate(rows):
        target = row.get("target") if isinstance(row, dict) else None
        rule_id = row.get("rule_id") if isinstance(row, dict) else None
        target = target if isinstance(target, str) else None
        rule_id = rule_id if isinstance(rule_id, str) else None
        if index >= max_rules:
            rejected.append(
                RejectedProposal(
                    index, "over-max-rules", f"at most {max_rules} rules", target, rule_id
                )
            )
            earlier.reject(row, rejected[-1])
            continue
        if target is not None and target not in ctx.catalog.targets():
            # Before the schema's enum says the same less precisely (the documented reason).
            message = f"{target!r} is not a rule page of the catalog"
            rejected.append(RejectedProposal(index, "unknown-target", message, target, rule_id))
            earlier.reject(row, rejected[-1])
            continue
        problem = review_citation_problem(row, ctx.sources)
        if problem is not None:  # before the schema's enum says the same less precisely
            rejected.append(RejectedProposal(index, "review-citation", problem, target, rule_id))
            earlier.reject(row, rejected[-1])
            continue
        if isinstance(row, dict):  # a reply written before these fields existed
            row = {"table_rows": None, "new_page": None, **row}
        problem = _schema_problem(row, schemas)
        if problem is not None:
            rejected.append(RejectedProposal(index, "schema", problem, target, rule_id))
            earlier.reject(row, rejected[-1])
            continue
        outcome, spot, level = _check_row(ctx, index, row, earlier)
        if isinstance(outcome, AcceptedProposal):
            assert spot is not None
            accepted.append(outcome)
            earlier.accept(outcome, spot, level)
        else:
            rejected.append(outcome)
            earlier.reject(row, outcome)
    return KnowledgeProposalValidation(tuple(accepted), tuple(rejected), len(rows), None)


def revalidate(
    validation: KnowledgeProposalValidation, catalog: Catalog, repo: Path, policy: Policy
) -> None:
    """Check again what a validation claims for its accepted rows (a file can be edited):
    catalog membership, section shape, ID, citations, anchors, content-addressed id and base
    SHA. Raises KnowledgeCurationError naming the first row that does not hold."""
    claimed = validation.accepted
    for p in claimed:
        page = catalog.pages.get(p.target)
        if page is not None and page.sha256 != p.base_sha256:
            raise KnowledgeCurationError(
                f"stale: {p.target} changed since the proposals were validated "
                f"(expected {p.base_sha256[:12]}, found {page.sha256[:12]}); "
                "build a new catalog and ask again"
            )
    rows = [
        {
            "target": p.target,
            "rule_id": p.rule_id,
            "title": p.title,
            "after": p.after,
            "group": p.group,
            "section": p.section,
            "citations": list(p.citations),
            "rationale": p.rationale,
            "table_rows": [r.to_dict() for r in p.table_rows] or None,
            "new_page": p.new_page.wire() if p.new_page else None,
        }
        for p in claimed
    ]
    # No batch travels with a validation: each row may cite what the accepted rows cite.
    sources = tuple(sorted({str(c) for p in claimed for c in p.citations}))
    ctx = _Context(repo, policy, catalog, sources, {}, {})
    again = _check_rows(ctx, rows, max(len(rows), 1))
    by_index: dict[int, AcceptedProposal | RejectedProposal] = {
        **{p.model_index: p for p in again.accepted},
        **{r.model_index: r for r in again.rejected},
    }
    for index, proposal in enumerate(claimed):
        outcome = by_index[index]
        where = f"accepted row {proposal.model_index} ({proposal.rule_id} on {proposal.target})"
        if isinstance(outcome, RejectedProposal):
            kinds = {"target-changed": "stale", "escape": "escape", "symlink": "symlink"}
            kind = kinds.get(outcome.reason, "tampered")
            raise KnowledgeCurationError(
                f"{kind}: {where} does not validate: {outcome.reason}: {outcome.message}"
            )
        if outcome.base_sha256 != proposal.base_sha256:
            raise KnowledgeCurationError(
                f"stale: {where} was validated against another version of the page"
            )
        if outcome.id != proposal.id:
            raise KnowledgeCurationError(
                f"tampered: {where}: its id is not the SHA-256 of its target, section and table rows"
            )
        if (
            outcome.section,
            outcome.after,
            outcome.title,
            outcome.table_rows,
            outcome.new_page,
        ) != (
            proposal.section,
            proposal.after,
            proposal.title,
            proposal.table_rows,
            proposal.new_page,
        ):
            raise KnowledgeCurationError(f"tampered: {where} is not in its validated form")
