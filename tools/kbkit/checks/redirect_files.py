"""The site's redirects, read from the files its build reads (`links.redirects`).

`links.redirects` names one repo-relative file or a list of them. Each is read in the shape
its generator gives it, recognised from its content:

- a mapping `{old path: new path}` (JSON or YAML), or the mapping under
  `links.redirects_key` in a larger site configuration (Middleman's `tech-docs.yml`);
- Learn / DocFX: `{"redirections": [{"source_path": ..., "redirect_url": ...}, ...]}`
  (`source_path` relative to the file's own folder, `source_path_from_root` from the
  repository's top);
- an Open Publishing configuration (`.openpublishing.publish.config.json`): the files its
  `redirection_files` list names, each of the Learn shape;
- `mkdocs.yml` (or the `mkdocs*.yml` the site builds with): the mkdocs-redirects plugin's
  `redirect_maps` (paths of the docs folder);
- `book.toml` (mdBook): the `[output.html.redirect]` table (a new path relative to the old
  one's folder).

Old paths become knowledge-root-relative paths (a site path `/x` through the link model's
site root or URL map); new paths stay root-relative paths, site paths (`/x`, resolved by
the link model when a link is followed) or `EXTERNAL` (off the site).
"""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra import json_input
from kbkit.infra.bounded_yaml import yaml_problem
from kbkit.infra.config_file import read_config_bytes, read_config_text
from kbkit.infra.errors import UsageError
from kbkit.policy.model import Policy

MAX_REDIRECTS_BYTES = 8 * 1024 * 1024
MAX_FILES = 64  # redirection files one publishing configuration may name
EXTERNAL = "\0external"

Redirects = dict[str, str]


def configured(policy: Policy) -> tuple[str, ...]:
    """The repo-relative files `links.redirects` names (none when unset)."""
    value = (policy.data.get("links") or {}).get("redirects")
    if not value:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(map(str, value))


def redirect_files(repo: Path, policy: Policy) -> list[Path]:
    """Every file the redirects are read from, publishing configurations followed."""
    out: list[Path] = []
    for name in configured(policy):
        path = repo / name
        data = _parse(path, _read(path))
        out.append(path)
        if isinstance(data, dict) and isinstance(data.get("redirection_files"), list):
            out.extend(_listed(repo, path, data["redirection_files"]))
    return out


def _listed(repo: Path, config: Path, names: list[Any]) -> list[Path]:
    if len(names) > MAX_FILES or not all(isinstance(n, str) for n in names):
        raise UsageError(f"{config}: redirection_files must list at most {MAX_FILES} paths")
    return [repo / str(name).lstrip("/") for name in names]


def load_redirects(repo: Path, policy: Policy, place: Any) -> Redirects:
    """Old root-relative path -> new path, from every configured file. `place(path)` turns
    a site path (`/x`) into a root-relative one (None: not this site's)."""
    root = policy.knowledge_root
    key = (policy.data.get("links") or {}).get("redirects_key")
    out: Redirects = {}
    for name in configured(policy):
        path = repo / name
        data = _parse(path, _read(path))
        if isinstance(data, dict) and isinstance(data.get("redirection_files"), list):
            for listed in _listed(repo, path, data["redirection_files"]):
                out.update(_learn(repo, listed, _parse(listed, _read(listed)), root, place))
        elif isinstance(data, dict) and isinstance(data.get("redirections"), list):
            out.update(_learn(repo, path, data, root, place))
        elif key is not None:  # the mapping is one key of a larger site configuration
            if not isinstance(data, dict) or not isinstance(data.get(key), dict):
                raise UsageError(f"{path}: no mapping under the key {key!r} (links.redirects_key)")
            out.update(_mapping(path, data[key], place))
        elif path.suffix == ".toml":
            table = ((data.get("output") or {}).get("html") or {}).get("redirect") or {}
            out.update(_mapping(path, table, place, relative=True))
        elif path.name.startswith("mkdocs") and path.suffix in (".yml", ".yaml"):
            if isinstance(data, dict) and isinstance(data.get("INHERIT"), str):
                from kbkit.sites.mkdocs import load_config

                data = load_config(path, data)  # the plugins its parent lists
            out.update(_mapping(path, _mkdocs_maps(data), place))
        else:
            out.update(_mapping(path, data, place))
    return out


def _mkdocs_maps(data: Any) -> dict[str, Any]:
    for plugin in (data.get("plugins") or []) if isinstance(data, dict) else []:
        if isinstance(plugin, dict) and isinstance(plugin.get("redirects"), dict):
            return dict(plugin["redirects"].get("redirect_maps") or {})
    return {}


def _mapping(path: Path, data: Any, place: Any, relative: bool = False) -> Redirects:
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise UsageError(f"{path}: the redirects file must map old paths to new paths (text)")
    out = {}
    for old, new in data.items():
        source = _old(old, place)
        if source is None:
            continue
        if relative and not new.startswith("/") and "://" not in new:
            new = posixpath.join(posixpath.dirname(source), new)
        out[source] = _new(new)
    return out


def _learn(repo: Path, path: Path, data: Any, root: str, place: Any) -> Redirects:
    """Learn's `redirections` list: source paths are files of the repository."""
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
        if not (source.startswith(root + "/") or not root):
            continue  # a file outside the knowledge root
        out[_clean(source[len(root) + 1 :] if root else source)] = _new(row["redirect_url"])
    return out


def _old(path: str, place: Any) -> str | None:
    path = path.split("#", 1)[0].split("?", 1)[0]
    if path.startswith("/"):
        found = place(path)
        return found[0] if found else None
    return _clean(path)


def _new(path: str) -> str:
    if "://" in path or path.startswith(("mailto:", "//")):
        return EXTERNAL
    path = path.split("#", 1)[0].split("?", 1)[0]
    return path if path.startswith("/") else _clean(path)


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
    return "" if cleaned == "." else cleaned


def _read(path: Path) -> str:
    return read_config_text(path, MAX_REDIRECTS_BYTES, "the redirects file")


def _parse(path: Path, text: str) -> Any:
    try:
        if path.suffix == ".json":
            return json_input.loads(text)
        if path.suffix == ".toml":
            import tomllib  # a tenth of `kb check`'s fixed cost spent on imports: only when read

            return tomllib.loads(text)
        from kbkit.sites.config import TocLoader  # within the YAML limits

        return yaml.load(text, Loader=TocLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:  # the line and the problem, in YAML's words
        line, problem = yaml_problem(exc)
        where = f"{path}:{line}" if line else f"{path}"
        raise UsageError(f"{where}: invalid redirects file YAML: {problem}") from exc
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise UsageError(f"{path}: the redirects file is not valid JSON or TOML ({exc})") from exc


def redirects_digest(repo: Path, policy: Policy) -> str:
    """What the result snapshot must know of the redirects (every file's bytes' hash)."""
    files = redirect_files(repo, policy)
    if not files:
        return ""
    digest = hashlib.sha256()
    for path in files:
        digest.update(read_config_bytes(path, MAX_REDIRECTS_BYTES, "the redirects file"))
        digest.update(b"\0")
    return digest.hexdigest()
