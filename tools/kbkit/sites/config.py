"""What every site module shares: reading a generator's configuration file safely (a
regular file, at most MAX_CONFIG_BYTES, YAML within the limits), the YAML loader tables of
contents are read with, and the folder facts detection asks (pages, index page names).

While a repository's site is being detected (`detecting`), every file a module reads stays
inside it (`kbkit.infra.boundary`): a configuration that is a symlink out of the repository
is refused with exit 2 before a byte of it is read (`read_config`), and a page sampled to
tell a site by its look is passed over (`read_sample`)."""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra import json_input
from kbkit.infra.boundary import outside, within
from kbkit.infra.bounded_yaml import BoundedLoader, YamlLimitError, yaml_problem
from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import read_regular_bytes

_REPOSITORY: ContextVar[Path | None] = ContextVar("kbkit_detected_repository", default=None)


@contextlib.contextmanager
def detecting(repo: Path) -> Iterator[None]:
    """Site detection of `repo`: the files read meanwhile must lie inside it."""
    token = _REPOSITORY.set(repo)
    try:
        yield
    finally:
        _REPOSITORY.reset(token)


def _inside(path: Path) -> bool:
    repo = _REPOSITORY.get()
    return repo is None or within(repo, path)


def read_sample(path: Path, limit: int) -> str | None:
    """The first `limit` bytes of a page read to tell a site by its look, as text; None for
    one outside the repository, a FIFO or a device, or one that cannot be read."""
    if not _inside(path):
        return None
    try:
        return read_regular_bytes(path, limit)[:limit].decode("utf-8", "replace")
    except OSError:
        return None


MAX_CONFIG_BYTES = 1024 * 1024
INDEX_NAMES = ("_index.md", "index.md", "README.md")


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


def index_keys(folder: Path) -> dict[str, Any]:
    """`index_page` for docs whose folders mostly hold `index.md` or `README.md` (a folder's
    home page, which no page needs to link: it is never an orphan). Hugo's `_index.md` is
    the profile's own."""
    name = most_common_index({page.parent for page in folder.rglob("*.md")})
    return {"index_page": name} if name not in (None, "_index.md") else {}


def has_pages(folder: Path) -> bool:
    return folder.is_dir() and next(folder.rglob("*.md"), None) is not None


def present(path: Path) -> bool:
    """Something other than a folder is there: the file, or a FIFO or a device in its
    place, which `read_config` then refuses instead of passing over it."""
    return path.exists() and not path.is_dir()


def read_config(path: Path) -> str:
    """The text of a configuration file (its first MAX_CONFIG_BYTES); anything but a regular
    file is refused without being opened (a FIFO would wait for a writer forever), and so
    is one outside the repository being detected (`detecting`)."""
    if not _inside(path):
        repo = _REPOSITORY.get()
        raise outside("the file", path, repo, "the repository")
    try:
        data = read_regular_bytes(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    return data[:MAX_CONFIG_BYTES].decode("utf-8", "replace")


def read_json(path: Path) -> Any:
    """A JSON configuration file's value; None when absent or not JSON (a non-regular file
    is refused by `read_config`)."""
    if not present(path):
        return None
    try:
        return json_input.loads(read_config(path))
    except ValueError:
        return None


def over_limits(path: Path, exc: YamlLimitError) -> UsageError:
    """A configuration refused for its size: said, never taken for an empty one."""
    line, problem = yaml_problem(exc)
    return UsageError(f"{path}{f':{line}' if line else ''}: not read: {problem}")


def most_common_index(folders: Iterable[Path]) -> str | None:
    """The index page name (`INDEX_NAMES`) most of `folders` hold, ties to the earlier name;
    None when no folder holds one."""
    names = Counter(name for folder in folders for name in INDEX_NAMES if (folder / name).is_file())
    if not names:
        return None
    return max(INDEX_NAMES, key=lambda name: (names[name], -INDEX_NAMES.index(name)))


def dig(data: Any, *keys: str) -> Any:
    """`data[k1][k2]...`, or None where a level is missing or no mapping."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def lenient_json(text: str) -> Any:
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


# a folder named as a version of the docs: v3, 3.1, v2.x, 1.76.0, Docusaurus' version-0.78
VERSION_NAME = re.compile(r"(?:version-)?v?\d+(?:\.(?:\d+|x))*", re.IGNORECASE)
# the unnumbered versions that sit beside numbered ones (the docs of the next release)
VERSION_WORDS = frozenset(
    {"next", "dev", "_dev", "latest", "current", "unreleased", "main", "master"}
)
MAX_VERSION_DEPTH = 4  # how deep under the root version folders are looked for


def version_folders(top: Path) -> list[str]:
    """Globs (relative to `top`) of the folders that each hold one version of the same docs
    (`docs/v1.2/`, `docs/v1.3/`...): folders named as versions, two or more in the tree,
    with no version folder inside; beside numbered ones, `next`, `dev`, `latest`... count
    too. `parent/*` where every folder of a parent is such a version, else each by name."""
    found: dict[str, list[str]] = {}  # parent -> its version folders
    others: set[str] = set()  # parents that also hold other folders
    stack = [(top, "", 0)]
    while stack:
        folder, rel, depth = stack.pop()
        try:
            children = sorted(p.name for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
        children = [c for c in children if not c.startswith(".")]
        numbered = [c for c in children if VERSION_NAME.fullmatch(c)]
        versions = numbered + [c for c in children if numbered and c.lower() in VERSION_WORDS]
        for child in children:
            path = f"{rel}/{child}" if rel else child
            if child in versions:
                found.setdefault(rel, []).append(child)
            else:
                others.add(rel)
            if depth + 1 < MAX_VERSION_DEPTH:
                stack.append((folder / child, path, depth + 1))
    leaves = {
        parent: [v for v in names if f"{parent}/{v}".lstrip("/") not in found]
        for parent, names in found.items()
    }
    if sum(len(names) for names in leaves.values()) < 2:
        return []
    globs = []
    for parent, names in sorted(leaves.items()):
        if not names:
            continue
        if parent not in others and len(names) == len(found[parent]):
            globs.append(f"{parent}/*" if parent else "*")
        else:
            globs.extend(f"{parent}/{name}" if parent else name for name in sorted(names))
    return globs
