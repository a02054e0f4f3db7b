"""Read the paths a git index tracks, in pure Python (no git binary needed).

Supports index versions 2, 3 and 4 (v4 compresses each path against the previous one), SHA-1
and SHA-256 object formats, plain repositories and worktrees or submodules whose `.git` is a
file with `gitdir: <path>`. A split index (`core.splitIndex`: the main file's `link` extension
names a `sharedindex.<hash>` beside it) and a sparse index (`index.sparse`: folders outside
the sparse checkout are single entries whose path ends in `/`) are listed by `git ls-files`
through `kbkit.vcs.git` instead; otherwise `tracked_paths` never runs git. A corrupt index, or a split one that git
cannot list, raises `GitIndexError` with a readable reason.
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

SIGNATURE = b"DIRC"
_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields


class GitIndexError(Exception):
    """The index exists but cannot be read."""


def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, git dir) for the repository holding `start`, or None."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():
            try:
                first = dot_git.read_text("utf-8").splitlines()[0]
            except (OSError, UnicodeDecodeError, IndexError):
                return None
            if not first.startswith("gitdir:"):
                return None
            target = Path(first.split(":", 1)[1].strip())
            return folder, target if target.is_absolute() else (folder / target)
    return None


def _hash_size(git_dir: Path) -> int:
    """20 for SHA-1 repositories, 32 for SHA-256 ones (read from the config)."""
    configs = [git_dir / "config"]
    try:
        common = (git_dir / "commondir").read_text("utf-8").strip()
        configs.append((git_dir / common / "config") if common else git_dir / "config")
    except (OSError, UnicodeDecodeError):
        pass
    for config in configs:
        try:
            text = config.read_text("utf-8", errors="replace").lower()
        except OSError:
            continue
        compact = "".join(text.split())
        if "objectformat=sha256" in compact:
            return 32
        if "[core]" in compact:
            return 20
    return 20


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (varint.h): each continuation adds one before shifting."""
    byte = data[pos]
    pos += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, pos


def parse_index(data: bytes, hash_size: int = 20) -> list[str]:
    """Every path of an index file's entries, in index order."""
    return _entries(data, hash_size)[0]


def is_split(data: bytes, hash_size: int = 20) -> bool:
    """Does this index file carry the `link` extension (its entries are only the changes
    to a shared index)?"""
    _, pos = _entries(data, hash_size)
    end = len(data) - hash_size
    while pos + 8 <= end:
        signature = data[pos : pos + 4]
        (size,) = struct.unpack(">I", data[pos + 4 : pos + 8])
        if signature == b"link":
            return True
        pos += 8 + size
    return False


def _entries(data: bytes, hash_size: int) -> tuple[list[str], int]:
    """The paths of the entries and the offset where the extensions begin."""
    if len(data) < 12 or data[:4] != SIGNATURE:
        raise GitIndexError("not a git index (bad signature)")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise GitIndexError(f"unsupported index version {version}")
    paths: list[str] = []
    pos = 12
    previous = b""
    try:
        for _ in range(count):
            start = pos
            flags_at = start + _FIXED + hash_size
            (flags,) = struct.unpack(">H", data[flags_at : flags_at + 2])
            pos = flags_at + 2
            if version >= 3 and flags & 0x4000:
                pos += 2
            if version == 4:
                strip, pos = _varint(data, pos)
                end = data.index(b"\0", pos)
                if strip > len(previous):
                    raise GitIndexError("corrupt path compression")
                name = previous[: len(previous) - strip] + data[pos:end]
                pos = end + 1
            else:
                end = data.index(b"\0", pos)
                name = data[pos:end]
                pos = start + ((end - start + 8) & ~7)
            previous = name
            paths.append(name.decode("utf-8", "surrogateescape"))
    except (struct.error, ValueError, IndexError) as exc:
        raise GitIndexError(f"truncated or corrupt index ({exc})") from exc
    return paths, pos


def tracked_paths(repo: Path, under: str = "") -> tuple[str, list[str]] | None:
    """(repo's path relative to the work tree top, tracked paths) or None without a repository.
    With `under` (a repo-relative folder ending in `/`), only the paths below it; an index
    whose paths are stored whole (versions 2 and 3) that does not contain the folder's name
    at all is then not parsed."""
    found = find_git_dir(repo.absolute())
    if found is None:
        return None
    top, git_dir = found
    index = git_dir / "index"
    try:
        data = index.read_bytes()
    except FileNotFoundError:
        return _prefix(repo, top), []  # a fresh repository tracks nothing yet
    except OSError as exc:
        raise GitIndexError(f"cannot read {index}: {exc.strerror or exc}") from exc
    lead = _prefix(repo, top)
    wanted = (f"{lead}/" if lead else "") + under
    hash_size = _hash_size(git_dir)
    if has_shared_index(git_dir) and is_split(data, hash_size):
        return lead, [path for path in _listed_by_git(top) if path.startswith(wanted)]
    if under and wanted.encode() not in data and _intact_whole_paths(data, hash_size):
        return lead, []
    paths = parse_index(data, hash_size)
    if any(path.endswith("/") for path in paths):  # a sparse index: folder entries, listed by git
        paths = _listed_by_git(top)
    return lead, [path for path in paths if path.startswith(wanted)] if under else paths


def has_shared_index(git_dir: Path) -> bool:
    """Is there a shared index beside the index (git writes one only for a split index)?
    Looking costs one listing of the git dir, and spares parsing every unsplit index."""
    try:
        return any(name.startswith("sharedindex.") for name in os.listdir(git_dir))
    except OSError:
        return False


def _listed_by_git(top: Path) -> list[str]:
    """Every tracked path, relative to the work tree top, as git lists it."""
    from kbkit.vcs.git import GitError, tracked_files

    try:
        return tracked_files(top)
    except GitError as exc:
        raise GitIndexError(f"split index (core.splitIndex): {exc}") from exc


def _intact_whole_paths(data: bytes, hash_size: int) -> bool:
    """Is this an index that stores every path whole (versions 2 and 3) and whose trailing
    checksum matches, so that a path missing from its bytes is not tracked?"""
    if (
        len(data) < 12 + hash_size
        or data[:4] != SIGNATURE
        or data[4:8] not in (b"\0\0\0\2", b"\0\0\0\3")
    ):
        return False
    algorithm = "sha256" if hash_size == 32 else "sha1"
    return hashlib.new(algorithm, data[:-hash_size]).digest() == data[-hash_size:]


def _prefix(repo: Path, top: Path) -> str:
    rel = repo.absolute().relative_to(top).as_posix()
    return "" if rel == "." else rel
