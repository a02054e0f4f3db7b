"""Hugo: the folder mounted as content (`module.mounts`, a language's `contentDir`, else
`content/`), with the `hugo` profile."""

from __future__ import annotations

import posixpath
import tomllib
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra import json_input
from kbkit.infra.bounded_yaml import YamlLimitError, load_yaml
from kbkit.sites.config import (
    dig,
    has_pages,
    over_limits,
    present,
    read_config,
)
from kbkit.sites.site import Site


def detect(repo: Path) -> Site | None:
    """`hugo.toml|yaml|json`, or the older `config.toml|yaml` beside a `content/` folder."""
    found = [p for p in ("hugo.toml", "hugo.yaml", "hugo.json") if present(repo / p)]
    if not found and has_pages(repo / "content"):  # the older name, beside content pages
        found = [p for p in ("config.toml", "config.yaml") if present(repo / p)]
    if not found:
        return None
    root, keys = _content(repo / found[0])
    return Site("Hugo", found[0], "hugo", root, keys)


def _content(config: Path) -> tuple[str, dict[str, Any]]:
    """The folder Hugo reads pages from: the source a module mount maps to `content`, else
    the one language's `contentDir`, else the top `contentDir`, else `content`; and the
    policy keys the configuration implies (definition term ids)."""
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
    if dig(data, "markup", "goldmark", "parser", "autoDefinitionTermID") is True:
        keys["links"] = {"definition_ids": True}
    for found in candidates:
        folder = str(found or "").strip("/")
        if folder and ".." not in folder.split("/") and (config.parent / folder).is_dir():
            return posixpath.normpath(folder), keys
    return "content", keys
