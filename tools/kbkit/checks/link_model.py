"""How a link target names a file: the policy's `links:` options (issue #12).

- `site_root`: a folder (relative to the knowledge root, `.` for the root itself) that
  site-root links (`/manual/x.html`) start from. Unset, such links are `tree/link-absolute`.
- `absolute_urls`: `/x` is a URL of the site the tree is published in, never a file path
  (DocFX and Microsoft Learn: `/azure/x` is another docset of the same site); without
  `site_root` or a `url_map` prefix that matches, such a link is not checked.
- `url_map`: site path prefixes -> folders under the knowledge root (`/powershell/scripting/:
  docs-conceptual`, DocFX's `src`/`dest`); a list of folders is tried in order (one per
  version of the docs). Letter case is ignored in the prefix, the query (`?view=...`) and
  fragment are cut. A site-root link no prefix matches belongs to another part of the site
  and is not checked (unless `site_root` is set too). `url_shared` lists prefixes other
  docsets publish under as well (Learn's `/powershell/module/`): a link whose first name
  after the prefix is none of the mapped folders' is theirs, not checked.
- `backslash`: `..\\build\\x.md` names `../build/x.md`, as DocFX reads it.
- `relative_from: url`: a relative link resolves from the page's URL as the site serves it,
  not from the file's folder (Hugo): a page `a/b.md` is served at `/a/b/`, so `../x/` names
  `/a/x/`; a folder's own page (`url_folder_pages`, default `_index.md` and `index.md`) is
  served at its folder's URL. Such links are site links of the page (`site_links`). With
  `md_from_file`, a link to a `.md` file still resolves from the file's folder (a link
  render hook rewrites it to the page's URL); without it, `x.md` is the URL `/a/b/x.md`,
  which the site does not serve. With `page_lookup` (a Hugo link render hook that looks
  destinations up with `.GetPage`), a relative link that names nothing from the page's URL
  names the page it names from the page file's folder, else from the site root. With
  `folder_page_only` (Jekyll), a link to a folder URL `x/` reaches it only when a page
  serves it (its `url_folder_pages` page, or a page `x.md` at `x/`): the site lists no folder.
  `hook_destinations` (Hugo): destinations a link render hook compares with a literal and
  handles itself (hugoDocs' `[term](g)`, a glossary link): not paths, not checked.
  `liquid_links` (Jekyll): a link written with the `link` tag (`{% link docs/x.md %}`, after
  `{{ site.baseurl }}` or not) names that file of the site's source, and `{% post_url x %}`
  the post `_posts/x.*`: Jekyll fails the build when there is none.
- `page_url: file`: with `relative_from: url`, a page `a/b.md` is served at `/a/b.html`
  (Jekyll's default permalinks), so its relative links resolve from `/a/`; `folder` (the
  default) serves it at `/a/b/`; `pretty_folders` (knowledge-root folders) are served
  the `folder` way all the same (a Jekyll collection whose `permalink` ends in `/`).
  `permalink_key`: the front matter key that gives a page
  its own URL (Jekyll's `permalink:`): its relative links resolve from that URL, a site link
  to that URL reaches it, and a site link to its file's own URL does not (the site serves
  it elsewhere); `redirect_from_key` the key of the URLs that redirect to the page
  (jekyll-redirect-from's `redirect_from:`): a site link to one reaches it. `base_url`: the path the site is served under (Jekyll's `baseurl`): a site
  link `/base/x` names `/x`, and a site link outside it leaves the site (broken).
- `trailing_slash: false` (with `relative_from: url`, Docusaurus): a page `a/b.md` is
  served at `/a/b`, so `./x` and `x` from it name `/a/x`; a folder's own page
  (`url_folder_pages`, and with `url_folder_named` a page named as its folder, `a/a.md`) at
  `/a/`. `url_key` names the frontmatter key that sets a page's URL (`slug: /x` from the
  URL the knowledge root is served at, `slug: x` from the page's folder), `url_id_key` the
  key that replaces the file name (`id: x`); with `number_prefixes`, `01-intro.md` and
  `02-guide/` are served as `intro` and `guide/`. A page served elsewhere than its path
  keeps its URL as a fact (`url`). `assets_from_file`: a relative link whose last name has
  an extension (`./x.md`, `../img/a.png`) names a file beside the page (only names without
  one are URLs); `md_from_root`: a page link (`x.md`, `x.mdx`) that names nothing beside
  the page is looked up from the knowledge root too, as Docusaurus does.
- `site_files`: folders (relative to the knowledge root; `../static` may lead out of it,
  not out of the repository) whose files the site serves from its URL root, as Hugo and
  Docusaurus serve `static/`: a site link `/img/x.png` may name `../static/img/x.png`.
- `own_urls`: URL prefixes that show the repository's own files from its top
  (`https://github.com/o/r/blob/main/`, found by `kb init` in a GitHub-rendered tree's own
  links; `kbkit.sites.own_urls`): a link that starts with one names the file at the rest of
  its URL, checked (and counted as an inbound link) like a relative one; a file outside the
  knowledge root is not checked. They are site links of the page (`site_links`).
- `extensions`: `{".html": [".html.md", ".md"]}` — a target ending in the key that names
  nothing is tried with each replacement (Middleman pages are linked as the HTML they build);
  the key `""` stands for a name written without the page's extension (`/manual/pingdom`,
  `about_Types.ps1xml` for `about_Types.ps1xml.md`); a key that is a whole file name
  (`index.html: [README.md]`, mdBook's folder index) matches that name only.
- `generated`: gitignore globs (knowledge-root paths) of pages the site builds from data,
  not from files (`repos/**`), or publishes beside this tree (`../std/**`: the books a
  Rust book links as siblings): links to them are never broken.
- `case_insensitive`: letter case is ignored when nothing matches exactly.
- `redirects`: repo-relative files the site's redirects come from (`kbkit.checks.
  redirect_files`: a mapping, Learn's redirection lists or the publishing configuration
  naming them, mkdocs-redirects in `mkdocs.yml`, mdBook's `book.toml`), consulted before a
  link is reported broken; `redirects_key` names the key that holds a mapping in a larger
  site configuration.
- `anchors`: `page.md#fragment` and `#fragment` must name an id of that page
  (`tree/link-anchor`): its headings' slugs in the `slugs` style (`github`,
  `python-markdown`, `mdbook`, `docfx`; `kbkit.pages.anchors`), HTML `id`/`name`
  attributes, footnote ids, with `attr_list` the `{ #id }` of attribute lists, with
  `tabbed` pymdownx.tabbed's tab ids; fragments that match `anchor_ignore` (a regex, from
  the fragment's start) are not checked. Pages keep their ids as a fact.
- `labels` (MyST, as Sphinx resolves `[text](target)`): a target that names no file names a
  label defined on any page (`(label)=`, a directive's `:name:`; `kbkit.sites.myst`), or
  one of the pages Sphinx always builds (`genindex`, `modindex`, `search`); a `#fragment`
  the page does not hold may name such a label too, and `page.md#label` names a label of
  that page. Pages keep their labels as a fact (`labels`), and the same-page fragments
  only the whole tree can settle as another (`fragments`).
- `heading_depth`: only headings up to this level take slug ids (MyST's
  `myst_heading_anchors`; 0: none); unset, every heading does.
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
them; the redirects files' digest is part of the snapshot's namespace.
"""

