"""DocFX (and Learn's Open Publishing): `docfx.json` gives the URL map (`src` -> `dest` under
the site's base path, which the pages' own site-root links reveal); several `src` folders
publishing into one `dest` are versions of the docs (and a URL space other docsets share); a
`toc.yml` the build lists but the tree lacks is generated (its folder's pages are placed by
it, and a link to `X.yml` names the page `X.md`, which the build turns into that YAML: Learn's
PowerShell reference); Open Publishing's redirection files when the repository has them.

What the checks ask of it: the entries of a `toc.yml` (`read_navigation`: nested `items`,
`href`, `topicHref` and `homepage` relative to the file) and Learn's redirection files
(`read_redirects`: a `redirections` list, or a publishing configuration's
`redirection_files`)."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from pathlib import Path
from typing import Any

from kbkit.infra.errors import UsageError
from kbkit.sites.config import (
    lenient_json,
    present,
    read_config,
)
from kbkit.sites.site import (
    FILE_PATH,
    Generator,
    Navigation,
    NavSource,
    Redirects,
    RedirectSource,
    Site,
)

MAX_FILES = 64  # redirection files one publishing configuration may name
SITE_LINK = re.compile(r"\]\(\s*<?(/[A-Za-z0-9][^)\s>#?]*)")


def detect(repo: Path) -> Site | None:
    """`docfx.json` at the top or one folder down."""
    found = _config_file(repo)
    return _site(repo, found) if found is not None else None


def _config_file(repo: Path) -> Path | None:
    if present(repo / "docfx.json"):
        return repo / "docfx.json"
    found = sorted(repo.glob("*/docfx.json"))
    return found[0] if found else None


def _site(repo: Path, path: Path) -> Site:
    folder = path.parent
    root = folder.relative_to(repo).as_posix() if folder != repo else "."
    config = path.relative_to(repo).as_posix()
    data = lenient_json(read_config(path))
    content = ((data.get("build") or {}) if isinstance(data, dict) else {}).get("content") or []
    by_dest: dict[str, list[str]] = {}
    generated_tocs: list[str] = []
    for entry in content if isinstance(content, list) else []:
        if not isinstance(entry, dict):
            continue
        src = str(entry.get("src") or "").strip("/") or "."
        dest = str(entry.get("dest") or "").strip("/")
        files = [str(f) for f in entry.get("files") or () if isinstance(f, str)]
        if (
            any(f.endswith(".md") for f in files)
            and dest
            and (folder / src).is_dir()
            and src != "."
        ):
            by_dest.setdefault(dest, [])
            if src not in by_dest[dest]:
                by_dest[dest].append(src)
        if "toc.yml" in files and src != "." and not (folder / src / "toc.yml").exists():
            generated_tocs.append(src)
    keys: dict[str, Any] = {}
    links: dict[str, Any] = {}
    base = _base_path(folder, list(by_dest))
    if base is not None and by_dest:
        links["url_map"] = {
            f"{base}{dest}/": srcs[0] if len(srcs) == 1 else srcs for dest, srcs in by_dest.items()
        }
        shared = [f"{base}{dest}/" for dest, srcs in by_dest.items() if len(srcs) > 1]
        if shared:
            links["url_shared"] = shared
    versions = sorted({src for srcs in by_dest.values() if len(srcs) > 1 for src in srcs})
    if versions:
        keys["versions"] = versions
    publish = repo / ".openpublishing.publish.config.json"
    if present(publish) and "redirection_files" in read_config(publish):
        links["redirects"] = publish.name
    elif (repo / ".openpublishing.redirection.json").is_file():
        links["redirects"] = ".openpublishing.redirection.json"
    generated = _metadata_dests(data)
    if generated:  # `docfx metadata` writes the API pages there: links to them are not broken
        links["generated"] = [f"/{dest}" for dest in generated]  # the folder and its pages
    if links:
        keys["links"] = links
    if generated_tocs:
        keys["index"] = {"placed": [f"{src}/**" for src in sorted(set(generated_tocs))]}
        # Learn's PowerShell reference: the build turns each page of such a folder into YAML
        # (platyPS), so `Set-X.yml#-name` names the page `Set-X.md`
        keys.setdefault("links", {}).setdefault("extensions", {})[".yml"] = [".md"]
    return Site("DocFX", config, "docfx", root, keys)


def _metadata_dests(data: Any) -> list[str]:
    """The folders (docfx.json-relative) `metadata` entries write their API pages into."""
    metadata = data.get("metadata") if isinstance(data, dict) else None
    dests = (
        str(entry.get("dest") or "").strip("/")
        for entry in (metadata if isinstance(metadata, list) else [])
        if isinstance(entry, dict)
    )
    return sorted({dest for dest in dests if dest and ".." not in dest.split("/")})


def _base_path(folder: Path, dests: list[str], limit: int = 3000) -> str | None:
    """The site path the docset is published under (`/powershell/`), from the pages' own
    site-root links: the folder most often written right before a `dest`."""
    if not dests:
        return None
    counts: Counter[str] = Counter()
    wanted = {dest.lower() for dest in dests}
    for number, page in enumerate(sorted(folder.rglob("*.md"))):
        if number >= limit:
            break
        try:
            text = read_config(page)
        except UsageError:  # a page that cannot be read tells nothing here
            continue
        for match in SITE_LINK.finditer(text):
            parts = match.group(1).strip("/").split("/")
            for index in range(1, len(parts)):
                if parts[index].lower() in wanted:
                    counts["/" + "/".join(parts[:index]) + "/"] += 1
                    break
            else:
                if parts and parts[0].lower() in wanted:
                    counts["/"] += 1
    if not counts:
        return None
    return posixpath.normpath(counts.most_common(1)[0][0]).rstrip("/") + "/"


def read_navigation(source: NavSource) -> Navigation | None:
    """A `toc.yml` of `index.toc_files`: its hrefs, relative to the file's folder (`/x`: a
    site path); links off the site, `xref:` names and fragments alone left out."""
    if source.key != "toc_files":
        return None
    hrefs: list[str] = []
    _items(source.data, hrefs)
    entries = tuple(
        (href, getattr(href, "line", 0))
        for href in hrefs
        if not ("://" in href or href.startswith(("mailto:", "//", "xref:", "#")))
    )
    return Navigation(entries, names=FILE_PATH)


def _items(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        for key in ("href", "topicHref", "homepage"):
            if isinstance(node.get(key), str) and node[key].strip():
                out.append(node[key])
        for key in ("items", "children"):
            if key in node:
                _items(node[key], out)
    elif isinstance(node, list):
        for item in node:
            _items(item, out)


def read_redirects(source: RedirectSource) -> Redirects | None:
    """Learn's redirects: `{"redirections": [{"source_path": ..., "redirect_url": ...}]}`
    (`source_path` relative to the file's own folder, `source_path_from_root` from the
    repository's top), or an Open Publishing configuration
    (`.openpublishing.publish.config.json`) whose `redirection_files` each hold such a list."""
    data = source.data
    if isinstance(data, dict) and isinstance(data.get("redirection_files"), list):
        files = _listed(source.repo, source.path, data["redirection_files"])
        mapping: dict[str, str] = {}
        for listed in files:
            mapping.update(_learn(source.repo, listed, source.load(listed)))
        return Redirects(mapping, from_repo=True, files=tuple(files))
    if isinstance(data, dict) and isinstance(data.get("redirections"), list):
        return Redirects(_learn(source.repo, source.path, data), from_repo=True)
    return None


def _listed(repo: Path, config: Path, names: list[Any]) -> list[Path]:
    if len(names) > MAX_FILES or not all(isinstance(n, str) for n in names):
        raise UsageError(f"{config}: redirection_files must list at most {MAX_FILES} paths")
    return [repo / str(name).lstrip("/") for name in names]


def _learn(repo: Path, path: Path, data: Any) -> dict[str, str]:
    """Learn's `redirections` list: repo-relative source path -> the URL it redirects to."""
    rows = data.get("redirections") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise UsageError(f"{path}: a redirection file holds a `redirections` list")
    folder = posixpath.relpath(str(path.parent), str(repo)) if path.parent != repo else ""
    out = {}
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("redirect_url"), str):
            continue
        if isinstance(row.get("source_path_from_root"), str):
            source = row["source_path_from_root"].lstrip("/")
        elif isinstance(row.get("source_path"), str):
            source = posixpath.normpath(posixpath.join(folder, row["source_path"]))
        else:
            continue
        out[source] = row["redirect_url"]
    return out


GENERATOR = Generator(
    "docfx", detect=detect, read_navigation=read_navigation, read_redirects=read_redirects
)
