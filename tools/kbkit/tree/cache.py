"""The parse cache under `<repo>/.kbkit-cache/`: page summaries, facts and page-local findings.

An entry is reused only when the file's stat key (size, mtime, ctime, inode) is unchanged and
the entry was written for the same kbkit code, policy and analysis. Files modified within
`RACY_NS` of the moment the cache was written are "racy" (a later same-size edit could keep
the same mtime): their entries also carry a content digest that is checked on reuse, as git
does for its index. Any unreadable or foreign cache file is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from kbkit.infra.content_digest import digest
from kbkit.tree.walk import PACKED_KEY, StatKey, stat_key

CACHE_DIR = ".kbkit-cache"
FORMAT = 4
CHUNK = 1000  # entries per marshal object: few loads, bounded memory while writing
ADDED_CHUNK = 200  # added entries held before they are written (each holds a whole entry)
RACY_NS = 3_000_000_000


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Changes whenever a kbkit source file or a parsing library changes (editable installs
    too). The libraries are identified by their files, so nothing has to be imported (and
    they are found by the path finder itself: `importlib.util` is an import of its own)."""
    from importlib.machinery import PathFinder

    h = hashlib.sha256()
    for library in ("markdown_it", "mdit_py_plugins", "pyromark", "yaml"):
        spec = PathFinder.find_spec(library)
        origin = spec.origin if spec is not None else None
        if origin:
            folder = os.path.dirname(origin)
            for name in sorted(os.listdir(folder)):
                if name.endswith((".py", ".so")):
                    st = os.stat(os.path.join(folder, name))
                    h.update(f"{library}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _fingerprint_folder(h, package, "")
    return h.hexdigest()[:16]


def _fingerprint_folder(h: Any, folder: str, rel: str) -> None:
    """Each source file's path, size and mtime under `folder`, in os.walk's order (the
    folder's files sorted, then its sub-folders sorted, depth first)."""
    files, dirs = [], []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    dirs.append(entry.name)
            elif entry.name.endswith((".py", ".yaml", ".json")):
                files.append(entry)
    files.sort(key=lambda entry: entry.name)
    for entry in files:
        st = entry.stat()
        h.update(f"{rel}{entry.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for name in sorted(dirs):
        _fingerprint_folder(h, os.path.join(folder, name), f"{rel}{name}/")


def cache_file(repo: Path, name: str) -> Path:
    return repo / CACHE_DIR / f"{name}.marshal"


class PageCache:
    """Entries by root-relative path: (packed stat key, digest or None, payload).

    The file is a sequence of length-prefixed marshal blocks (`marshal.loads` on a slice is
    several times faster than `marshal.load` from a file object): a header, then chunks of
    `CHUNK` entries.
    Chunks bound the memory of writing, and an entry read from disk is handed over (not
    kept) so that a large tree is never held twice in memory. Payloads are plain
    marshal-friendly values, written as they were handed in.

    A caller that holds every page anyway (the tree) calls `follow` with the walk's pages
    and stat keys. A page parsed this run is `add`ed: its entry is written at once, a chunk
    at a time, into the new file (a cold run's save then has nothing left to encode). A hit
    whose key is the walk's, with no digest to check, is not stored at all (at 50k pages the
    entries cost megabytes); `save` writes it from the walk's key and a payload the caller
    makes again (`payload`), one chunk at a time.
    """

    def __init__(self, path: Path, namespace: str) -> None:
        self.path = path
        self.namespace = namespace
        self.entries: dict[str, tuple[bytes, bytes | None, Any]] = {}
        self.fresh: dict[str, tuple[bytes, bytes | None, Any]] = {}
        self.dirty = False
        self.order: list[str] | None = None  # `follow`: the pages, in walk order
        self.order_keys: bytes | bytearray = b""  # their packed stat keys, in the same order
        self.skipped: set[str] = set()  # followed pages that are not to be written
        self.added: list[tuple[str, bytes, bytes | None, Any]] = []  # not yet written
        self.written = bytearray()  # 1 for each followed page whose entry is written
        self.writer: _Writer | None = None  # the new file, once an added chunk is written
        self.started_ns = time.time_ns()
        self.racy_from_ns = self.started_ns - RACY_NS  # files modified since are racy
        self._load()

    def _load(self) -> None:
        try:
            data = memoryview(self.path.read_bytes())
            pos, header = read_block(data, 0)
            if header != (FORMAT, self.namespace):
                self.dirty = True
                return
            while pos < len(data):
                pos, chunk = read_block(data, pos)
                for rel, key, content_digest, payload in chunk:
                    self.entries[rel] = (key, content_digest, payload)
        except FileNotFoundError:
            self.dirty = True
        except (OSError, ValueError, EOFError, TypeError, struct.error):
            self.entries.clear()
            self.dirty = True

    def get(self, rel: str, path: str, key: StatKey | None = None) -> Any | None:
        """The cached payload for `rel`, or None (then parse the page and `put` it). The file
        at `path` is stat'ed only when there is an entry (`key` overrides the stat); racy
        entries are also verified against its bytes. A hit is kept for the next save."""
        entry = self.entries.pop(rel, None)
        if entry is None:
            self.dirty = True
            return None
        if key is None:
            try:
                key = stat_key(os.stat(path))
            except OSError:
                self.dirty = True
                return None
        packed = PACKED_KEY.pack(*key)
        if entry[0] != packed:
            self.dirty = True
            return None
        content_digest = entry[1]
        if content_digest is not None:
            try:
                with open(path, "rb") as handle:
                    same = digest(handle.read()) == content_digest
            except OSError:
                same = False
            if not same:
                self.dirty = True
                return None
            if key[1] < self.racy_from_ns:
                content_digest = None  # no longer racy: the stat key suffices from now on
                self.dirty = True
        if self.order is None or content_digest is not None:
            # (a followed page's key is the walk's: the caller passes it)
            self.fresh[rel] = (packed, content_digest, None if self.order else entry[2])
        return entry[2]

    def put(
        self,
        rel: str,
        key: StatKey,
        content_digest: bytes | None,
        value: Any,
    ) -> None:
        """Store a freshly parsed value; the digest is kept only for racy files (a caller
        that follows the walk `add`s its pages instead)."""
        racy = key[1] >= self.racy_from_ns
        self.dirty = True
        self.fresh[rel] = (PACKED_KEY.pack(*key), content_digest if racy else None, value)

    def has_entries(self) -> bool:
        """Whether the file held any entry to reuse (a first run's cache holds none)."""
        return bool(self.entries)

    def follow(self, order: list[str], packed_keys: bytes | bytearray) -> None:
        """Take `order` (every page, in walk order) and their packed stat keys: each of them
        is written by `save` unless `skip`ped, from its own entry or else from its key,
        with a payload from save's `payload` function."""
        self.order, self.order_keys = order, packed_keys

    def add(self, place: int, key: StatKey, content_digest: bytes | None, value: Any) -> None:
        """Store the freshly parsed value of the followed page at `place` in `follow`'s
        order (the digest is kept only for racy files). Entries are written as soon as a
        chunk is full, while the caller still parses; `save` writes the rest."""
        if self.order is None:
            raise RuntimeError("PageCache.add needs follow first")
        racy = key[1] >= self.racy_from_ns
        packed = PACKED_KEY.pack(*key)
        self.added.append((self.order[place], packed, content_digest if racy else None, value))
        if not self.written:
            self.written = bytearray(len(self.order))
        self.written[place] = 1
        self.dirty = True
        if len(self.added) >= ADDED_CHUNK:
            self._write_added()

    def _write_added(self) -> None:
        if self.writer is None:
            self.writer = _Writer(self.path)
            self.writer.write((FORMAT, self.namespace))
        if self.added:
            self.writer.write(self.added)
            self.added = []

    def discard(self) -> None:
        """Drop what this run wrote so far (the load failed): the old file stays."""
        if self.writer is not None:
            self.writer.abandon()
        self.writer = None
        self.added = []
        self.dirty = False

    def skip(self, rel: str) -> None:
        """A followed page with no entry to write (it could not be read)."""
        self.skipped.add(rel)
        self.dirty = True

    def save(self, payload: Callable[[str], Any] | None = None) -> None:
        """Write the entries kept or put by this run (others, e.g. deleted pages, drop out);
        `payload(rel)` makes the payload of an entry stored without one (None)."""
        if not self.dirty and not self.entries:
            return
        if self.writer is None:
            write_blocks(self.path, self._blocks(payload))
            return
        writer = self.writer  # entries were added: the file is half written already
        self._write_added()
        for block in self._blocks(payload, header=False):
            writer.write(block)
        writer.commit()

    def _blocks(self, payload: Callable[[str], Any] | None, header: bool = True) -> Iterator[Any]:
        if header:
            yield (FORMAT, self.namespace)
        if self.added:
            yield self.added
        if self.order is None:
            items = list(self.fresh.items())
            for start in range(0, len(items), CHUNK):
                yield [(rel, *entry) for rel, entry in items[start : start + CHUNK]]
            return
        size = PACKED_KEY.size
        chunk: list[tuple[str, bytes | bytearray, bytes | None, Any]] = []
        written = self.written
        for index, rel in enumerate(self.order):
            if written and written[index] or rel in self.skipped:
                continue
            key, content_digest, value = self.fresh.get(rel) or (
                self.order_keys[index * size : (index + 1) * size],
                None,
                None,
            )
            if value is None and payload is not None:
                value = payload(rel)
            chunk.append((rel, key, content_digest, value))
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


_LENGTH = struct.Struct("<Q")  # the byte length of each marshal block that follows


def write_blocks(path: Path, blocks: Iterable[Any]) -> None:
    """Replace `path` atomically with length-prefixed marshal blocks, each encoded only when
    it is written. A cache file that cannot be written only costs speed: errors pass."""
    writer = _Writer(path)
    for value in blocks:
        writer.write(value)
    writer.commit()


class _Writer:
    """A new cache file, written block by block into a temp file beside `path` and put in
    its place by `commit`. The first error abandons it (the temp file goes, later blocks are
    dropped, the old file stays): a cache file that cannot be written only costs speed."""

    def __init__(self, path: Path) -> None:
        from kbkit.infra.jsonl import sweep_temp_files, temp_path
        from kbkit.infra.state_folder import make_state_folder

        self.path = path
        self.tmp = temp_path(path)
        self.handle: BinaryIO | None = None
        try:
            make_state_folder(path.parent, "kbkit's parse cache; safe to delete")
            sweep_temp_files(path.parent)  # a writer killed mid-write left its temp file
            self.handle = open(self.tmp, "xb")  # noqa: SIM115 - closed by commit or abandon
        except (OSError, ValueError):
            self.abandon()

    def write(self, value: Any) -> None:
        if self.handle is None:
            return
        try:
            blob = marshal.dumps(value)
            self.handle.write(_LENGTH.pack(len(blob)))
            self.handle.write(blob)
        except (OSError, ValueError):
            self.abandon()

    def commit(self) -> None:
        if self.handle is None:
            return
        try:
            self.handle.close()
            os.replace(self.tmp, self.path)
        except (OSError, ValueError):
            self.abandon()
        self.handle = None

    def abandon(self) -> None:
        if self.handle is not None:
            with contextlib.suppress(OSError):
                self.handle.close()
        self.handle = None
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def read_block(data: memoryview, pos: int) -> tuple[int, Any]:
    (size,) = _LENGTH.unpack_from(data, pos)
    start = pos + _LENGTH.size
    if start + size > len(data):
        raise EOFError("truncated cache block")
    return start + size, marshal.loads(data[start : start + size])