from __future__ import annotations

import contextlib
import functools
import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from kbkit.checks.redirect_files import EXTERNAL, configured, load_redirects
from kbkit.checks.repeated_pages import remembered
from kbkit.checks.scopes import compiled
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages import anchors
from kbkit.pages.link import EMBED
from kbkit.pages.mdx import is_mdx
from kbkit.pages.page import Page
from kbkit.pages.page_summary import LinkRef, is_absolute
from kbkit.policy.model import Policy
from kbkit.tree.model import Tree, outside_root

if TYPE_CHECKING:
    from kbkit.sites.site import Labels, Queries

MAX_REDIRECT_HOPS = 8
T = TypeVar("T")


class LinkModel(NamedTuple):
    site_root: str | None  # knowledge-root-relative ("" = the root), None = not a site
    extensions: tuple[tuple[str, tuple[str, ...]], ...]
    case_insensitive: bool
    redirects: tuple[str, ...]  # repo-relative files
    generated: tuple[str, ...] = ()  # gitignore globs of pages built from data
    url_map: tuple[tuple[str, tuple[str, ...]], ...] = ()  # site prefix -> folders, longest first
    backslash: bool = False  # `..\\x\\y.md` is `../x/y.md`
    shared: tuple[str, ...] = ()  # url_map prefixes other docsets publish under too
    from_url: bool = False  # relative links resolve from the page's URL (`relative_from: url`)
    folder_pages: tuple[str, ...] = ()  # pages served at their folder's URL
    md_from_file: bool = False  # with from_url: `.md` targets still resolve from the file
    site_files: tuple[str, ...] = ()  # root-relative folders the site serves at its URL root
    page_url: str = "folder"  # with from_url: a/b.md served at /a/b/ (folder) or /a/b.html (file)
    permalink_key: str | None = None  # the front matter key naming a page's own URL
    base_url: str = ""  # the path the site is served under ("/proj"), "" for the host's root
    unpublished: tuple[str, ...] = ()  # gitignore globs of files the site does not publish
    trailing_slash: bool = True  # with from_url: `a/b.md` at `/a/b/` (else at `/a/b`)
    url_key: str = ""  # the frontmatter key that sets a page's URL (`slug`)
    url_id_key: str = ""  # the frontmatter key that replaces the file name (`id`)
    number_prefixes: bool = False  # `01-intro.md` is served as `intro`
    folder_named: bool = False  # `a/a.md` is served at its folder's URL
    assets_from_file: bool = False  # `x.ext` (any extension) resolves from the file
    md_from_root: bool = False  # a page link not found beside the page: from the root too
    page_suffixes: tuple[str, ...] = (".md",)  # the policy's `pages.extensions`
    pretty_folders: tuple[str, ...] = ()  # with page_url file: folders served at /a/b/ still
    redirect_from_key: str | None = None  # front matter key of the URLs that redirect to a page
    page_lookup: bool = False  # a relative link not found from the URL: file folder, then root
    folder_page_only: bool = False  # with from_url: `x/` reaches a folder only with its own page
    liquid_links: bool = False  # `{% link x.md %}` and `{% post_url x %}` name source files
    hook_destinations: tuple[str, ...] = ()  # destinations a link render hook handles itself
    own_urls: tuple[str, ...] = ()  # URL prefixes that show the repository's own files

    def file_url(self, rel: str) -> bool:
        """Whether the page (or target) at root-relative `rel` is served at `/a/b.html`."""
        return self.page_url == "file" and not any(
            rel == folder or rel.startswith(folder + "/") for folder in self.pretty_folders
        )

    @property
    def active(self) -> bool:
        """Whether any option changes how a target resolves."""
        return bool(
            self.extensions
            or self.case_insensitive
            or self.redirects
            or self.generated
            or self.url_map
            or self.backslash
        )


def link_model(policy: Policy) -> LinkModel:
    """The policy's link options."""
    links = policy.data.get("links") or {}
    root = links.get("site_root")
    site_root = None if root is None else _clean(str(root))
    extensions = tuple(
        (str(suffix), tuple(map(str, targets)))
        for suffix, targets in (links.get("extensions") or {}).items()
    )
    url_map = sorted(
        (
            _prefix(str(prefix)),
            tuple(_clean(str(f)) for f in ([folders] if isinstance(folders, str) else folders)),
        )
        for prefix, folders in (links.get("url_map") or {}).items()
    )
    return LinkModel(
        site_root,
        extensions,
        bool(links.get("case_insensitive")),
        configured(policy),
        tuple(map(str, links.get("generated") or ())),
        tuple(sorted(url_map, key=lambda item: -len(item[0]))),
        bool(links.get("backslash")),
        tuple(_prefix(str(p)).lower() for p in links.get("url_shared") or ()),
        links.get("relative_from") == "url",
        tuple(map(str, links.get("url_folder_pages") or ("_index.md", "index.md"))),
        bool(links.get("md_from_file")),
        tuple(_clean(str(f)) for f in links.get("site_files") or ()),
        str(links.get("page_url") or "folder"),
        str(links["permalink_key"]) if links.get("permalink_key") else None,
        _base(str(links.get("base_url") or "")),
        tuple(map(str, policy.data.get("unpublished") or ())),
        links.get("trailing_slash") is not False,
        str(links.get("url_key") or ""),
        str(links.get("url_id_key") or ""),
        bool(links.get("number_prefixes")),
        bool(links.get("url_folder_named")),
        bool(links.get("assets_from_file")),
        bool(links.get("md_from_root")),
        policy.page_suffixes,
        tuple(_clean(str(f)) for f in links.get("pretty_folders") or ()),
        str(links["redirect_from_key"]) if links.get("redirect_from_key") else None,
        bool(links.get("page_lookup")),
        bool(links.get("folder_page_only")),
        bool(links.get("liquid_links")),
        tuple(map(str, links.get("hook_destinations") or ())),
        tuple(map(str, links.get("own_urls") or ())),
    )


def _base(url: str) -> str:
    """`/proj` for `proj/`, `/proj` or `/proj/`; "" for none or `/`."""
    cleaned = _clean(url)
    return "/" + cleaned if cleaned else ""


def _prefix(path: str) -> str:
    return ("/" + path.strip("/") + "/").replace("//", "/")


@functools.lru_cache(maxsize=8192)  # a docset's pages repeat the same few site paths
def site_candidates(model: LinkModel, path: str) -> tuple[str, ...] | None:
    """The root-relative paths a site path (`/x/y`, query and fragment cut) may name, first
    choice first: through the longest `url_map` prefix (letter case ignored), else from the
    site root. None: a path of another part of the site (no prefix matches and no site root
    is set), which this tree cannot check."""
    path = path.split("#", 1)[0].split("?", 1)[0]
    if model.base_url and under_base(path, model.base_url):
        path = path[len(model.base_url) :] or "/"
    if model.url_map:
        lowered = path.lower()
        for prefix, folders in model.url_map:
            if lowered.startswith(prefix.lower()) or lowered + "/" == prefix.lower():
                rest = path[len(prefix) :]
                if outside_root(_clean(rest)):  # climbs above the prefix: its first folder's
                    folders = folders[:1]
                return tuple(_clean(posixpath.join(folder, rest)) for folder in folders)
    if model.site_root is None:
        return None
    return (_clean(posixpath.join(model.site_root, path.lstrip("/"))),)


