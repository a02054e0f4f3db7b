"""The site's redirects, read from the files its build reads (`links.redirects`).

`links.redirects` names one repo-relative file or a list of them. Each is read in the shape
its generator gives it: the generators of `kbkit.sites` are asked in turn
(`Generator.read_redirects`: Learn's redirection files, recognised from their content; a
MkDocs configuration's redirects plugin; mdBook's `book.toml`); a file none of them reads is
a mapping `{old path: new path}` (JSON or YAML), or the mapping under `links.redirects_key`
in a larger site configuration (Middleman's `tech-docs.yml`).

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
from kbkit.infra.boundary import confine
from kbkit.infra.bounded_yaml import yaml_problem
from kbkit.infra.config_file import read_config_bytes, read_config_text
from kbkit.infra.errors import UsageError
from kbkit.policy.model import Policy
from kbkit.sites.site import Redirects, RedirectSource

MAX_REDIRECTS_BYTES = 8 * 1024 * 1024
EXTERNAL = "\0external"

RedirectMap = dict[str, str]


def configured(policy: Policy) -> tuple[str, ...]:
    """The repo-relative files `links.redirects` names (none when unset)."""
    value = (policy.data.get("links") or {}).get("redirects")
    if not value:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(map(str, value))


def redirect_files(repo: Path, policy: Policy) -> list[Path]:
    """Every file the redirects are read from, the files a generator's reads followed."""
    out: list[Path] = []
    key = (policy.data.get("links") or {}).get("redirects_key")
    for name in configured(policy):
        path = repo / name
        read = _site_redirects(repo, path, _parse(path, _read(repo, path)), key is not None)
        out.append(path)
        if read is not None:
            out.extend(read.files)
    return out


def _site_redirects(repo: Path, path: Path, data: Any, keyed: bool) -> Redirects | None:
    """The redirects file as the first generator that reads it says (None: none does)."""
    from kbkit.sites import hooks

    source = RedirectSource(
        repo, path, data, keyed, lambda other: _parse(other, _read(repo, other))
    )
    for read in hooks("read_redirects"):
        found: Redirects | None = read(source)
        if found is not None:
            return found
    return None


def load_redirects(repo: Path, policy: Policy, place: Any) -> RedirectMap:
    """Old root-relative path -> new path, from every configured file. `place(path)` turns
    a site path (`/x`) into a root-relative one (None: not this site's)."""
    root = policy.knowledge_root
    key = (policy.data.get("links") or {}).get("redirects_key")
    out: RedirectMap = {}
    for name in configured(policy):
        path = repo / name
        data = _parse(path, _read(repo, path))
        read = _site_redirects(repo, path, data, key is not None)
        if read is not None and read.from_repo:
            out.update(_from_repo(read.mapping, root))
        elif read is not None:
            out.update(_mapping(path, read.mapping, place, relative=read.new_from_old))
        elif key is not None:  # the mapping is one key of a larger site configuration
            if not isinstance(data, dict) or not isinstance(data.get(key), dict):
                raise UsageError(f"{path}: no mapping under the key {key!r} (links.redirects_key)")
            out.update(_mapping(path, data[key], place))
        else:
            out.update(_mapping(path, data, place))
    return out


def _mapping(path: Path, data: Any, place: Any, relative: bool = False) -> RedirectMap:
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


def _from_repo(mapping: dict[str, str], root: str) -> RedirectMap:
    """Old paths that are files of the repository: those under the knowledge root."""
    out = {}
    for source, new in mapping.items():
        if not (source.startswith(root + "/") or not root):
            continue  # a file outside the knowledge root
        out[_clean(source[len(root) + 1 :] if root else source)] = _new(new)
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


def _read(repo: Path, path: Path) -> str:
    """A redirects file's text, refused unread (exit 2) when it leads outside the repository
    (its targets would otherwise reach the findings)."""
    confine(repo, path, "the redirects file", repo=repo)
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
        confine(repo, path, "the redirects file", repo=repo)
        digest.update(read_config_bytes(path, MAX_REDIRECTS_BYTES, "the redirects file"))
        digest.update(b"\0")
    return digest.hexdigest()
