"""The one interface of an intake source, and what a scan of merged changes gives back.

A source is a module (pre-commit's `languages/` shape), listed once in `sources/__init__.py`.
Every source names itself and the rows it writes, and spells the identities in them:

    NAME                     its name in the registry (and on `kb intake record-prs --source`)
    VIA                      the `via` its rows carry
    KIND                     the `source_kind` of its rows (`merged_pr`, `bugfix_run`)
    repo_id(text)            the canonical spelling of the repository `text` names (a path
                             or a URL), None when it names none
    change_id(repo, key)     the `source_id` of the row for change `key` of `repo`

A source of merged changes on a host (GitHub, GitLab) also reads them:

    NOUN                     what one change is called there ("pull request", "merge request")
    scan(intake_dir, repo, identity, dry_run=, since=)
                             record the changes merged in a window (from the cursor, or `since`,
                             or the first scan's window) with their evidence; a ScanResult
    read_change(repo, number, cwd)
                             one change's final diff and what was said on it: a Change

A new source is one module here, one line in the registry and its tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, NoReturn, Protocol, runtime_checkable

from kbkit.infra.errors import InputError
from kbkit.intake.ledger import Row
from kbkit.intake.notes import RawDiscussion
from kbkit.intake.repo_identity import RepoIdentity


@runtime_checkable
class Source(Protocol):
    """What every source module defines."""

    NAME: str
    VIA: str
    KIND: str

    def repo_id(self, text: str) -> str | None: ...

    def change_id(self, repo: str, key: str) -> str: ...


class Change(NamedTuple):
    """One merged change's evidence, as its host holds it."""

    diff: str  # the final diff, unified
    discussion: RawDiscussion


class ScanResult(NamedTuple):
    new: list[Row]  # rows recorded (or, in a dry run, that would be)
    already: int
    unmerged: int
    cursor: str | None  # the repo's cursor after the scan (unchanged in a dry run)
    since: str | None  # where this scan stopped (changes updated before it were not read)
    pages: int = 0  # pages of changes read
    first: bool = False  # the repository's first scan (no cursor, no --since)
    older: int | None = None  # first scan: about how many older changes it left


@runtime_checkable
class ChangeSource(Source, Protocol):
    """A source of merged changes on a host: it scans a window and reads one change."""

    NOUN: str

    def scan(
        self,
        intake_dir: Path,
        repo: str,
        identity: RepoIdentity,
        *,
        dry_run: bool = False,
        since: str | None = None,
    ) -> ScanResult: ...

    def read_change(self, repo: str, number: int, cwd: Path) -> Change: ...


def refuse(where: str, label: str, message: str) -> NoReturn:
    """A host's answer that is not the shape its source reads: an input error at `where`."""
    raise InputError(f"{where}: {message}", path=label)


def typed_field(
    item: dict[str, Any], field: str, kind: type, where: str, label: str, shape: str
) -> Any:
    """`item[field]`, which must be exactly of type `kind`; `shape` names what the source
    reads ("GitHub's pulls JSON") in the message when the field is missing."""
    value = item.get(field)
    if type(value) is not kind:
        if field not in item:
            refuse(where, label, f"missing `{field}`; is this {shape}?")
        refuse(where, label, f"`{field}` has the wrong type ({type(value).__name__})")
    return value
