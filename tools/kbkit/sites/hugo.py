"""Hugo: the folder mounted as content (`module.mounts`, a language's `contentDir`, else
`content/`), with the `hugo` profile: a page `a/b.md` is served at `/a/b/` and its relative
links resolve from there; `x.md` links resolve from the file only where a link render hook
rewrites them, and where the hook looks pages up with `.GetPage` a relative link that names
no page from the page's URL is looked up from its folder, then from the content folder."""

from __future__ import annotations

import posixpath
import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra import json_input
from kbkit.infra.bounded_yaml import YamlLimitError, load_yaml
from kbkit.infra.lazy_pattern import lazy
from kbkit.sites.config import (
    dig,
    has_pages,
    over_limits,
    present,
    read_config,
)
from kbkit.sites.plain import SKIPPED
from kbkit.sites.site import Generator, Site, lines_led_by

PUBLISHED = (
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".adoc",
    ".asciidoc",
    ".org",
    ".pandoc",
    ".rst",
)  # the page files it builds


def detect(repo: Path) -> Site | None:
    """`hugo.toml|yaml|json`, or the older `config.toml|yaml` beside a `content/` folder."""
    return _site(repo, "")


def detect_nested(repo: Path) -> Site | None:
    """A Hugo site one folder down (`docs/`, `website/`, `docs-v2/`), asked after every
    generator's configuration at the top; of several (one per version of the docs), the one
    with the most pages."""
    found = []
    for child in sorted(repo.iterdir()) if repo.is_dir() else ():
        if child.name.startswith((".", "_")) or child.name in SKIPPED or child.is_symlink():
            continue
        if child.is_dir():
            site = _site(repo, child.name)
            if site is not None:
                found.append(site)
    if not found:
        return None
    return max(found, key=lambda site: (_pages(repo / site.root), site.root))


