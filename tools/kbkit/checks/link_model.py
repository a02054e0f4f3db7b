"""How a link target names a file: the policy's `links:` options (issue #12).

- `site_root`: a folder (relative to the knowledge root, `.` for the root itself) that
  site-root links (`/manual/x.html`) start from. Unset, such links are `tree/link-absolute`.
- `extensions`: `{".html": [".html.md", ".md"]}` — a target ending in the key that names
  nothing is tried with each replacement (Middleman pages are linked as the HTML they build);
  the key `""` stands for a last path component without an extension (`/manual/pingdom`).
- `generated`: gitignore globs (knowledge-root paths) of pages the site builds from data,
  not from files (`repos/**`): links to them are never broken.
- `case_insensitive`: letter case is ignored when nothing matches exactly.
- `redirects`: a repo-relative JSON or YAML file mapping old paths to new ones, consulted
  before a link is reported broken (paths starting with `/` are site-root paths);
  `redirects_key` names the key that holds the mapping in a larger site configuration.
- `anchors`: `page.md#fragment` must name a heading of that page (GitHub's slugs) or an
  HTML `id`/`name` on it (`tree/link-anchor`); pages keep their anchors as a fact.
- `wikilinks`: `[[Page]]`, `[[Page|alias]]`, `[[Page#heading]]`, `[[folder/Page]]` and
  `![[embed.png]]` are links, resolved by file name the way Obsidian does
  (`Resolver.wikilink`); pages keep them as a fact (`wikilinks`), so the snapshot's
  per-page digest covers them. `vault_per_root`: each folder of `roots` is a vault of its
  own (one per language in obsidian-help): names resolve inside the page's root only.
  `aliases`: a page's frontmatter `aliases:` also name it (`[[alias]]`), as Obsidian
  Publish and obsidian-help's own link checker accept; Obsidian's editor does not.
  With wikilinks on, a markdown link `[x](name.png)` whose path names nothing is also
  resolved by name (Obsidian resolves both link forms alike).

Site-root links are page facts (`site_links`), so cached pages and result snapshots carry
them; the redirects file's digest is part of the snapshot's namespace.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.infra import json_input
from kbkit.infra.config_file import read_config_bytes, read_config_text
from kbkit.infra.errors import UsageError
from kbkit.pages.link import EMBED
from kbkit.pages.page import Page
from kbkit.pages.page_summary import LinkRef
from kbkit.policy.model import Policy
from kbkit.tree.model import Tree

MAX_REDIRECT_HOPS = 8
MAX_REDIRECTS_BYTES = 8 * 1024 * 1024


class LinkModel(NamedTuple):
    site_root: str | None  # knowledge-root-relative ("" = the root), None = not a site
    extensions: tuple[tuple[str, tuple[str, ...]], ...]
    case_insensitive: bool
    redirects: str | None  # repo-relative file
    generated: tuple[str, ...] = ()  # gitignore globs of pages built from data

    @property
    def active(self) -> bool:
        """Whether any option changes how a target resolves."""
        return bool(self.extensions or self.case_insensitive or self.redirects or self.generated)


def link_model(policy: Policy) -> LinkModel:
    """The policy's link options."""
    links = policy.data.get("links") or {}
    root = links.get("site_root")
    site_root = None if root is None else _clean(str(root))
    extensions = tuple(
        (str(suffix), tuple(map(str, targets)))
        for suffix, targets in (links.get("extensions") or {}).items()
    )
    redirects = links.get("redirects")
    return LinkModel(
        site_root,
        extensions,
        bool(links.get("case_insensitive")),
        redirects and str(redirects),
        tuple(map(str, links.get("generated") or ())),
    )


def has_site_root(policy: Policy) -> bool:
    """Whether the policy names a site root (`link_model(policy).site_root is not None`,
    asked per page without building the whole model)."""
    return (policy.data.get("links") or {}).get("site_root") is not None


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
    return "" if cleaned == "." else cleaned


def is_site_link(target: str) -> bool:
    """`/x`: a path from the site root (not `//host/x`, not `\\x`)."""
    return target.startswith("/") and not target.startswith("//")


def site_links(page: Page, policy: Policy) -> tuple[LinkRef, ...]:
    """The page's site-root links resolved against the site root (none when unset)."""
    if not has_site_root(policy):
        return ()
    root = link_model(policy).site_root
    if root is None:
        return ()
    return tuple(
        (_clean(posixpath.join(root, link.path_part.lstrip("/"))), link.line, link.target)
        for link in page.links
        if is_site_link(link.target) and not link.is_external
    )


