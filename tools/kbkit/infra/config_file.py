"""Reading a small configuration file someone else wrote (a policy, a baseline, a redirects
file, a table of contents): a regular file, read only up to a byte limit.

A FIFO or a device in its place would block or never end: it is refused without being opened
(`kbkit.infra.regular_file`); anything past the limit is refused before it is parsed. Every
refusal is a usage error (exit 2) naming the file.
"""

from __future__ import annotations

from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import NotRegularFile, read_regular_bytes


def read_config_bytes(path: Path, limit: int, what: str) -> bytes:
    """The bytes of `what` (e.g. "the baseline") at `path`: a regular file of at most `limit`
    bytes."""
    try:
        data = read_regular_bytes(path, limit)
    except NotRegularFile as exc:
        raise UsageError(f"{path}: {what} is {exc.kind}, not a regular file; not read") from exc
    except OSError as exc:
        raise UsageError(f"{path}: cannot read {what} ({exc.strerror or exc})") from exc
    if len(data) > limit:
        raise UsageError(f"{path}: {what} may hold at most {limit} bytes")
    return data


def read_config_text(path: Path, limit: int, what: str) -> str:
    """As `read_config_bytes`, decoded as UTF-8 (anything else is a usage error)."""
    data = read_config_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: {what} is not UTF-8 ({exc})") from exc
