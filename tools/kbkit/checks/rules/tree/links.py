"""Links of a page: absolute file paths (T9, per page) and broken targets (T10, per tree),
wikilinks included when the policy switches them on (`links.wikilinks`).

Links come from the shared page model (CommonMark: code spans and code blocks hold no links;
images and reference-style links count). Targets resolve against the in-memory tree index.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from kbkit.checks.link_model import (
    Resolver,
    anchor_ids,
    anchor_options,
    anchors_known,
    anchors_on,
    fragment_known,
    has_site_root,
    imports_fact,
    is_site_link,
    labels_on,
    run_resolver,
    served_relative,
    under_base,
    wikilinks_on,
)
from kbkit.checks.rules.tree import LINK_ABSOLUTE, LINK_ANCHOR, LINK_BROKEN
from kbkit.checks.scopes import compiled
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.anchors import slug
from kbkit.pages.page import Page
from kbkit.pages.page_summary import Summary, is_absolute
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding, quote
from kbkit.tree.model import Tree, outside_root


def link_absolute_findings(page: Page, policy: Policy) -> list[Finding]:
    """T9: link targets that are absolute file paths (site-root links `/x` are checked as
    links instead when the policy names a site root)."""
    site = has_site_root(policy)
    return [
        LINK_ABSOLUTE.at(
            page.path,
            link.line,
            f"absolute link {quote(link.target)}: use a path relative to this page",
        )
        for link in page.links
        # (an absolute path starts with a slash or a drive letter's `X:`: the first two
        # characters tell most links apart without a call)
        if (link.target[:1] in "/\\" or link.target[1:2] == ":")
        and is_absolute(link.target)
        and not (site and is_site_link(link.target))
    ]


def broken_link_findings(
    tree: Tree,
    rel: str,
    summary: Summary,
    outside: dict[str, bool] | None = None,
    resolver: Resolver | None = None,
) -> list[Finding]:
    """T10: relative (and site-root) targets that name nothing in the tree under the
    policy's link options (fragments are not checked).

    Targets outside the knowledge root need the file system; `outside` memoizes them.
    """
    memo = {} if outside is None else outside
    files, folders = tree.files, tree.folders
    resolver = resolver or run_resolver(tree)
    findings = []
    anchors = anchors_on(tree.policy)
    wiki = wikilinks_on(tree.policy)
    labels = labels_on(tree.policy)
    if labels:
        findings.extend(label_fragment_findings(tree, rel, resolver))
    for resolved, line, written in tree.facts.get(rel, {}).get("site_links", ()):
        target = resolver.site_target(resolved, written)
        base = resolver.model.base_url
        if target is None and base and is_site_link(written) and not under_base(written, base):
            findings.append(
                LINK_BROKEN.at(
                    tree.repo_path(rel),
                    line,
                    f"broken link {quote(written)}: the site is served under {base}/; "
                    f"write {quote(base + written)}",
                )
            )
        elif target is None:
            if not _looked_up(resolver, rel, written):  # a hook's .GetPage may find it
                findings.append(_broken(tree, rel, line, written, resolved))
        elif anchors and "#" in written:
            target = served_page(tree, resolver, target)
            missing = _anchor_findings(tree, rel, target, line, written)
            if missing and resolver.model.url_map:  # the page of any version may hold it
                others = resolver.site_targets(resolved, written)
                others = [served_page(tree, resolver, other) for other in others]
                if any(
                    _page_anchors(tree, other) is not None  # a page that holds it
                    and not _anchor_findings(tree, rel, other, line, written)
                    for other in others
                ):
                    missing = []
            findings.extend(missing)
    from_url = resolver.model.from_url
    hides = bool(resolver.model.unpublished)  # asked per link only where the site hides some
    for resolved, line, written in summary.links:
        if from_url and served_relative(written, resolver.model):
            continue  # resolved from the page's URL: one of its site links above
        if anchors and "#" in written:
            target = resolver.target(resolved) if not outside_root(resolved) else None
            if target is not None:
                target = served_page(tree, resolver, target)
                findings.extend(_anchor_findings(tree, rel, target, line, written))
        if (resolved in files or resolved in folders) and not (
            hides and resolver.unpublished(resolved)
        ):
            continue
        if outside_root(resolved):
            if resolved not in memo:
                memo[resolved] = tree.exists(resolved) or resolver.is_generated(resolved)
            if memo[resolved]:
                continue
        elif resolved == "" or resolver.target(resolved) is not None:
            continue  # the knowledge root itself, or found under the link options
        elif wiki and resolver.wikilink(_path_of(written), rel) is not None:
            continue  # a vault resolves `[x](name.png)` by name, as it resolves [[name.png]]
        elif labels and "#" not in written and resolver.is_label(written):
            continue  # MyST: `[x](label)` names a label of some page, or genindex
        elif _from_root(written, resolver) is not None:
            continue  # Docusaurus: a page link not beside the page, from the docs' root
        findings.append(_broken(tree, rel, line, written, resolved))
    return findings


def _broken(tree: Tree, rel: str, line: int, written: str, resolved: str) -> Finding:
    where = tree.repo_path(resolved)
    if outside_root(resolved):  # `docs/../static/x.png` is said as `static/x.png`
        where = posixpath.normpath(where)
    return LINK_BROKEN.at(
        tree.repo_path(rel),
        line,
        f"broken link {quote(written)}: nothing at {where}; fix the path or remove the link",
    )


def same_page_anchor_findings(page: Page, policy: Policy) -> list[Finding]:
    """tree/link-anchor for `[x](#fragment)`: the fragment names no id of this page."""
    own = [link for link in page.links if not link.path_part and link.target.startswith("#")]
    if not own or not anchors_known(page, policy) or labels_on(policy):
        return []  # with MyST labels the tree settles them (`fragment_fact`)
    if imports_fact(page.path, page, policy):
        return []  # an imported partial's headings are ids of this page too (not read here)
    known = frozenset(anchor_ids(page, policy))
    return [
        _no_own_anchor(page.path, link.line, link.target)
        for link in own
        if not fragment_known(link.target[1:], known, policy)
    ]


def _no_own_anchor(path: str, line: int, written: str) -> Finding:
    return LINK_ANCHOR.at(
        path, line, f"link {quote(written)}: this page has no heading or anchor {quote(written)}"
    )


def label_fragment_findings(tree: Tree, rel: str, resolver: Resolver) -> list[Finding]:
    """tree/link-anchor for a MyST page's `[x](#fragment)` that names no id of the page
    (the `fragments` fact), no label of any page and no document."""
    findings = []
    folder = rel.rpartition("/")[0]
    for line, written in tree.facts.get(rel, {}).get("fragments", ()):
        name = written[1:]
        if resolver.is_label(name) or resolver.target(f"{folder}/{name}".lstrip("/")):
            continue
        findings.append(_no_own_anchor(tree.repo_path(rel), line, written))
    for line, written in tree.facts.get(rel, {}).get("label_links", ()):
        if not resolver.is_label(written):
            findings.append(
                LINK_BROKEN.at(
                    tree.repo_path(rel),
                    line,
                    f"broken link {quote(written)}: no page defines the label; fix the "
                    "name or remove the link",
                )
            )
    return findings


def wikilink_findings(tree: Tree, rel: str, resolver: Resolver) -> list[Finding]:
    """T10 for `[[Page]]` and `![[file]]`: the name reaches no file (`tree/link-broken`);
    with `links.anchors`, `[[Page#heading]]` must name a heading of that page
    (`tree/link-anchor`; `#^block` references are not checked)."""
    refs = tree.facts.get(rel, {}).get("wikilinks", ())
    if not refs:
        return []
    findings = []
    style = compiled(tree.policy, anchor_options).style if anchors_on(tree.policy) else None
    for name, line, written, embed in refs:
        target = resolver.wikilink(name, rel)
        if target is None:
            findings.append(
                LINK_BROKEN.at(
                    tree.repo_path(rel),
                    line,
                    f"broken wikilink {quote(_as_written(written, embed))}: no file named "
                    f"{quote(name)} in the tree; fix the name or remove the link",
                )
            )
        elif (
            style is not None and "#" in written and _heading_missing(tree, target, written, style)
        ):
            findings.append(
                LINK_ANCHOR.at(
                    tree.repo_path(rel),
                    line,
                    f"wikilink {quote(_as_written(written, embed))}: "
                    f"{tree.repo_path(target)} has no heading "
                    f"{quote(written.rsplit('#', 1)[1].strip())}",
                )
            )
    return findings


def _as_written(written: str, embed: bool) -> str:
    """A wikilink as the page writes it (`[[x]]`, `![[x]]`)."""
    return ("![[" if embed else "[[") + written + "]]"


def _from_root(written: str, resolver: Resolver) -> str | None:
    """With `links.md_from_root`, the page a page link (`x.md`, `x.mdx`) names from the
    knowledge root."""
    model = resolver.model
    path = _path_of(written)
    if not model.md_from_root or not path.endswith(model.page_suffixes) or path.startswith("/"):
        return None
    rel = posixpath.normpath(path)
    return None if outside_root(rel) else resolver.target(rel)


def _path_of(written: str) -> str:
    """The path part of a link target as written (already percent-decoded)."""
    return written.split("#", 1)[0].split("?", 1)[0]


def _heading_missing(tree: Tree, target: str, written: str, style: str) -> bool:
    """`[[Page#Heading]]` names no heading of the page (compared as slugs of the policy's
    `style`; with `#A#B` the last heading counts; `#^block` references and unchecked pages
    pass)."""
    heading = written.rsplit("#", 1)[1].strip()
    known = tree.facts.get(target, {}).get("anchors")
    if not heading or heading.startswith("^") or known is None:
        return False
    return slug(heading, style) not in known and heading.lower() not in known


def _looked_up(resolver: Resolver, rel: str, written: str) -> bool:
    """Whether a relative link that names nothing from the page's URL names a page from the
    page file's folder or from the site root, as a render hook that calls `.GetPage` finds
    it (`links.page_lookup`)."""
    if not resolver.model.page_lookup or is_site_link(written):
        return False
    path = written.split("#", 1)[0].split("?", 1)[0].strip("/")
    if not path:
        return False
    folder = rel.rpartition("/")[0]
    for base in (folder, ""):
        candidate = posixpath.normpath(posixpath.join(base, path))
        if not candidate.startswith("..") and resolver.target(candidate) is not None:
            return True
    return False


def served_page(tree: Tree, resolver: Resolver, target: str) -> str:
    """The page a link to a folder reaches on a site that serves pages at URLs (Hugo's
    section `_index.md`, a folder's `index.md`): its fragment names that page's headings."""
    model = resolver.model
    if target in tree.folders and (model.from_url or model.site_root is not None):
        for name in model.folder_pages:
            page = f"{target}/{name}" if target else name
            if page in tree.facts:
                return page
    return target


def _anchor_findings(tree: Tree, rel: str, target: str, line: int, written: str) -> list[Finding]:
    """tree/link-anchor: the fragment names no anchor of the page the link reaches."""
    known = _page_anchors(tree, target)
    if known is None:
        return []  # not a checked page (or an image, a folder, a file outside the root)
    fragment = written.split("#", 1)[1]  # link targets are already percent-decoded
    if fragment_known(fragment, known, tree.policy):
        return []
    return [
        LINK_ANCHOR.at(
            tree.repo_path(rel),
            line,
            f"link {quote(written)}: {tree.repo_path(target)} has no heading or anchor #{fragment}",
        )
    ]


def _page_anchors(tree: Tree, target: str, depth: int = 0) -> tuple[str, ...] | None:
    """The anchors of a page, with those of the pages it imports (MDX partials, the
    `imports` fact); None when any is unknown."""
    facts = tree.facts.get(target)
    if not facts or "anchors" not in facts:
        return None
    known = tuple(facts["anchors"])
    for imported in facts.get("imports", ()):
        more = _page_anchors(tree, imported, depth + 1) if depth < 4 else None
        if more is None:
            return None
        known += more
    return known


class LinkParts(NamedTuple):
    """What a link finding's message says: the link as written, and the page it reaches."""

    written: str | None  # the target as written (`[[name]]` for a wikilink), to find its column
    target: str | None  # the repo-relative page a broken fragment or path names, if any


_LINK_RULES = ("tree/link-broken", "tree/link-absolute", "tree/link-anchor")
_WRITTEN = lazy(r"^(?:broken |absolute )?(?:wiki)?link '(?P<w>.*?)': ")
_BROKEN_AT = lazy(r": nothing at (?P<t>.+); fix the path or remove the link$")
_ANCHOR_AT = lazy(r": (?P<t>[^:]+?) has no heading(?: or anchor #| ')")


def link_parts(finding: Finding) -> LinkParts | None:
    """Read back a link finding's message (the messages above are its only writer; the tests
    hold both in step), or None for a finding of another rule."""
    if finding.rule_id not in _LINK_RULES:
        return None
    message = finding.message
    written = _WRITTEN.match(message)
    target = _BROKEN_AT.search(message) or _ANCHOR_AT.search(message)
    return LinkParts(
        written["w"] if written else None,
        target["t"] if target else None,
    )
