"""Jekyll (and GitHub Pages): `_config.yml` at the top or in `docs/` (GitHub Pages builds
either), with the `jekyll` profile. The knowledge root is the folder Jekyll reads (`source:`,
else the configuration's folder); the files it leaves out (`_`- and `.`-prefixed names
except the collections it outputs, its default excludes, `exclude:` less `include:`) are
`unpublished`; the permalink style says where a page is served (`pretty` and `/...` styles
ending in `/`: `a/b.md` at `/a/b/`; else at `/a/b.html`; a collection's own `permalink`
ending in `/` serves its pages so whatever the site's style), `baseurl` the path the site lives
under; a `.md` link resolves from the file where jekyll-relative-links rewrites it (listed
in `plugins:`, or GitHub Pages, which always runs it); with jekyll-redirect-from listed, a
page's `redirect_from:` URLs are served too (they redirect to it). A collection's documents
are its files that start with front matter, whatever their suffix (`_licenses/mit.txt` at
`/licenses/mit/`); a folder's URL shows its `index.md` or `index.html`.

What the checks ask of it: the links written with Liquid's `link` and `post_url` tags
(`page_links`), which name source files, not URLs."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from kbkit.infra.bounded_yaml import YamlLimitError, load_yaml, yaml_problem
from kbkit.infra.errors import UsageError
from kbkit.infra.lazy_pattern import lazy
from kbkit.sites.config import over_limits, present, read_config, read_sample
from kbkit.sites.site import Generator, Site

if TYPE_CHECKING:
    from kbkit.pages.page import Page

CONFIG_NAMES = ("_config.yml", "_config.yaml")
# Jekyll 4 always adds these to `exclude:` (Jekyll::Configuration::DEFAULT_EXCLUDES)
DEFAULT_EXCLUDES = (
    ".sass-cache",
    ".jekyll-cache",
    "gemfiles",
    "Gemfile",
    "Gemfile.lock",
    "node_modules",
    "vendor/bundle/",
    "vendor/cache/",
    "vendor/gems/",
    "vendor/ruby/",
)
RELATIVE_LINKS = "jekyll-relative-links"
REDIRECT_FROM = "jekyll-redirect-from"


PUBLISHED = (".md", ".markdown", ".mkdown", ".mkd")  # its markdown pages (.html ones not counted)


def detect(repo: Path) -> Site | None:
    """`_config.yml` at the top of the repository, else in `docs/` (GitHub Pages publishes
    either)."""
    return _detect(repo, "") or _detect(repo, "docs")


def _detect(repo: Path, folder: str) -> Site | None:
    here = repo / folder if folder else repo
    name = next((n for n in CONFIG_NAMES if present(here / n)), None)
    if name is None or (here / "_toc.yml").exists():
        return None  # none, or Jupyter Book's `_config.yml` beside its `_toc.yml`
    config = here / name
    data = read_site_config(config)
    source = str(data.get("source") or "").strip("/") if not folder else ""
    if source and (".." in source.split("/") or not (here / source).is_dir()):
        source = ""
    root = posixpath.normpath(posixpath.join(folder or ".", source or "."))
    keys = site_keys(data, github_pages=_github_pages(here, repo))
    suffixes = document_suffixes(repo / root, keys["links"].get("url_map", {}).values())
    if suffixes:  # `_licenses/mit.txt` at `/licenses/mit/`
        keys["links"]["extensions"] = {**keys["links"].get("extensions", {}), "": suffixes}
    return Site("Jekyll", posixpath.join(folder, name), "jekyll", root, keys, PUBLISHED)


MAX_DOCUMENTS = 2000  # files looked at per collection for their suffixes


def document_suffixes(source: Path, folders: Any) -> list[str]:
    """The suffixes of a served collection's documents besides `.md`: Jekyll renders any
    file of a collection that starts with front matter (`mit.txt`) and serves it at its
    URL without the suffix; `.md` first, as the profile names it."""
    found: set[str] = set()
    for folder in folders:
        for count, path in enumerate(sorted((source / str(folder)).rglob("*.*"))):
            if count >= MAX_DOCUMENTS:
                break
            if path.suffix and path.suffix != ".md" and path.is_file() and _front_matter(path):
                found.add(path.suffix)
    return [".md", *sorted(found)] if found else []


def _front_matter(path: Path) -> bool:
    text = read_sample(path, 4)  # (inside the repository, a regular file)
    return text is not None and text.rstrip("\r\n") == "---"


def read_site_config(config: Path) -> dict[str, Any]:
    """The configuration as a mapping; one readable error (file and line) when it is not
    YAML Jekyll could read, as Jekyll itself refuses to build then."""
    text = read_config(config)
    try:
        data = load_yaml(text)
    except YamlLimitError as exc:
        raise over_limits(config, exc) from exc
    except yaml.YAMLError as exc:
        line, problem = yaml_problem(exc)
        where = f"{config}:{line}" if line else str(config)
        raise UsageError(
            f"{where}: Jekyll cannot read this configuration ({problem}); fix it and run again"
        ) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsageError(f"{config}: Jekyll's configuration must be a mapping of settings")
    return data


def _github_pages(here: Path, repo: Path) -> bool:
    """Whether GitHub Pages builds the site: its Gemfile names the `github-pages` gem, or
    there is no Gemfile at all (a plain Jekyll build brings its own)."""
    for folder in dict.fromkeys((here, repo)):
        gemfile = folder / "Gemfile"
        if present(gemfile):
            return "github-pages" in read_config(gemfile)
    return True


def site_keys(data: dict[str, Any], github_pages: bool = False) -> dict[str, Any]:
    """The policy keys a Jekyll configuration implies (pure)."""
    pretty = _pretty(str(data.get("permalink") or "date"))
    links: dict[str, Any] = {"page_url": "folder" if pretty else "file"}
    if not pretty:  # a page a/b.md is /a/b.html, also linked as /a/b (served the same)
        links["extensions"] = {".html": [".md"]}
    base = str(data.get("baseurl") or "").strip("/")
    if base:
        links["base_url"] = "/" + base
    if _relative_links(data, github_pages):
        links["md_from_file"] = True
    if REDIRECT_FROM in [*_names(data.get("plugins")), *_names(data.get("gems"))]:
        links["redirect_from_key"] = "redirect_from"  # its URLs redirect to the page
    collections = _output_collections(data)
    folder = str(data.get("collections_dir") or "").strip("/")
    url_map: dict[str, list[str]] = {}
    for name in collections:
        prefix = _collection_prefix(data, name) if name != "posts" else None
        if prefix is not None:
            url_map.setdefault(prefix, []).append(posixpath.join(folder, f"_{name}"))
    if url_map:
        # a prefix shared with the site's own pages (`/:path/` serves a collection at the
        # root) finds them first, then the collection's
        shared = {
            prefix: [prefix.strip("/") or ".", *found] if prefix == "/" else found
            for prefix, found in url_map.items()
        }
        links["url_map"] = {
            prefix: found[0] if len(found) == 1 else found for prefix, found in shared.items()
        }
    if not pretty:
        folders = [
            posixpath.join(folder, f"_{name}")
            for name in collections
            if _pretty(_collection_permalink(data, name))
        ]
        if folders:
            links["pretty_folders"] = folders
    return {"links": links, "unpublished": unpublished(data, collections)}


def _relative_links(data: dict[str, Any], github_pages: bool) -> bool:
    """Whether jekyll-relative-links rewrites `x.md` links to the page's URL."""
    plugins = [*_names(data.get("plugins")), *_names(data.get("gems"))]
    setting = data.get("relative_links")
    if isinstance(setting, dict) and setting.get("enabled") is False:
        return False
    return github_pages or RELATIVE_LINKS in plugins


