"""Which folder a check will walk, guessed before the policy is loaded.

`kb check` starts walking the tree in a forked child before it imports the policy loader and
the parser, so that the walk runs beside those imports. It has to guess the folder: what the
repository's `kbkit.yaml` says at its top level (`knowledge_root: docs`, the line `kb init`
writes), else the default policy's `knowledge`. The guess is never trusted: once the policy
is loaded, a walk begun under another folder is thrown away and done again under the right
one (it then runs after the imports instead of beside them).

Only a plain folder name is taken (letters, digits, `_ . - /`, no `..`, not the repository
itself), and only from a `kbkit.yaml` that is a regular file of the repository (a symlink is
not followed: the policy loader decides on it). This module imports nothing heavy: it runs
before everything else a check needs.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Final

# the top-level policy file (`kbkit.policy.model.TOP_LEVEL_FILE`, which imports PyYAML)
POLICY_FILE: Final = "kbkit.yaml"
USUAL_ROOT: Final = "knowledge"  # the default policy's knowledge_root
_READ_AT_MOST: Final = 64 * 1024
_ROOT_LINE: Final = re.compile(
    r"""(?m)^knowledge_root:[ \t]*(['"]?)([A-Za-z0-9_./-]+)\1[ \t]*(?:#.*)?$"""
)


def root_guess(repo: Path) -> str:
    """The knowledge root a check of `repo` most likely walks (see the module docstring)."""
    path = repo / POLICY_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # absent, a symlink (ELOOP), unreadable
        return USUAL_ROOT
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device, a folder
            return USUAL_ROOT
        data = os.read(fd, _READ_AT_MOST)
    except OSError:
        return USUAL_ROOT
    finally:
        os.close(fd)
    found = _ROOT_LINE.search(data.decode("utf-8", "replace"))
    if found is None:
        return USUAL_ROOT
    folder = found[2].strip("/")
    if not folder or folder == "." or ".." in folder.split("/") or "//" in folder:
        return USUAL_ROOT
    return folder