def under_base(path: str, base: str) -> bool:
    """Whether a site path lies under the site's base URL (`/proj/x`, `/proj`)."""
    return path == base or path.startswith(base + "/")


def _whole_name(rel: str, name: str) -> bool:
    """Whether the file name of `rel` is `name` (`x/index.html`, not `x/myindex.html`)."""
    return rel == name or rel.endswith("/" + name)


def has_site_root(policy: Policy) -> bool:
    """Whether site-root links (`/x`) are this tree's links: the policy names a site root
    or a URL map (asked per page without building the whole model)."""
    links = policy.data.get("links") or {}
    return (
        links.get("site_root") is not None
        or bool(links.get("url_map"))
        or bool(links.get("absolute_urls"))
    )


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
    return "" if cleaned == "." else cleaned


def is_site_link(target: str) -> bool:
    """`/x`: a path from the site root (not `//host/x`, not `\\x`)."""
    return target.startswith("/") and not target.startswith("//")


def site_links(page: Page, policy: Policy, rel: str | None = None) -> tuple[LinkRef, ...]:
    """The page's site-root links resolved against the site root (none when unset); with
    `relative_from: url`, its relative links too, resolved from the URL the page at the
    root-relative `rel` is served at."""
    site = has_site_root(policy)
    if not site and not (policy.data.get("links") or {}).get("own_urls"):
        return ()
    model = compiled(policy, link_model)
    own = _own_url_links(page, model, policy.knowledge_root) if model.own_urls else []
    if not site:
        return tuple(own)
    base = None
    if model.from_url and rel is not None:
        base = served_folder(rel, model, permalink_of(page, model), page.meta)
    out = []
    if model.liquid_links and "{%" in page.text:
        out.extend(_generator_links(page, model))
    for link in page.links:
        if base is None and link.target[:1] != "/":
            continue  # only a site-root link is one when relative links resolve from the file
        if link.is_external or "{{" in link.target or "{%" in link.target:
            continue  # template code in it: the build writes that URL (`/docs/{{% param v %}}/`)
        if link.target in model.hook_destinations:
            continue  # a word a link render hook gives its own meaning (`[term](g)`)
        if is_site_link(link.target):
            path = link.path_part
        elif base is not None and served_relative(link.target, model):
            if model.base_url:  # above a base URL, a link leaves the site: no normalizing
                path = posixpath.join(base, link.path_part)
            else:
                path = _url_join(base, link.path_part)
        else:
            continue
        found = site_candidates(model, path)
        if found is not None:  # else another part of the site: not checked here
            out.append((found[0], link.line, link.target))
    return tuple(out + own)


def _own_url_links(page: Page, model: LinkModel, root: str) -> list[LinkRef]:
    """The page's links to its own repository's files by their forge URL (`own_urls`:
    `https://github.com/o/r/blob/main/docs/x.md#y` names `docs/x.md`), as knowledge-root
    paths; a file outside the knowledge root is not checked here."""
    top = _clean(root)
    out = []
    for link in page.links:
        if not link.is_external:
            continue
        prefix = next((p for p in model.own_urls if link.target.startswith(p)), None)
        if prefix is None:
            continue
        path = _clean(link.target[len(prefix) :].split("#", 1)[0].split("?", 1)[0])
        if top and path != top and not path.startswith(top + "/"):
            continue  # outside the tree (source code, the repository's README)
        out.append((path[len(top) :].lstrip("/") if top else path, link.line, link.target))
    return out


def _generator_links(page: Page, model: LinkModel) -> list[LinkRef]:
    """The links written in template syntax only the site's generator has (`liquid_links`:
    tags that name a source file, from the site's source folder), outside code."""
    from kbkit.sites import every

    return [
        (posixpath.join(model.site_root or "", path), line, written)
        for page_links in every("page_links")
        for path, line, written in page_links(page)
    ]


def _page_link_file(resolved: str, written: str, tree: Tree) -> str | None:
    """The file a link in the generator's own syntax (`_generator_links`) names: its path,
    or, where the generator says the link leaves the suffix out, the first file of that
    path and any suffix (None: no such file)."""
    from kbkit.sites import every

    if any(stem_only(written) for stem_only in every("link_names_stem")):
        prefix = resolved + "."
        return next((f for f in sorted(tree.files) if f.startswith(prefix)), None)
    return resolved if tree.exists(resolved) else None


def permalink_of(page: Page, model: LinkModel) -> str | None:
    """The URL path the page's front matter gives it (`permalink_key`), base URL aside."""
    if model.permalink_key is None:
        return None
    value = page.meta.get(model.permalink_key)
    if not isinstance(value, str) or not value.strip() or "://" in value or ":" in value:
        return None  # unset, or a pattern (`/:path/`) the generator fills in
    return "/" + value.strip().lstrip("/")


def page_permalink(page: Page, policy: Policy) -> str | None:
    """The URL the page's front matter gives it (a fact: other pages' links reach it there),
    when the policy names a `permalink_key`."""
    links = policy.data.get("links") or {}
    if not links.get("permalink_key") or not has_site_root(policy):
        return None
    return permalink_of(page, compiled(policy, link_model))


def page_redirects(page: Page, policy: Policy) -> tuple[str, ...]:
    """The site URLs that redirect to the page (`redirect_from_key`: jekyll-redirect-from's
    `redirect_from:`, one URL or a list), a fact: other pages' links reach it there too."""
    key = (policy.data.get("links") or {}).get("redirect_from_key")
    if not key or not has_site_root(policy):
        return ()
    value = page.meta.get(str(key))
    urls = value if isinstance(value, list) else [value]
    return tuple(
        "/" + url.strip().lstrip("/")
        for url in urls
        if isinstance(url, str) and url.strip() and "://" not in url
    )


def permalink_path(url: str) -> str:
    """The root-relative path a permalink is looked up by: `/a/b/`, `/a/b.html` and
    `/a/b/index.html` are all `a/b`."""
    path = _clean(url)
    for suffix in ("/index.html", ".html"):
        if path.endswith(suffix) or path == suffix.lstrip("/"):
            path = path[: -len(suffix)]
            break
    return _clean(path)


def _url_join(base: str, path: str) -> str:
    """A relative URL path resolved from a URL folder, `..` applied (`/docs/next/a/` and
    `../../x` give `/docs/x`), a trailing `/` kept."""
    joined = posixpath.normpath(posixpath.join(base, path))
    joined = "/" + joined.lstrip("/")  # (normpath keeps a leading `//`)
    return joined + "/" if path.endswith("/") and joined != "/" else joined


def served_folder(
    rel: str, model: LinkModel, permalink: str | None = None, meta: Any = None
) -> str:
    """The URL folder a page's relative links resolve from: `/a/b/` for `a/b.md`, `/a/` for
    a folder's own page `a/_index.md` (or, with `page_url: file`, for any page of `a/`);
    with a permalink, its folder (`/x/` for `/x/` and for `/x.html`); without
    `trailing_slash`, `/a/` for `a/b.md` too (its slug, id and number prefixes applied)."""
    if permalink is not None:
        return permalink if permalink.endswith("/") else permalink.rpartition("/")[0] + "/"
    if not model.trailing_slash:
        url = url_base(model) + served_path(rel, model, meta)
        return url.rpartition("/")[0] + "/"
    folder, _, name = _mapped(rel, model).rpartition("/")
    if name in model.folder_pages or model.file_url(rel):
        return f"/{folder}/" if folder else "/"
    stem = name.rsplit(".", 1)[0]
    return f"/{folder}/{stem}/" if folder else f"/{stem}/"