def _output_collections(data: dict[str, Any]) -> list[str]:
    """The collections Jekyll writes pages for: `posts` always, others with `output: true`."""
    value = data.get("collections")
    found = ["posts"]
    if isinstance(value, dict):
        for name, settings in value.items():
            if isinstance(settings, dict) and settings.get("output") is True:
                found.append(str(name))
    return list(dict.fromkeys(found))


def _collection_permalink(data: dict[str, Any], name: str) -> str | None:
    """The `permalink` pattern a collection's settings give its pages, if any."""
    collections = data.get("collections")
    settings = collections.get(name) if isinstance(collections, dict) else None
    pattern = settings.get("permalink") if isinstance(settings, dict) else None
    return pattern if isinstance(pattern, str) else None


def _pretty(pattern: str | None) -> bool:
    """Whether a permalink style serves a page at a folder URL (`/a/b/`)."""
    return pattern == "pretty" or bool(
        pattern and pattern.startswith("/") and pattern.endswith("/")
    )


def _collection_prefix(data: dict[str, Any], name: str) -> str | None:
    """The site path the collection's pages are served under, their path in the collection
    after it: `/name/` for its default permalink `/:collection/:path` (or one that starts
    so), the literal part before `:path` or `:name` otherwise (`/:path/` serves them at the
    site's root, as opensource.guide's articles). None: a permalink that places them by
    other values (dates, categories, titles), which kbkit does not map."""
    pattern = _collection_permalink(data, name)
    if pattern is None or pattern.startswith(("/:collection/", f"/{name}/")):
        return f"/{name}/"
    literal, colon, rest = pattern.partition(":")
    if (
        colon
        and literal.startswith("/")
        and literal.endswith("/")
        and rest.startswith(("path", "name"))
    ):
        return literal
    return None