# (name as written before `#`, line, target as written with its #heading, embed?)
WikiRef = tuple[str, int, str, bool]


def wikilinks_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("wikilinks"))


def wikilink_refs(page: Page, policy: Policy) -> tuple[WikiRef, ...]:
    """The page's wikilinks and embeds as facts (none unless `links.wikilinks` is on)."""
    if not wikilinks_on(policy):
        return ()
    return tuple(
        (
            sys.intern(wikilink_name(link.path_part)),
            link.line,
            link.target.rstrip("\\").strip(),  # `[[Page#h\|alias]]` in a table
            link.kind == EMBED,
        )
        for link in page.wikilinks
    )


def wikilink_aliases(page: Page, policy: Policy) -> tuple[str, ...]:
    """The page's frontmatter `aliases` (text only) when `links.aliases` is on."""
    if not wikilinks_on(policy) or not (policy.data.get("links") or {}).get("aliases"):
        return ()
    value = page.meta.get("aliases")
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return tuple(
        str(v).strip() for v in values if isinstance(v, (str, int, float)) and str(v).strip()
    )


def wikilink_name(written: str) -> str:
    """The file name part of a wikilink: `\\` before a table's `|` and spaces dropped."""
    return written.rstrip("\\").strip()


class Resolver:
    """Finds the file or folder a root-relative target names under the policy's options."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.model = link_model(tree.policy)
        self._lower: dict[str, str] | None = None
        self._redirects: dict[str, str] | None = None
        self._generated: Any = None
        self._names: dict[str, list[str]] | None = None
        self._aliases: dict[str, list[str]] | None = None

    def exists(self, rel: str) -> bool:
        return rel == "" or rel in self.tree.files or rel in self.tree.folders

    def target(self, rel: str) -> str | None:
        """The existing path `rel` names, or None."""
        if self.exists(rel):
            return rel
        if not self.model.active:
            return None
        seen = {rel}
        for _ in range(MAX_REDIRECT_HOPS):
            found = self._direct(rel)
            if found is not None:
                return found
            if self._is_generated(rel):
                return rel
            moved = self.redirects().get(rel)
            if moved is None or moved in seen:
                return None
            if moved == _EXTERNAL:
                return rel  # redirected off the site: nothing here to check
            seen.add(moved)
            rel = moved
        return None

    def wikilink(self, name: str, source: str) -> str | None:
        """The file `[[name]]` on page `source` opens in Obsidian, or None.

        `./x` and `../x` are relative to the page's folder; any other name is first a path
        from the root, then the end of a path (`folder/Page` ends `a/folder/Page.md`),
        `.md` implied. Several files ending so: the one in the page's own folder, else the
        one with the shortest path (fewest folders, then fewest characters, then by name).
        Letter case counts unless `links.case_insensitive` is on (Obsidian ignores it).
        """
        if not name:
            return source  # [[#heading]]: the page itself
        fold = self.model.case_insensitive
        if name.startswith(("./", "../")):
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(source), name))
            return self._file(rel) or self._file(rel + ".md")
        vault = self._vault(source)
        name = name.strip("/")
        found = self._file(vault + name) or self._file(vault + name + ".md")
        if found is not None:
            return found
        wanted = name.lower() if fold else name
        base = wanted.rsplit("/", 1)[-1]
        candidates = []
        for path in self._by_name().get(base.lower(), ()):
            key = path.lower() if fold else path
            if vault and not path.startswith(vault):
                continue
            for ending in (wanted, wanted + ".md"):
                if key == ending or key.endswith("/" + ending):
                    candidates.append(path)
                    break
        if not candidates and "/" not in name:
            candidates = [p for p in self._by_alias().get(name.lower(), ()) if p.startswith(vault)]
        if not candidates:
            return None
        folder = posixpath.dirname(source)
        near = [path for path in candidates if posixpath.dirname(path) == folder]
        return min(near or candidates, key=lambda p: (p.count("/"), len(p), p))

    def _vault(self, source: str) -> str:
        """The folder (with its `/`) names resolve in: the page's root with
        `links.vault_per_root`, else the knowledge root ("")."""
        if not (self.tree.policy.data.get("links") or {}).get("vault_per_root"):
            return ""
        for root in self.tree.policy.data.get("roots") or ():
            prefix = str(root).strip("/") + "/"
            if source.startswith(prefix):
                return prefix
        return ""

    def _file(self, rel: str) -> str | None:
        if rel in self.tree.files:
            return rel
        if self.model.case_insensitive:
            hit = self._lowered().get(rel.lower())
            if hit is not None and hit in self.tree.files:
                return hit
        return None

    def _by_alias(self) -> dict[str, list[str]]:
        """Pages by lower-cased frontmatter alias (`links.aliases`; empty otherwise)."""
        if self._aliases is None:
            self._aliases = {}
            for rel, facts in self.tree.facts.items():
                for alias in facts.get("aliases", ()):
                    self._aliases.setdefault(alias.lower(), []).append(rel)
        return self._aliases

    def _by_name(self) -> dict[str, list[str]]:
        """Files by lower-cased base name, `.md` pages also without their extension."""
        if self._names is None:
            self._names = {}
            for path in self.tree.files:
                base = path.rsplit("/", 1)[-1].lower()
                self._names.setdefault(base, []).append(path)
                if base.endswith(".md"):
                    self._names.setdefault(base[:-3], []).append(path)
        return self._names

    def _is_generated(self, rel: str) -> bool:
        if not self.model.generated:
            return False
        if self._generated is None:
            import pathspec

            self._generated = pathspec.GitIgnoreSpec.from_lines(self.model.generated)
        return bool(self._generated.match_file(rel))

    def _direct(self, rel: str) -> str | None:
        candidates = [rel]
        bare = "." not in rel.rsplit("/", 1)[-1]
        for suffix, replacements in self.model.extensions:
            if (rel.endswith(suffix) and suffix) or (not suffix and bare):
                stem = rel[: len(rel) - len(suffix)]
                candidates.extend(stem + replacement for replacement in replacements)
        for candidate in candidates:
            if self.exists(candidate):
                return candidate
        if self.model.case_insensitive:
            lower = self._lowered()
            for candidate in candidates:
                hit = lower.get(candidate.lower())
                if hit is not None:
                    return hit
        return None

    def _lowered(self) -> dict[str, str]:
        if self._lower is None:
            self._lower = {}
            for name in sorted(self.tree.folders) + sorted(self.tree.files):
                self._lower.setdefault(name.lower(), name)
        return self._lower

    def redirects(self) -> dict[str, str]:
        if self._redirects is None:
            self._redirects = load_redirects(self.tree.repo, self.tree.policy)
        return self._redirects


_EXTERNAL = "\0external"


def load_redirects(repo: Path, policy: Policy) -> dict[str, str]:
    """The redirects file as root-relative old path -> new path (or an external marker)."""
    model = link_model(policy)
    if not model.redirects:
        return {}
    path = repo / model.redirects
    text = _read(path)
    from kbkit.policy.schema import check_expansion

    try:
        if path.suffix == ".json":
            data: Any = json_input.loads(text)
        else:
            check_expansion(text, str(path), "redirects file")
            from kbkit.pages.frontmatter import FrontmatterLoader

            data = yaml.load(text, Loader=FrontmatterLoader)  # noqa: S506 - a safe loader
    except (ValueError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: the redirects file is not valid JSON or YAML ({exc})") from exc
    key = (policy.data.get("links") or {}).get("redirects_key")
    if key is not None:  # the mapping is one key of a larger site configuration
        if not isinstance(data, dict) or not isinstance(data.get(key), dict):
            raise UsageError(f"{path}: no mapping under the key {key!r} (links.redirects_key)")
        data = data[key]
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise UsageError(f"{path}: the redirects file must map old paths to new paths (text)")
    root = model.site_root or ""
    return {_place(old, root): _place(new, root) for old, new in data.items()}


def _place(path: str, site_root: str) -> str:
    if "://" in path or path.startswith(("mailto:", "//")):
        return _EXTERNAL
    path = path.split("#", 1)[0].split("?", 1)[0]
    return _clean(posixpath.join(site_root, path.lstrip("/")) if path.startswith("/") else path)


def _read(path: Path) -> str:
    return read_config_text(path, MAX_REDIRECTS_BYTES, "the redirects file")


def redirects_digest(repo: Path, policy: Policy) -> str:
    """What the result snapshot must know of the redirects file (its bytes' hash)."""
    model = link_model(policy)
    if not model.redirects:
        return ""
    data = read_config_bytes(repo / model.redirects, MAX_REDIRECTS_BYTES, "the redirects file")
    return hashlib.sha256(data).hexdigest()


_HTML_ID = re.compile(r"""<[a-zA-Z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']""")


def github_slugs(page: Page) -> tuple[str, ...]:
    """The anchors a `page.md#fragment` link may name: GitHub's heading anchors (the
    parser's `Page.anchors()`) and explicit HTML `id`/`name` anchors."""
    out = list(page.anchors())
    if "id" in page.text or "name" in page.text:
        out.extend(match.group(1) for match in _HTML_ID.finditer(page.text))
    return tuple(out)


def anchors_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("anchors"))