def _mapped(rel: str, model: LinkModel) -> str:
    """The page's path from the site's root, where a `url_map` prefix serves its folder
    (a Jekyll collection `_guides/x.md` at `/guides/x`): the folder replaced by the prefix."""
    for prefix, folders in model.url_map:
        for folder in folders:
            if folder and not outside_root(folder) and rel.startswith(folder + "/"):
                return (prefix.strip("/") + "/" + rel[len(folder) + 1 :]).lstrip("/")
    return rel


_EXTENSION = lazy(r"\.[A-Za-z0-9]+$")


def _unnumbered(name: str, model: LinkModel) -> str:
    """`02-guide` -> `guide` with `number_prefixes` (the generator's rule: not a date-like
    `2024-01-02-x`)."""
    if not model.number_prefixes:
        return name
    from kbkit.sites import every

    url_name: Any = every("url_name")[0]
    return str(url_name(name))


def url_base(model: LinkModel) -> str:
    """The URL the knowledge root is served at: the shortest `url_map` prefix that maps to
    the root itself, else `/`."""
    prefixes = [prefix for prefix, folders in model.url_map if "" in folders]
    return min(prefixes, key=len) if prefixes else "/"


def served_path(rel: str, model: LinkModel, meta: Any = None) -> str:
    """The URL a page is served at without `trailing_slash`, from the URL the knowledge root
    is served at: `a/b` for `a/b.md`, `a/` for a folder's own page, its `url_key` (slug)
    or `url_id_key` (id) frontmatter and number prefixes applied."""
    folder, _, name = rel.rpartition("/")
    parts = [_unnumbered(part, model) for part in folder.split("/")] if folder else []
    stem = name.rsplit(".", 1)[0]
    data = meta if isinstance(meta, dict) else {}
    slug = data.get(model.url_key) if model.url_key else None
    if isinstance(slug, str) and slug.strip():
        slug = slug.strip()
        path = slug.strip("/") if slug.startswith("/") else posixpath.join(*parts, slug)
        path = _clean(path)
        return path + "/" if path and slug.endswith("/") else path
    given = data.get(model.url_id_key) if model.url_id_key else None
    if isinstance(given, str) and given.strip() and "/" not in given:
        stem = given.strip()
    elif name in model.folder_pages or (
        model.folder_named and parts and _unnumbered(stem, model) == parts[-1]
    ):
        return "/".join(parts) + "/" if parts else ""
    else:
        stem = _unnumbered(stem, model)
    return "/".join([*parts, stem])


def url_fact(rel: str, page: Page, policy: Policy) -> str | None:
    """The root-relative URL path a page is served at when it is not its file's path
    without the suffix (a slug, an id, number prefixes), else None."""
    model = compiled(policy, link_model)
    if model.trailing_slash or not model.from_url:
        return None
    path = served_path(rel, model, page.meta).rstrip("/")
    plain = rel.rsplit(".", 1)[0]
    folder, _, name = rel.rpartition("/")
    if path == plain or (path == folder and name in model.folder_pages):
        return None
    return sys.intern(path)


def served_relative(written: str, model: LinkModel) -> bool:
    """Whether a link as written is a relative link `relative_from: url` resolves from the
    page's URL (a site link of the page, not a file path)."""
    path = written.split("#", 1)[0].split("?", 1)[0]
    return bool(
        model.from_url
        and path
        and not is_absolute(written)
        and "{{" not in written
        and "{%" not in written
        and not (model.md_from_file and path.endswith((".md", *model.page_suffixes)))
        and not (model.assets_from_file and _EXTENSION.search(path.rpartition("/")[2]))
    )


# (name as written before `#`, line, target as written with its #heading, embed?)
WikiRef = tuple[str, int, str, bool]


def wikilinks_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("wikilinks"))


def wikilink_refs(page: Page, policy: Policy) -> tuple[WikiRef, ...]:
    """The page's wikilinks and embeds as facts (none unless `links.wikilinks` is on)."""
    if not wikilinks_on(policy):
        return ()
    body = tuple(
        (
            sys.intern(wikilink_name(link.path_part)),
            link.line,
            link.target.rstrip("\\").strip(),  # `[[Page#h\|alias]]` in a table
            link.kind == EMBED,
        )
        for link in page.wikilinks
    )
    return _property_wikilinks(page) + body if "[[" in page.frontmatter.raw else body


# `[[Page]]`, `[[Page#heading|alias]]`, `![[embed.png]]` in a frontmatter value
_PROPERTY_WIKILINK = lazy(r"(!?)\[\[([^\[\]\n|]*)(?:\|[^\[\]\n]*)?\]\]")


def _property_wikilinks(page: Page) -> tuple[WikiRef, ...]:
    """The wikilinks of the page's properties (`categories: ["[[Books]]"]`): Obsidian links
    them as it links the body's, so they are inbound links of their pages and can be broken.
    Each is at its key's line."""
    from kbkit.checks.rules.lint.fields import key_lines

    lines = key_lines(page)
    out = []
    for key, value in page.meta.items():
        for text in _texts(value):
            for found in _PROPERTY_WIKILINK.finditer(text):
                target = found[2].strip()
                name = wikilink_name(target.split("#", 1)[0])
                if target:
                    line = lines.get(str(key), page.frontmatter.start_line)
                    out.append((sys.intern(name), line, target, found[1] == "!"))
    return tuple(out)


def _texts(value: Any) -> list[str]:
    """The strings of a frontmatter value: itself, or those of its list (nested too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


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


# The resolver of the validator run under way (`resolving`): its memos serve every check
_RUN_RESOLVER: ContextVar[Resolver | None] = ContextVar("run_resolver", default=None)


def run_resolver(tree: Tree) -> Resolver:
    """The resolver of the validator run under way on `tree` (`resolving`), else a new one.
    What a resolver finds depends on the tree alone, so the checks of one run share its memos
    (which file each `[[name]]` opens, what each site link names, the lower-cased names):
    lint's orphan check asks again for every link the link check asked about."""
    held = _RUN_RESOLVER.get()
    if held is not None and held.tree is tree:
        return held
    return Resolver(tree)


@contextlib.contextmanager
def resolving(tree: Tree) -> Iterator[None]:
    """One resolver for every check of a validator run on `tree` (`run_resolver`)."""
    token = _RUN_RESOLVER.set(Resolver(tree))
    try:
        yield
    finally:
        _RUN_RESOLVER.reset(token)


