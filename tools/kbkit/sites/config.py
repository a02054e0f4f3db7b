"""What every site module shares: reading a generator's configuration file safely (a
regular file, at most MAX_CONFIG_BYTES, YAML within the limits), the YAML loader tables of
contents are read with, and the folder facts detection asks (pages, index page names)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra import json_input
from kbkit.infra.bounded_yaml import BoundedLoader, YamlLimitError, yaml_problem
from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import read_regular_bytes

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
    file is refused without being opened (a FIFO would wait for a writer forever)."""
    try:
        data = read_regular_bytes(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    return data[:MAX_CONFIG_BYTES].decode("utf-8", "replace")


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
