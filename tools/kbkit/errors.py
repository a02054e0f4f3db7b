"""The small family of expected errors; the top-level handler maps them to exit codes."""

from __future__ import annotations


class KbkitError(Exception):
    """An expected failure: one readable message, exit code 1 (refused change, bad input)."""

    exit_code = 1


class UsageError(KbkitError):
    """Bad arguments, a bad policy or a bad configuration: exit code 2."""

    exit_code = 2


class InputError(KbkitError):
    """An input file that cannot be used; the message names the file (and line)."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")
        self.path = path
        self.line = line


class LockTimeoutError(KbkitError):
    """Another process holds a lock for longer than we are willing to wait."""