class Resolver:
    """Finds the file or folder a root-relative target names under the policy's options."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.model = link_model(tree.policy)
        self._lower: dict[str, str] | None = None
        self._redirects: dict[str, str] | None = None
        self._redirects_lower: dict[str, str] | None = None
        self._generated: Any = None
        self._names: dict[str, list[str]] | None = None
        self._aliases: dict[str, list[str]] | None = None
        self._labels: frozenset[str] | None = None
        self._hidden: frozenset[str] | None = None
        self._permalinks: dict[str, str] | None = None
        self._urls: dict[str, str] | None = None
        # what each site link names, by (first candidate, link as written): a docset's pages
        # repeat the same links (`/powershell/module/...`), each tried in every version
        self._site_found: dict[tuple[str, str], str | None] = {}
        self._site_all: dict[tuple[str, str], list[str]] = {}
        self._wiki_found: dict[tuple[str, str], str | None] = {}
        self._wiki_named: dict[tuple[str, str], tuple[dict[str, str], str | None]] = {}

    def exists(self, rel: str) -> bool:
        if rel == "":
            return True
        found = rel in self.tree.files or rel in self.tree.folders
        return found and not (self.model.unpublished and self.unpublished(rel))

    def unpublished(self, rel: str) -> bool:
        """Whether the site leaves the file or folder `rel` out (top-level `unpublished`)."""
        if not self.model.unpublished:
            return False
        if self._hidden is None:
            import pathspec

            spec = pathspec.GitIgnoreSpec.from_lines(self.model.unpublished)
            paths = [*self.tree.files, *(f"{folder}/" for folder in self.tree.folders if folder)]
            self._hidden = frozenset(p.rstrip("/") for p in spec.match_files(paths))
        return rel in self._hidden

    def target(self, rel: str) -> str | None:
        """The existing path `rel` names, or None (a path left unchecked, generated or
        redirected off the site, is returned as it is)."""
        if self.exists(rel):
            return rel
        if not self.model.active:
            return None
        if self.model.backslash and "\\" in rel:
            rel = _clean(posixpath.normpath(rel.replace("\\", "/")))
            if self.exists(rel) or (outside_root(rel) and self.tree.exists(rel)):
                return rel
        seen = {rel}
        for _ in range(MAX_REDIRECT_HOPS):
            found = self._direct(rel)
            if found is not None:
                return found
            if self.is_generated(rel):
                return rel
            moved = self._moved(rel)
            if moved is None:
                return None
            if moved == EXTERNAL:
                return rel  # redirected off the site: nothing here to check
            if moved.startswith("/"):
                step = self._site_step(moved)
                if step is None:
                    return rel  # redirected to another part of the site
                moved = step
            if moved in seen:
                return None
            seen.add(moved)
            rel = moved
        return None

    def site_target(self, resolved: str, written: str) -> str | None:
        """The existing path a site link names: `resolved` (its first candidate), else the
        next `url_map` folders in order (a page of another version of the docs)."""
        key = (resolved, written)
        if key not in self._site_found:
            self._site_found[key] = self._site_target(resolved, written)
        return self._site_found[key]

    def _site_target(self, resolved: str, written: str) -> str | None:
        if self.model.liquid_links and "{%" in written:  # a source file, by its path
            return _page_link_file(resolved, written, self.tree)
        path = _path_of(written)
        base = self.model.base_url
        if base and is_site_link(path) and not under_base(path, base):
            return None  # the site is served under its base URL: this leaves it
        if self.model.permalink_key:
            urls = [permalink_path(resolved)]
            if is_site_link(path):  # the URL as written, before a url_map folder replaced it
                url = path[len(base) :] if base and under_base(path, base) else path
                urls.insert(
                    0, _clean(posixpath.join(self.model.site_root or "", permalink_path(url)))
                )
            given = next((hit for u in urls if (hit := self.permalinks().get(u)) is not None), None)
            if given is not None:
                return given
        if self.model.file_url(resolved) and path.endswith("/") and self.model.from_url:
            # pages are files (`a/b.html`): `x/` is a folder, served by its own page only
            pages = [posixpath.join(resolved, name) for name in self.model.folder_pages]
            if any(self.exists(page) for page in pages):
                return resolved
            named = path if is_site_link(path) else self._url_of(resolved)
            return self._later_candidate(named) if named is not None else None
        if self.model.folder_page_only and path.endswith("/") and self._bare_folder(resolved):
            return None  # a folder no page serves: the site lists no folder (Jekyll)
        found = self.target(resolved)
        if (
            found is not None
            and not self._served_elsewhere(found, resolved)
            and not self.moved_away(found, resolved)
        ):
            return found
        found = self.served_at(resolved) or self._copy_served_at(resolved)
        if found is not None:
            return found
        if outside_root(resolved) and self.model.url_map:  # `url_map` to ../static, a version
            for candidate in self._variants(resolved):
                if self.tree.exists(candidate) and not self.moved_away(candidate, resolved):
                    return candidate
        served = self._site_file(resolved)
        if served is not None:
            return served
        if not is_site_link(path):
            # a relative link resolved from the page's URL: the URL it names, through the
            # `url_map` folders after the first (a collection served at the site's root)
            named = self._url_of(resolved)
            if named is None:
                return None
            path = named
        found = self._later_candidate(path)
        if found is not None:
            return found
        if self._elsewhere(path):
            return resolved  # a page of another docset under a shared prefix: not checked
        return None

    def _later_candidate(self, path: str) -> str | None:
        """The existing path a site path names through its `url_map` folders after the
        first (another version's copy, a collection served at the same prefix)."""
        candidates = site_candidates(self.model, path) or ()
        for candidate in candidates[1:]:
            found = self.target(candidate)
            if found is not None:
                return found
            if outside_root(candidate) and self.tree.exists(candidate):
                return candidate  # a later `url_map` folder out of the root (../static/docs)
        return None

    def _url_of(self, resolved: str) -> str | None:
        """The site path whose first `url_map` candidate is `resolved` (None: no prefix
        maps to more than one folder, or none maps there)."""
        for prefix, folders in self.model.url_map:
            if len(folders) < 2:
                continue
            first = folders[0]
            if not first:
                url = prefix + resolved
            elif resolved == first or resolved.startswith(first + "/"):
                url = prefix + resolved[len(first) :].lstrip("/")
            else:
                continue
            found = site_candidates(self.model, url)
            if found and found[0] == resolved:
                return url
        return None

    def site_targets(self, resolved: str, written: str) -> list[str]:
        """Every existing path a site link may name: its page in each `url_map` folder (a
        link without a version reaches the page in every version), else `resolved`."""
        key = (resolved, written)
        known = self._site_all.get(key)
        if known is not None:
            return list(known)
        path = _path_of(written)
        candidates = (site_candidates(self.model, path) if is_site_link(path) else None) or (
            resolved,
        )
        found = [hit for c in candidates if (hit := self.target(c)) is not None] or [resolved]
        self._site_all[key] = found
        return list(found)

    def permalinks(self) -> dict[str, str]:
        """Pages by the root-relative path of the URL their front matter gives them."""
        if self._permalinks is None:
            self._permalinks = {}
            root = self.model.site_root or ""
            for rel, facts in sorted(self.tree.facts.items()):
                url = facts.get("permalink")
                if url is not None:
                    key = _clean(posixpath.join(root, permalink_path(url)))
                    self._permalinks.setdefault(key, rel)
            for rel, facts in sorted(self.tree.facts.items()):  # a page's own URL wins
                for url in facts.get("redirect_from", ()):
                    key = _clean(posixpath.join(root, permalink_path(url)))
                    self._permalinks.setdefault(key, rel)
        return self._permalinks

    def _served_elsewhere(self, found: str, resolved: str) -> bool:
        """Whether a URL-resolved path that names a page file is not where the site serves
        it: at its source file (`x.md`), or at its own URL (a front matter permalink)."""
        if not (self.model.from_url and found.endswith(".md")):
            return False
        return resolved.endswith(".md") or self.permalinked(found)

    def permalinked(self, rel: str) -> bool:
        """Whether the page's front matter serves it at a URL of its own (not the one its
        file has anyway: `/docs/x/` for `_docs/x.md` where `/docs/` maps to `_docs`)."""
        url = self.tree.facts.get(rel, {}).get("permalink")
        return url is not None and permalink_path(str(url)) != self._file_url(rel)

    def _file_url(self, rel: str) -> str:
        """The root-relative URL path a page's file gives it (`url_map` folders at their
        prefix), as `permalink_path` writes one."""
        stem = rel.rsplit(".", 1)[0]
        for prefix, folders in self.model.url_map:
            for folder in folders:
                if folder and stem.startswith(folder + "/"):
                    return permalink_path(prefix + stem[len(folder) + 1 :])
        return permalink_path(stem)

    def moved_away(self, found: str, path: str) -> bool:
        """Whether the page a URL path names by its file is served elsewhere (a slug, an id
        or number prefixes: its `url` fact), so nothing is served at the path."""
        url = self.tree.facts.get(found, {}).get("url")
        if url is None and outside_root(found):  # an unread version's copy: as its original
            for folder in self._copy_folders():
                if found.startswith(folder + "/") and path.startswith(folder + "/"):
                    url = self.tree.facts.get(found[len(folder) + 1 :], {}).get("url")
                    path = path[len(folder) + 1 :]
                    break
        return url is not None and url != path.rstrip("/")

    def _copy_folders(self) -> list[str]:
        """The `url_map` folders out of the root (versions' copies of the docs, not read)."""
        return [f for _, folders in self.model.url_map for f in folders if f and outside_root(f)]

    def served_at(self, path: str) -> str | None:
        """The page served at a root-relative URL path other than its file's (a slug, an
        id, number prefixes: the `url` facts), if any."""
        if self._urls is None:
            self._urls = {}
            for rel, facts in sorted(self.tree.facts.items()):
                if "url" in facts:
                    self._urls.setdefault(facts["url"], rel)
        return self._urls.get(path.rstrip("/")) if self._urls else None

    def _copy_served_at(self, resolved: str) -> str | None:
        """The file of a `url_map` folder out of the root (a Docusaurus version's
        `versioned_docs/version-x`, a copy of the docs when it was cut, not read) served at
        the path: the copy of the page the root serves there by its slug or id."""
        if not outside_root(resolved) or self._urls == {}:
            return None
        for folder in self._copy_folders():
            if resolved.startswith(folder + "/"):
                page = self.served_at(resolved[len(folder) + 1 :])
                copy = posixpath.join(folder, page) if page is not None else None
                if copy is not None and self.tree.exists(copy):
                    return copy
        return None

    def _bare_folder(self, resolved: str) -> bool:
        """Whether a URL path names a folder that no page serves: none of its own pages
        (`url_folder_pages`), and no page `x.md` beside it served at `x/`."""
        if resolved not in self.tree.folders:
            return False
        pages = [posixpath.join(resolved, name) for name in self.model.folder_pages]
        pages += [resolved + suffix for suffix in self.model.page_suffixes]
        return not any(self.exists(page) for page in pages)

    def _site_file(self, resolved: str) -> str | None:
        """The file of a `site_files` folder that a site path (resolved from the site root)
        names, if any."""
        if self.model.site_root is None or outside_root(resolved):
            return None
        tail = (
            resolved[len(self.model.site_root) :].lstrip("/") if self.model.site_root else resolved
        )
        for folder in self.model.site_files:
            candidate = _clean(posixpath.join(folder, tail))
            if self.tree.exists(candidate):
                return candidate
        return None

    def _elsewhere(self, path: str) -> bool:
        """Whether a site path under a `url_shared` prefix names, right after the prefix,
        nothing any mapped folder holds (another docset publishes it)."""
        lowered = path.lower()
        prefix = next((p for p in self.model.shared if lowered.startswith(p)), None)
        if prefix is None:
            return False
        first = path[len(prefix) :].split("/", 1)[0]
        folders = next((f for p, f in self.model.url_map if p.lower() == prefix), ())
        return not first or all(
            self._direct(_clean(posixpath.join(folder, first))) is None for folder in folders
        )

    def _site_step(self, path: str) -> str | None:
        """Where a redirect to a site path leads next: the first candidate that exists or
        is redirected again, else the first (None: another part of the site)."""
        candidates = site_candidates(self.model, path)
        if not candidates:
            return None
        for candidate in candidates:
            if self._direct(candidate) is not None or self._moved(candidate) is not None:
                return candidate
        return candidates[0]

    def _moved(self, rel: str) -> str | None:
        """The redirect of `rel` or of a name its extensions give it (`x` for `x.md`)."""
        redirects = self.redirects()
        if not redirects:
            return None
        for candidate in self._variants(rel):
            moved = redirects.get(candidate)
            if moved is None and self.model.case_insensitive:
                moved = self._lower_redirects().get(candidate.lower())
            if moved is not None:
                return moved
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
        # pages of one folder name the same files alike (the vault is the folder's too): a
        # vault's pages repeat the same names, each a search through every same-named file
        key = (name, source.rpartition("/")[0])
        if key not in self._wiki_found:
            self._wiki_found[key] = self._wikilink(name, source)
        return self._wiki_found[key]

    def _wikilink(self, name: str, source: str) -> str | None:
        if name.startswith(("./", "../")):
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(source), name))
            return self._file(rel) or self._file(rel + ".md")
        key = (name, self._vault(source))
        chosen = self._wiki_named.get(key)
        if chosen is None:
            chosen = self._wiki_named[key] = self._named(*key)
        by_folder, best = chosen
        return by_folder.get(source.rpartition("/")[0], best)  # (posixpath.dirname's)

    def _named(self, name: str, vault: str) -> tuple[dict[str, str], str | None]:
        """The files `[[name]]` may open in `vault`: the path from the vault's top when it
        names a file (for every folder: an empty mapping), else by the end of their path (or,
        for a bare name, by alias) the one each folder holding some would open (its own),
        and the one any other folder would (the shortest path: fewest folders, then fewest
        characters, then by name). Asked once per name and vault: a vault's pages repeat the
        same names."""
        name = name.strip("/")
        found = self._file(vault + name) or self._file(vault + name + ".md")
        if found is not None:
            return {}, found
        fold = self.model.case_insensitive
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
        ordered = sorted(candidates, key=lambda p: (p.count("/"), len(p), p))
        by_folder: dict[str, str] = {}
        for path in ordered:
            by_folder.setdefault(path.rpartition("/")[0], path)
        return by_folder, (ordered[0] if ordered else None)

    def vault(self, source: str) -> str:
        """The vault (`_vault`) of the page or file `source`."""
        return self._vault(source)

    def _vault(self, source: str) -> str:
        """The folder (with its `/`) names resolve in: the page's root with
        `links.vault_per_root`, else the knowledge root ("")."""
        if not (self.tree.policy.data.get("links") or {}).get("vault_per_root"):
            return ""
        for root in self.tree.policy.data.get("roots") or ():
            prefix = str(root).strip("/") + "/"
            if prefix in ("./", "/"):
                return ""  # the knowledge root is the one vault
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

    def is_label(self, name: str) -> bool:
        """Whether `name` is a label of some page (`labels` facts) or a page the generator
        always builds (`genindex`, `search`)."""
        labels = _labels()
        if self._labels is None:
            found = set(labels.built_in)
            for facts in self.tree.facts.values():
                found.update(facts.get("labels", ()))
            found.update(map(labels.normalized, unread_labels(self.tree)))
            self._labels = frozenset(found)
        return labels.normalized(name) in self._labels

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

    def is_generated(self, rel: str) -> bool:
        """Whether `rel` matches `links.generated` (also a path outside the knowledge root:
        `../std/**` for the books a site publishes beside this one)."""
        if not self.model.generated:
            return False
        if self._generated is None:
            import pathspec

            self._generated = pathspec.GitIgnoreSpec.from_lines(self.model.generated)
        return bool(self._generated.match_file(rel))

    def variants(self, rel: str) -> list[str]:
        """`rel`, then each name `links.extensions` gives it."""
        return self._variants(rel)

    def _variants(self, rel: str) -> list[str]:
        """`rel`, then each name `links.extensions` gives it."""
        candidates = [rel]
        for suffix, replacements in self.model.extensions:
            if suffix and rel.endswith(suffix) and (suffix[0] == "." or _whole_name(rel, suffix)):
                stem = rel[: len(rel) - len(suffix)]
                candidates.extend(stem + replacement for replacement in replacements)
            elif not suffix:  # a name written without the page's extension (`x`, `x.ps1xml`)
                candidates.extend(rel + r for r in replacements if not rel.endswith(r))
        return candidates

    def _direct(self, rel: str) -> str | None:
        candidates = self._variants(rel)
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
            model = self.model
            self._redirects = load_redirects(
                self.tree.repo, self.tree.policy, lambda path: site_candidates(model, path)
            )
        return self._redirects

    def _lower_redirects(self) -> dict[str, str]:
        if self._redirects_lower is None:
            self._redirects_lower = {}
            for old, new in sorted(self.redirects().items()):
                self._redirects_lower.setdefault(old.lower(), new)
        return self._redirects_lower


