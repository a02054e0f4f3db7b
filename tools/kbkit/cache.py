"""The parse cache under `<repo>/.kbkit-cache/`: page models and page-local findings.

An entry is reused only when the file's stat key (size, mtime, ctime, inode) is unchanged and
the entry was written for the same kbkit code, policy and analysis. Files modified within
`RACY_NS` of the moment the cache was written are "racy" (a later same-size edit could keep
the same mtime): their entries also carry a content digest that is checked on reuse, as git
does for its index. Any unreadable or foreign cache file is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from kbkit.jsonl import atomic_write_bytes

CACHE_DIR = ".kbkit-cache"
FORMAT = 1
RACY_NS = 3_000_000_000

StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Changes whenever a kbkit source file or the parsing libraries change (editable installs too)."""
    import markdown_it
    import yaml

    package = Path(__file__).resolve().parent
    h = hashlib.sha256(
        f"markdown-it-py {markdown_it.__version__}; pyyaml {yaml.__version__}".encode()
    )
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".yaml", ".json") and "__pycache__" not in path.parts:
            st = path.stat()
            h.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def cache_file(repo: Path, name: str) -> Path:
    return repo / CACHE_DIR / f"{name}.marshal"


class PageCache:
    """Entries by root-relative path: (stat key, digest or None, payload)."""

    def __init__(self, path: Path, namespace: str) -> None:
        self.path = path
        self.namespace = namespace
        self.entries: dict[str, tuple[StatKey, bytes | None, Any]] = {}
        self.fresh: dict[str, tuple[StatKey, bytes | None, Any]] = {}
        self.started_ns = time.time_ns()
        self._load()

    def _load(self) -> None:
        try:
            blob = self.path.read_bytes()
            header, entries = marshal.loads(blob)
        except (OSError, ValueError, EOFError, TypeError):
            return
        if header == (FORMAT, self.namespace) and isinstance(entries, dict):
            self.entries = entries

    def get(self, rel: str, key: StatKey, read: Any) -> Any | None:
        """The cached payload for `rel`, or None; `read()` gives the bytes for racy entries."""
        entry = self.entries.get(rel)
        if entry is None or tuple(entry[0]) != key:
            return None
        if entry[1] is not None:
            try:
                if digest(read()) != entry[1]:
                    return None
            except OSError:
                return None
            if key[1] < self.started_ns - RACY_NS:
                entry = (key, None, entry[2])  # no longer racy: the stat key suffices now
        self.fresh[rel] = entry
        return entry[2]

    def put_digest(self, rel: str, key: StatKey, content_digest: bytes, payload: Any) -> None:
        """Store a payload; the content digest is kept only for racy (recently changed) files."""
        racy = key[1] >= self.started_ns - RACY_NS
        self.fresh[rel] = (key, content_digest if racy else None, payload)

    def save(self) -> None:
        """Write the entries used or made by this run (others are dropped)."""
        if self.fresh.keys() == self.entries.keys() and all(
            self.fresh[k] is self.entries[k] for k in self.fresh
        ):
            return
        try:
            folder = self.path.parent
            folder.mkdir(parents=True, exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# kbkit's parse cache; safe to delete\n*\n")
            atomic_write_bytes(self.path, marshal.dumps(((FORMAT, self.namespace), self.fresh)))
        except (OSError, ValueError):
            pass  # a cache that cannot be written only costs speed
