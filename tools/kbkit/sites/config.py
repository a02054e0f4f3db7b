"""Which site generator builds a repository's docs, and the policy that reads them as it does.

`kb init` asks `detect_site` before it scaffolds anything: a repository whose docs a
generator builds gets the generator's built-in profile and its docs folder as the knowledge
root, read from the generator's own configuration:

- MkDocs (`mkdocs.yml`): `docs_dir` (default `docs`); attr_list and pymdownx.tabbed ids only
  when `markdown_extensions` lists them.
- mdBook (`book.toml` at the top or one folder down): `[book] src` (default `src`).
- DocFX (`docfx.json` at the top or one folder down): its folder is the root; `build.content`
  gives the URL map (`src` -> `dest` under the site's base path, which the pages' own
  site-root links reveal), several `src` folders publishing into one `dest` are versions
  of the docs (and a URL space other docsets share), a `toc.yml` the build lists but the
  tree lacks is generated (its folder's pages are placed by it); Open Publishing's
  redirection files when the repository has them.
- Docusaurus (`docusaurus.config.*`: `docs/`): the `public-docs` stance.
- Hugo (`hugo.*`, or `config.*` beside a `content/` folder): the `hugo` profile on the
  folder mounted as content (`module.mounts`, a language's `contentDir`; `content/`).
- No generator, a `docs/` folder with pages and no `knowledge/`: `public-docs` on `docs/`.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.infra import json_input
from kbkit.infra.bounded_yaml import BoundedLoader, YamlLimitError, load_yaml, yaml_problem
from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import read_regular_bytes

MAX_CONFIG_BYTES = 1024 * 1024
SITE_LINK = re.compile(r"\]\(\s*<?(/[A-Za-z0-9][^)\s>#?]*)")


class Site(NamedTuple):
    generator: str  # what builds it, in words ("MkDocs", "a docs/ folder")
    config: str  # the repo-relative file (or folder) that told
    profile: str  # the built-in profile
    root: str  # the knowledge root, repo-relative ("." for the top)
    keys: dict[str, Any]  # policy keys beyond the profile's


class TocLoader(BoundedLoader):
    """Safe (C where present: a docset's tables of contents run to megabytes, which the
    pure-Python parser reads 9x slower), within the YAML limits (an alias bomb or a huge
    integer is refused), and reads tags such as mkdocs' `!!python/name:` or `!ENV` as
    plain null."""


class LinedText(str):
    """A YAML string that knows its line (findings on an entry name the entry's line)."""

    line = 0


def _text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> LinedText:
    value = LinedText(loader.construct_scalar(node))
    value.line = node.start_mark.line + 1
    return value


TocLoader.add_multi_constructor("", lambda loader, suffix, node: None)
TocLoader.add_constructor("tag:yaml.org,2002:str", _text)


def detect_site(repo: Path) -> Site | None:
    """The generator that builds `repo`'s docs, or None."""
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if _present(repo / name):
            return _mkdocs(repo, name)
    if _present(repo / "book.toml"):
        return _mdbook(repo, repo / "book.toml")
    docfx = _docfx_file(repo)
    if docfx is not None:
        return _docfx(repo, docfx)
    for suffix in ("js", "ts", "mjs", "cjs"):
        if (repo / f"docusaurus.config.{suffix}").is_file() and _has_pages(repo / "docs"):
            config = f"docusaurus.config.{suffix}"
            return Site("Docusaurus", config, "public-docs", "docs", _index_keys(repo / "docs"))
    hugo = [p for p in ("hugo.toml", "hugo.yaml", "hugo.json") if _present(repo / p)]
    if not hugo and _has_pages(repo / "content"):  # the older name, beside content pages
        hugo = [p for p in ("config.toml", "config.yaml") if _present(repo / p)]
    if hugo:
        root, keys = _hugo(repo / hugo[0])
        return Site("Hugo", hugo[0], "hugo", root, keys)
    books = sorted(repo.glob("*/book.toml"))  # a book one folder down (`guide/`, `docs/`)
    if books:
        return _mdbook(repo, books[0])
    if _has_pages(repo / "docs") and not (repo / "knowledge").exists():
        return Site("a docs/ folder", "docs/", "public-docs", "docs", _index_keys(repo / "docs"))
    return None


def _index_keys(folder: Path) -> dict[str, Any]:
    """`index_page` for docs whose folders mostly hold `index.md` or `README.md` (a folder's
    home page, which no page needs to link: it is never an orphan). Hugo's `_index.md` is
    the profile's own."""
    from kbkit.policy.inference import most_common_index

    name = most_common_index({page.parent for page in folder.rglob("*.md")})
    return {"index_page": name} if name not in (None, "_index.md") else {}


def _has_pages(folder: Path) -> bool:
    return folder.is_dir() and next(folder.rglob("*.md"), None) is not None


def _present(path: Path) -> bool:
    """Something other than a folder is there: the file, or a FIFO or a device in its
    place, which `_read` then refuses instead of passing over it."""
    return path.exists() and not path.is_dir()


def _read(path: Path) -> str:
    """The text of a configuration file (its first MAX_CONFIG_BYTES); anything but a regular
    file is refused without being opened (a FIFO would wait for a writer forever)."""
    try:
        data = read_regular_bytes(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    return data[:MAX_CONFIG_BYTES].decode("utf-8", "replace")


def _over_limits(path: Path, exc: YamlLimitError) -> UsageError:
    """A configuration refused for its size: said, never taken for an empty one."""
    line, problem = yaml_problem(exc)
    return UsageError(f"{path}{f':{line}' if line else ''}: not read: {problem}")


def _mkdocs(repo: Path, name: str) -> Site:
    try:
        data = yaml.load(_read(repo / name), Loader=TocLoader)  # noqa: S506 - a safe loader
    except YamlLimitError as exc:
        raise _over_limits(repo / name, exc) from exc
    except yaml.YAMLError:
        data = None
    data = data if isinstance(data, dict) else {}
    root = str(data.get("docs_dir") or "docs").strip("/") or "."
    extensions = set()
    for item in data.get("markdown_extensions") or ():
        extensions.add(str(next(iter(item)) if isinstance(item, dict) and item else item))
    keys: dict[str, Any] = {}
    links = {}
    if "attr_list" not in extensions:
        links["attr_list"] = False
    if "pymdownx.tabbed" not in extensions:
        links["tabbed"] = False
    plugins = {
        str(next(iter(p)) if isinstance(p, dict) and p else p) for p in data.get("plugins") or ()
    }
    if (
        not {"pymdownx.snippets", "mkdocs-click", "mkautodoc"} & extensions
        and "mkdocstrings" not in plugins
    ):
        links["inserted_text"] = False  # no page can pull in text (and headings)
    if links:
        keys["links"] = links
    return Site("MkDocs", name, "mkdocs", root, keys)


def _hugo(config: Path) -> tuple[str, dict[str, Any]]:
    """The folder Hugo reads pages from: the source a module mount maps to `content`, else
    the one language's `contentDir`, else the top `contentDir`, else `content`; and the
    policy keys the configuration implies (definition term ids)."""
    text = _read(config)
    try:
        if config.suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif config.suffix == ".json":
            data = json_input.loads(text)
        else:
            data = load_yaml(text)
    except YamlLimitError as exc:
        raise _over_limits(config, exc) from exc
    except (ValueError, yaml.YAMLError):
        data = None
    data = data if isinstance(data, dict) else {}
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
    if _dig(data, "markup", "goldmark", "parser", "autoDefinitionTermID") is True:
        keys["links"] = {"definition_ids": True}
    for found in candidates:
        folder = str(found or "").strip("/")
        if folder and ".." not in folder.split("/") and (config.parent / folder).is_dir():
            return posixpath.normpath(folder), keys
    return "content", keys


def _dig(data: Any, *keys: str) -> Any:
    """`data[k1][k2]...`, or None where a level is missing or no mapping."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _mdbook(repo: Path, path: Path) -> Site:
    """The book whose `book.toml` is `path`: its `[book] src` folder, from the book's own."""
    try:
        data = tomllib.loads(_read(path))
    except ValueError:
        data = {}
    book: dict[str, Any] = data["book"] if isinstance(data.get("book"), dict) else {}
    src = str(book.get("src") or "src").strip("/") or "."
    folder = path.parent.relative_to(repo).as_posix()
    root = posixpath.normpath(posixpath.join(folder, src))
    config = path.relative_to(repo).as_posix()
    # the profile reads the redirects of a book.toml at the top
    keys = {} if folder == "." else {"links": {"redirects": config}}
    return Site("mdBook", config, "mdbook", root, keys)


def _docfx_file(repo: Path) -> Path | None:
    if _present(repo / "docfx.json"):
        return repo / "docfx.json"
    found = sorted(repo.glob("*/docfx.json"))
    return found[0] if found else None


def _docfx(repo: Path, path: Path) -> Site:
    folder = path.parent
    root = folder.relative_to(repo).as_posix() if folder != repo else "."
    config = path.relative_to(repo).as_posix()
    data = _lenient_json(_read(path))
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
    if _present(publish) and "redirection_files" in _read(publish):
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


def _lenient_json(text: str) -> Any:
    """JSON as DocFX reads it (Json.NET): a byte order mark, trailing commas and `//` line
    comments allowed."""
    text = text.removeprefix("\ufeff")
    try:
        return json_input.loads(text)
    except ValueError:
        pass
    text = re.sub(r"(?m)^\s*//.*$", "", text)
    text = re.sub(r",(\s*[}\]])", r"\1", text)
    try:
        return json_input.loads(text)
    except ValueError:
        return {}


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
            text = _read(page)
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