def _path_of(written: str) -> str:
    """The path part of a link target as written (already percent-decoded)."""
    return written.split("#", 1)[0].split("?", 1)[0]


class AnchorOptions(NamedTuple):
    style: str  # the slug style (`kbkit.pages.anchors.STYLES`)
    attr_list: bool  # `{ #id }` attribute lists give ids
    tabbed: bool  # pymdownx.tabbed's `=== "Tab"` give ids
    ignore: re.Pattern[str] | None  # fragments that are never checked
    definitions: bool = False  # definition terms give ids (goldmark's autoDefinitionTermID)
    depth: int | None = None  # only headings up to this level take slug ids
    labels: bool = False  # MyST labels (`(name)=`, `:name:`) and section ids give ids


def anchor_options(policy: Policy) -> AnchorOptions:
    links = policy.data.get("links") or {}
    ignore = links.get("anchor_ignore")
    return AnchorOptions(
        str(links.get("slugs") or anchors.GITHUB),
        bool(links.get("attr_list")),
        bool(links.get("tabbed")),
        re.compile(str(ignore)) if ignore else None,
        bool(links.get("definition_ids")),
        None if links.get("heading_depth") is None else int(links["heading_depth"]),
        bool(links.get("labels")),
    )


_LAST_PAGE: list[Any] = [None, None, ()]  # the page, the policy data, its ids