def unpublished(data: dict[str, Any], collections: list[str]) -> list[str]:
    """Gitignore globs of what Jekyll does not publish, relative to its source folder:
    `_` and `.` names (not the output collections), backups, the default and configured
    excludes; `include:` brings a name back (by path, or by name at any depth)."""
    folder = str(data.get("collections_dir") or "").strip("/")
    globs = ["_*", ".*", "#*", "*~"]
    globs += [f"!/{posixpath.join(folder, '_' + name)}/" for name in collections]
    globs += [_anchored(p) for p in (*DEFAULT_EXCLUDES, *_names(data.get("exclude")))]
    for name in [".htaccess", *_names(data.get("include"))]:
        name = name.strip("/")
        at = f"/{name}" if "/" in name else f"**/{name}"
        globs += [f"!{at}", f"!{at}/**"]  # the files below too: an include wins in Jekyll
    return list(dict.fromkeys(g for g in globs if g not in ("!", "!/", "/")))


def _anchored(pattern: str) -> str:
    """Jekyll's exclude pattern (matched from the source folder, a path or its prefix, `*`
    across folders) as a gitignore glob."""
    pattern = pattern.strip().lstrip("/").replace("**", "*")
    return "/" + re.sub(r"(^|/)\*", r"\1**/*", pattern)  # `*.txt` at any depth


def _names(value: Any) -> list[str]:
    """A list setting's text entries (a lone string counts as one)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    return []


# `{% link docs/x.md %}`, after `{{ site.baseurl }}` or not, and `{% post_url 2024-01-05-x %}`
_LIQUID_LINK = lazy(
    r"^(?:\{\{-?\s*site\.baseurl\s*-?\}\})?\{%-?\s*(link|post_url)\s+([^\s{}%]+)\s*-?%\}(?:#.*)?$"
)


# Liquid runs before markdown, so `[x]({% link a b %})` is a link though CommonMark, which
# allows no space in a destination, reads none
_LIQUID_DESTINATION = lazy(r"\]\((\s*(?:\{\{[^}\n]*\}\})?\{%[^%\n]*%\}[^)\s]*)\)")


def page_links(page: Page) -> list[tuple[str, int, str]]:
    """The links written with the `link` or `post_url` tag, outside code: (the source path
    from the site's source folder, line, as written)."""
    if "{%" not in page.text:
        return []
    code = page.code_line_numbers()
    out = []
    for found in _LIQUID_DESTINATION.finditer(page.text):
        line = page.text.count("\n", 0, found.start()) + 1
        written = found.group(1).strip()
        named = _liquid_link(written)
        if named is not None and line not in code:
            out.append((named, line, written))
    return out


def _liquid_link(target: str) -> str | None:
    """The source path (from the site's source folder) that the `link` or `post_url` tag
    names, which Jekyll turns into that file's URL and fails the build when there is no
    such file; None for any other template code."""
    found = _LIQUID_LINK.match(target.strip())
    if found is None:
        return None
    tag, path = found.groups()
    path = posixpath.normpath(path.strip("'\"").lstrip("/"))
    return f"_posts/{path}" if tag == "post_url" else path


def link_names_stem(written: str) -> bool:
    """Whether a tag link names its file less the suffix: `post_url` names the post by its
    date and title, whatever its suffix (`_posts/2024-01-05-x.*`)."""
    return "post_url" in written


GENERATOR = Generator(
    "jekyll", detect=detect, page_links=page_links, link_names_stem=link_names_stem
)