def _pages(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.md")) if folder.is_dir() else 0


def _site(repo: Path, folder: str) -> Site | None:
    """The Hugo site whose configuration is in repo-relative `folder` ("" for the top)."""
    base = repo / folder if folder else repo
    found = [p for p in ("hugo.toml", "hugo.yaml", "hugo.json") if present(base / p)]
    if not found and has_pages(base / "content"):  # the older name, beside content pages
        found = [p for p in ("config.toml", "config.yaml") if present(base / p)]
    if not found:
        return None
    data = _config_data(base / found[0])
    content, keys = _content(base / found[0], data)
    root = posixpath.join(folder, content) if folder else content
    links = keys.setdefault("links", {})
    static = [posixpath.join(folder, s) if folder else s for s in _static_dirs(base, data)]
    if static:  # served from the site's root: relative to the knowledge root
        links["site_files"] = [posixpath.relpath(name, root) for name in static]
    hooks = _link_render_hooks(base)
    if hooks:
        links["md_from_file"] = True
    if any("GetPage" in read_config(hook) for hook in hooks):
        links["page_lookup"] = True  # relative destinations looked up as .GetPage does
    own = sorted({word for hook in hooks for word in _HOOK_WORD.findall(read_config(hook))})
    if own:
        links["hook_destinations"] = own  # `[term](g)`: the hook's own syntax, not a path
    if not links:
        del keys["links"]
    config = posixpath.join(folder, found[0]) if folder else found[0]
    return Site("Hugo", config, "hugo", root, keys, PUBLISHED)


# a link render hook that compares the destination with a literal gives it a meaning of its
# own (`{{ if eq $u.String "g" }}`: a glossary term): `eq` with `.Destination`, or with the
# string or path of what `urls.Parse .Destination` gave
_HOOK_WORD = re.compile(
    r"""\beq\s+(?:\.Destination|\$\w+\.(?:String|Path))\s+["`]([^"`\s{}]+)["`]"""
)


def _config_data(config: Path) -> dict[str, Any]:
    """The site configuration as a mapping ({} when it does not parse)."""
    text = read_config(config)
    try:
        if config.suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif config.suffix == ".json":
            data = json_input.loads(text)
        else:
            data = load_yaml(text)
    except YamlLimitError as exc:
        raise over_limits(config, exc) from exc
    except (ValueError, yaml.YAMLError):
        data = None
    return data if isinstance(data, dict) else {}


def _static_dirs(repo: Path, data: dict[str, Any]) -> list[str]:
    """The repo-relative folders Hugo serves from the site root: `staticDir` (one or a
    list; default `static`), those that exist."""
    value = data.get("staticDir", "static")
    names = value if isinstance(value, list) else [value]
    found = []
    for name in names:
        folder = str(name or "").strip("/")
        if folder and ".." not in folder.split("/") and (repo / folder).is_dir():
            found.append(posixpath.normpath(folder))
    return found


def _link_render_hooks(repo: Path) -> list[Path]:
    """The hooks the site or its themes render links through
    (`layouts/**/_markup/render-link.html`), which sites use to turn `x.md` into the page's
    URL; without one Hugo writes `x.md` into the page as it is. A hook that looks the
    destination up with `.GetPage` finds a page relative to the page's folder, else to the
    content folder."""
    return sorted(
        hook
        for hook in (
            *repo.glob("layouts/**/_markup/render-link*.html"),
            *repo.glob("themes/*/layouts/**/_markup/render-link*.html"),
        )
        if hook.is_file()
    )


def _content(config: Path, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The folder Hugo reads pages from: the source a module mount maps to `content`, else
    the one language's `contentDir`, else the top `contentDir`, else `content`; and the
    policy keys the configuration implies (definition term ids)."""
    module: dict[str, Any] = data["module"] if isinstance(data.get("module"), dict) else {}
    mounts: list[Any] = module["mounts"] if isinstance(module.get("mounts"), list) else []
    languages: dict[str, Any] = data["languages"] if isinstance(data.get("languages"), dict) else {}
    candidates = [
        *(m.get("source") for m in mounts if isinstance(m, dict) and m.get("target") == "content"),
        *(
            [lang.get("contentDir") for lang in languages.values() if isinstance(lang, dict)]
            if len(languages) == 1
            else []
        ),
        data.get("contentDir"),
    ]
    keys: dict[str, Any] = {}
    if dig(data, "markup", "goldmark", "parser", "autoDefinitionTermID") is True:
        keys["links"] = {"definition_ids": True}
    for found in candidates:
        folder = str(found or "").strip("/")
        if folder and ".." not in folder.split("/") and (config.parent / folder).is_dir():
            return posixpath.normpath(folder), keys
    return "content", keys


# a shortcode on a line of its own, whose output may be markdown (`{{% include "x.md" %}}`)
_SHORTCODE = lazy(r"[ \t]*\{\{%-?\s*(/?)\s*([\w./-]+)")


def inserts_text(text: str) -> tuple[int, ...]:
    """The shortcode lines that may insert another file's markdown: not one end of a paired
    shortcode (`{{% alert %}}` ... `{{% /alert %}}`), which renders the page's own text
    between them (`.Inner`, read here), wrapped in the template's HTML, which takes no
    heading ids."""
    if "{{%" not in text:
        return ()
    closed = _closed_names(text)
    return tuple(
        start for start in lines_led_by(text, "{{%") if not _wraps_own_text(text, start, closed)
    )


def _wraps_own_text(text: str, start: int, closed: frozenset[str]) -> bool:
    found = _SHORTCODE.match(text, start)
    if found is None:
        return False
    closing, name = found.groups()
    return bool(closing) or name in closed


_CLOSING = lazy(r"\{\{%-?\s*/\s*([\w./-]+)\s*-?%\}\}")


def _closed_names(text: str) -> frozenset[str]:
    """The shortcode names the page closes (`{{% /name %}}`), in one pass: where a name ends
    in `-` right before `%}}` (`{{% /alert-%}}`), the `-` may be the trim mark, so both
    readings count."""
    names = set()
    for found in _CLOSING.finditer(text):
        name = found.group(1)
        names.add(name)
        if name.endswith("-") and text.startswith("%}}", found.end(1)):
            names.add(name[:-1])
    return frozenset(names)


GENERATOR = Generator("hugo", detect=detect, detect_later=detect_nested, inserts_text=inserts_text)
