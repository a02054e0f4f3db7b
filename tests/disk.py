"""Real small and full disks for tests: a tmpfs mounted for one test (root only)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str = "2m") -> Iterator[Path]:
    """Mount a tmpfs of `size` on `folder` for the block; skip the test when that is not
    possible (not root, no mount permission in this container)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the disk-full tests run as root")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path, name: str = "filler") -> Path:
    """Write zeros into `folder/name` until the device is full; return the filler file."""
    filler = folder / name
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 16, 4096, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)
    return filler


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under `folder` (relative path -> bytes), lock files left out."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def read_only(folder: Path) -> None:
    """Remount the tmpfs on `folder` read-only (EROFS for every later write)."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
