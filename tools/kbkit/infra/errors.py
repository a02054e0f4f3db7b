"""The small family of expected errors; the top-level handler maps them to exit codes."""

from __future__ import annotations

# Every exit code of `kb`, and what it means (docs/reference/exit-codes.md is written from it;
# kbkit.__main__ and the error classes below use these codes).
EXIT_CODES = (
    (0, "Done: nothing failed (a check found no error, or only what `--fail-on` lets pass)."),
    (
        1,
        "Findings, or a refused or failed step: a check found errors (or warnings with "
        "`--fail-on warning`), `--dry-run`/`--diff` would change something, a proposal was "
        "refused, a lock was held too long.",
    ),
    (
        2,
        "A usage or configuration error: a bad option, a path that does not exist, a bad or "
        "missing policy, no repository found. Nothing was checked or written.",
    ),
    (3, "A bug in kbkit: the traceback is printed; please report it."),
    (
        4,
        "The environment, not the input: a full disk, a read-only folder, a denied "
        "permission, git or gh missing, timed out, or refused (credentials, rate limits).",
    ),
    (130, "Interrupted (Ctrl-C); files are left as they were."),
)


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


class EnvironmentFailure(KbkitError, OSError):
    """The machine, not the input: a full disk, a read-only folder, a denied permission, or an
    outside process that timed out or failed to start. Exit code 4.

    It is also an OSError, so callers that treat a failed write as best effort (caches) keep
    doing so; everything else reaches the top-level handler as one line.
    """

    exit_code = 4

    def __init__(self, message: str, *, errno: int | None = None, path: str | None = None):
        super().__init__(message)
        self.message = message
        self.errno = errno
        self.filename = path

    def __str__(self) -> str:
        return self.message


# errno -> what to do next, for the OSErrors that say "the environment", never "the input"
_NEXT_STEP = {
    "ENOSPC": "no space left on the device; free some space and rerun",
    "EDQUOT": "disk quota exceeded; free some space or raise the quota, then rerun",
    "EROFS": "read-only file system; run where the folder is writable",
    "EACCES": "permission denied; fix the folder's permissions or run as its owner",
    "EPERM": "operation not permitted; fix the folder's permissions or run as its owner",
    "EIO": "input/output error from the device; check the disk, then rerun",
}


def _errno_names() -> dict[int, str]:
    import errno

    return {getattr(errno, name): name for name in _NEXT_STEP if hasattr(errno, name)}


ENVIRONMENT_ERRNOS = frozenset(_errno_names())


def is_environment(exc: BaseException) -> bool:
    """True for an OSError that a full disk, a read-only folder or a permission caused."""
    return isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS


def environment_failure(
    exc: OSError, path: object = None, action: str = "cannot write"
) -> EnvironmentFailure:
    """The one-line EnvironmentFailure for an OSError, naming the path and the next step."""
    if isinstance(exc, EnvironmentFailure):
        return exc
    where = path if path is not None else (exc.filename or "")
    name = _errno_names().get(exc.errno or -1, "")
    step = _NEXT_STEP.get(name) or (exc.strerror or str(exc))
    prefix = f"{where}: " if where != "" else ""
    return EnvironmentFailure(f"{prefix}{action}: {step}", errno=exc.errno, path=str(where))