def anchor_ids(page: Page, policy: Policy) -> tuple[str, ...]:
    """The ids a `page.md#fragment` link may name on this page, as the site builds them:
    its headings' ids under the policy's slug style (or their `{ #id }`), attribute-list
    ids, HTML `id`/`name` anchors, footnote ids and tab ids (remembered for the last page:
    the page's findings and its facts both ask)."""
    if _LAST_PAGE[0] is page and _LAST_PAGE[1] is policy.data:
        return tuple(_LAST_PAGE[2])
    # A page repeated word for word has the same ids. Its headings come from its text, read
    # as MDX or not; a page kept without its headings (`compact`) is told apart by their count.
    variant = len(page.headings) * 2 + is_mdx(page.path)
    found = remembered("anchors", page.text, policy, lambda: _anchor_ids(page, policy), variant)
    _LAST_PAGE[:] = [page, policy.data, found]
    return found


def _anchor_ids(page: Page, policy: Policy) -> tuple[str, ...]:
    options = compiled(policy, anchor_options)
    headings = page.headings
    if options.depth is not None:
        headings = tuple(h for h in headings if h.level <= options.depth)
    named = [(heading.line, heading.plain) for heading in headings]
    if options.definitions:  # terms and headings take ids in one run, in text order
        named = sorted(named + anchors.definition_terms(page.text), key=lambda item: item[0])
    ids = anchors.heading_ids([text for _, text in named], options.style, options.attr_list)
    out = list(ids)
    if options.attr_list:
        out.extend(anchors.attr_list_ids(page.text))
    out.extend(anchors.html_ids(page.text))
    if page.footnotes:
        out.extend(anchors.footnote_ids(f.label for f in page.footnotes if f.definition))
    if options.tabbed:
        lines = [line for line, _ in named]
        out.extend(anchors.tab_ids(page.text, list(zip(lines, ids, strict=True)), options.style))
    if options.labels:  # a label by its name or its id, and the sections the slugs name
        labels = _labels()
        for name in labels.defined(page):
            out.extend((name, labels.element_id(name)))
        out.extend(labels.element_id(heading.plain) for heading in headings)
    return tuple(dict.fromkeys(out))


def queries_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("queries"))


def site_queries() -> Queries:
    """How the site lists pages by query (`links.queries`)."""
    from kbkit.sites import every

    found: Queries = every("queries")[0]
    return found


def labels_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("labels"))


def _labels() -> Labels:
    """What the site's generator reads as labels (`links.labels`)."""
    from kbkit.sites import every

    found: Labels = every("labels")[0]
    return found


# A label in a document kbkit does not read as a page: MyST's `(name)=` line (`.Rmd`,
# `.myst`, a notebook's markdown cell) or reStructuredText's `.. _name:`
_UNREAD_LABEL = lazy(r"(?m)^[ \t\"]*(?:\(([^()\s]+)\)=|\.\. _([^:\n]+):)[ \t]*(?:\\n)?")
MAX_UNREAD_BYTES = 2 * 1024 * 1024


def unread_documents(tree: Tree) -> list[str]:
    """The root-relative files the site reads as documents that kbkit does not read as pages
    (the suffixes `links.extensions` implies for a name written without one: `.rst`,
    `.ipynb`, `.Rmd`), when `links.labels` is on."""
    if not labels_on(tree.policy):
        return []
    implied = ((tree.policy.data.get("links") or {}).get("extensions") or {}).get("") or ()
    suffixes = tuple(s for s in map(str, implied) if s not in tree.policy.page_suffixes)
    return sorted(rel for rel in tree.files if suffixes and rel.endswith(suffixes))


