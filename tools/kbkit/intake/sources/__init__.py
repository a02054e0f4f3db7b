"""Intake sources: one module per place merged changes and bugfix runs come from, each behind
the one interface of `sources.base` (a name, the `via` and kind of its rows, the identity of a
repository and of a change; a host's source also scans a window and reads one change).

The registry below is the only list of them: one line per source, loaded when first named.
"""

from __future__ import annotations

import importlib

from kbkit.infra.errors import UsageError
from kbkit.intake.sources.base import ChangeSource, Source

REGISTRY = {
    "github": "kbkit.intake.sources.github",  # pull requests, through gh
    "gitlab": "kbkit.intake.sources.gitlab",  # merge requests, GitLab's REST API v4
    "git": "kbkit.intake.sources.git",  # merges in a local git history
    "drop": "kbkit.intake.sources.drop",  # bugfix records dropped as files
    "mailbox": "kbkit.intake.sources.mailbox",  # bugfix records posted as issue comments
}


def load(name: str) -> Source:
    """The module of source `name`; a UsageError naming the sources there are."""
    if name not in REGISTRY:
        raise UsageError(f"no intake source {name!r}; the sources are {', '.join(REGISTRY)}")
    module = importlib.import_module(REGISTRY[name])
    if not isinstance(module, Source):
        raise TypeError(f"{REGISTRY[name]} does not implement the intake source interface")
    return module


def change_sources() -> list[str]:
    """The names of the sources that scan a host's merged changes (`record-prs --source`)."""
    return [name for name in REGISTRY if isinstance(load(name), ChangeSource)]


def change_source(name: str) -> ChangeSource:
    """Source `name` as a scanner of merged changes; a UsageError when it is not one."""
    source = load(name)
    if not isinstance(source, ChangeSource):
        raise UsageError(
            f"the {name} source does not scan a host's merged changes; "
            f"use one of {', '.join(change_sources())}"
        )
    return source