def unread_labels(tree: Tree) -> set[str]:
    """The labels the tree's unread documents define (a Sphinx site's `.rst` pages, a Jupyter
    Book's `.Rmd` and notebooks): `[x](label)` may name one."""
    from kbkit.tree.page_file import PageRefused, read_page_file

    found: set[str] = set()
    top = str(tree.repo / tree.root)
    for rel in unread_documents(tree):
        try:  # as a page is read: no symlink out of the root, no FIFO, no huge file
            data, _ = read_page_file(top, rel, MAX_UNREAD_BYTES)
        except (OSError, PageRefused):
            continue
        text = data.decode("utf-8", "replace")
        found.update(a or b.strip() for a, b in _UNREAD_LABEL.findall(text))
    return found


def label_fact(page: Page, policy: Policy) -> tuple[str, ...]:
    """The labels the page defines, when `links.labels` is on."""
    return _labels().defined(page) if labels_on(policy) else ()


def own_ids(page: Page, policy: Policy) -> frozenset[str]:
    """The ids a `#fragment` link of the page may name on the page itself: `anchor_ids`,
    and with `links.labels` the section id docutils gives every heading (MyST falls back
    to it for a heading below `heading_depth`)."""
    known = set(anchor_ids(page, policy))
    if labels_on(policy):
        element_id = _labels().element_id
        known.update(element_id(heading.plain) for heading in page.headings)
    return frozenset(known)


# With `links.labels`, a link `name:rest` whose `name` is no URL scheme of the generator
# (`Labels.url_schemes`) or of the site (`links.url_schemes`) names a label
_SCHEME_PART = lazy(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):(?!//)")


def label_link_fact(page: Page, policy: Policy) -> tuple[tuple[int, str], ...]:
    """(line, target) of the page's links whose `name:` prefix is no URL scheme, when
    `links.labels` is on: each names a label of some page (the tree check settles them)."""
    if not labels_on(policy) or ":" not in page.text:
        return ()
    extra = (policy.data.get("links") or {}).get("url_schemes") or ()
    out = []
    for link in page.links:
        found = _SCHEME_PART.match(link.target) if link.is_external else None
        if found is None:
            continue
        scheme = found[1].lower()
        if scheme in _labels().url_schemes or scheme in map(str, extra):
            continue
        out.append((link.line, link.target))
    return tuple(out)


def fragment_fact(page: Page, policy: Policy) -> tuple[tuple[int, str], ...]:
    """(line, link) of the page's `#fragment` links that name no id of the page, when
    `links.labels` is on: Sphinx looks for them among every page's labels (the tree
    check settles them)."""
    if not labels_on(policy) or not anchors_known(page, policy):
        return ()
    own = [link for link in page.links if not link.path_part and link.target.startswith("#")]
    if not own:
        return ()
    known = own_ids(page, policy)
    return tuple(
        (link.line, link.target)
        for link in own
        if not fragment_known(link.target[1:], known, policy)
    )


def fragment_known(fragment: str, known: Any, policy: Policy) -> bool:
    """Whether a `#fragment` names an id of the page (`known`), letter case aside, or is one
    the policy never checks (`links.anchor_ignore`, matched from its start)."""
    if not fragment or fragment in known or fragment.lower() in known:
        return True
    ignore = compiled(policy, anchor_options).ignore
    return ignore is not None and ignore.match(fragment) is not None


# pymdownx.snippets' include line (`;--8<--` writes it as text), an autodoc block of
# an MDX import of a markdown file: Docusaurus renders its headings, with their ids, where
# the page writes `<Partial />` (the path is a JavaScript string: `\_` is `_`)
# (`import` first, not `\bimport`: a pattern that opens with a literal is searched for it;
# one that opens with `\b` is tried at every character. The `\b` is checked on each match.)
_MDX_IMPORT = lazy(r"""import\s+\w+\s+from\s+(['"])([^'"\n]+\.mdx?)\1""")


def _for_the_last_page(answer: Callable[..., T]) -> Callable[..., T]:
    """`answer(..., page, policy)` remembered for the last page and policy asked: a page's
    findings and its facts both ask (they run one after the other while the page loads)."""
    last: list[Any] = [None, None, None]

    @functools.wraps(answer)
    def remembered(*args: Any) -> T:
        page, policy = args[-2], args[-1]
        if last[0] is page and last[1] is policy.data:
            return last[2]
        value = answer(*args)
        last[:] = [page, policy.data, value]
        return value

    return remembered


@_for_the_last_page
def imports_fact(rel: str, page: Page, policy: Policy) -> tuple[str, ...]:
    """The root-relative pages an MDX page imports (`import X from './_x.md'`), whose
    headings are its own too; `?` for one kbkit cannot place (`@site/...`), which leaves
    the page's anchors unknown. Only under `links.inserted_text`."""
    if "import" not in page.text or not (policy.data.get("links") or {}).get("inserted_text"):
        return ()
    folder = posixpath.dirname(rel)
    out = []
    text = page.text
    for found in _MDX_IMPORT.finditer(text):
        start = found.start()
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue  # `reimport x from ...`: no word starts at `import` (`\b`)
        path = re.sub(r"\\(.)", r"\1", found.group(2))
        if not path.startswith("."):
            out.append("?")
            continue
        out.append(_clean(posixpath.join(folder, path)))
    return tuple(dict.fromkeys(out))


_FENCE = lazy(r"^[ \t]*(`{3,}|~{3,})")


@_for_the_last_page
def anchors_known(page: Page, policy: Policy) -> bool:
    """Whether the page's ids are all in its own text: not when `links.inserted_text` is on
    and the page pulls in text (and headings) kbkit does not read. A line that inserts text
    inside a fenced code block (a snippet of source in a code example, also in a content
    tab or an admonition, indented) inserts code: it brings no headings. Which lines pull
    in text is each generator's syntax (`Generator.inserts_text`: snippets, API
    references, shortcodes), every generator's asked. A heading written as an HTML comment
    alone (`#### <!-- md:setting config.blog_dir -->`) is one a build hook fills in, id
    and all: that page's ids are not all in its text either."""
    if any(heading.text.startswith("<!--") for heading in page.headings):
        return False
    if not (policy.data.get("links") or {}).get("inserted_text"):
        return True
    from kbkit.sites import every

    text = page.text
    found = [start for inserts_text in every("inserts_text") for start in inserts_text(text)]
    if not found:
        return True
    code = _fenced_code_lines(page)
    return all(text.count("\n", 0, start) + 1 in code for start in found)


def _fenced_code_lines(page: Page) -> set[int]:
    """The lines inside fenced code: every line of a fenced block, and of an indented block
    (a content tab's or an admonition's body) the lines between its own fences."""
    lines: set[int] = set()
    for block in page.code_blocks:
        if block.fenced:
            lines.update(number for number, _ in block.lines())
            continue
        fence = ""
        for number, line in block.lines():
            opened = _FENCE.match(line)
            if fence:
                if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                    fence = ""
                else:
                    lines.add(number)
            elif opened:
                fence = opened.group(1)
    return lines


def anchors_on(policy: Policy) -> bool:
    return bool((policy.data.get("links") or {}).get("anchors"))
