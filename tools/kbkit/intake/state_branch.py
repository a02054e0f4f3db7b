"""The intake ledgers on a branch the bot owns, so no run depends on pushing the team's main.

The daily workflow's runner is fresh every day. It brings the ledgers in from the state
branch (`kbkit/intake-state` of the watched repository: the workflow's own token can push
it, and a protected main never stands in the way) before it records, and puts them back
after each step that wrote: `pull` unions the branch's ledgers into the local ones, `push`
does the same and then commits the union on top of the branch's tip and pushes it with a
lease on that tip; a push another writer beat is fetched, merged again and retried.

Merging is a union, as git's `merge=union` would do, but per record: a JSONL row the local
file lacks is appended (the ledgers fold independently of line order and duplicates); the
cursor keeps each repository's newest time; the mailbox's remembered refusals are united.
The branch holds exactly `intake/<file>` for the files below, as the repository would.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import NamedTuple

from kbkit.infra.errors import InputError, KbkitError
from kbkit.infra.file_lock import locked
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import append_rows, encode_row, read_jsonl
from kbkit.infra.process import timeout_from_env
from kbkit.intake.batch_ledger import BATCHES_FILE
from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE
from kbkit.intake.merged_prs import CURSOR_FILE, GITHUB_TIME, advance_cursor
from kbkit.intake.sources.mailbox import REFUSED_FILE, read_refused
from kbkit.intake.state_file import write_state
from kbkit.vcs import git

BRANCH = "kbkit/intake-state"
FOLDER = "intake"
LEDGERS = (EVENTS_FILE, STATUS_FILE, BATCHES_FILE)  # batches: what each batch decided
STATES = {CURSOR_FILE: "merged_prs", REFUSED_FILE: "refused"}
FILES = (*LEDGERS, *STATES)
# Several writers push one state branch when an organization's repositories share it (each
# repository's workflow on the same cron, issue #39): a push that another writer beat is
# merged again and sent again, after a random pause that grows with each loss, so twenty
# runners at once all land within a minute or two. Losing is never an error of the run.
TRIES = 30
PAUSE = 0.25  # seconds, the first retry's mean pause; doubled up to PAUSE_CAP; KBKIT_SYNC_PAUSE
PAUSE_CAP = 4.0
REFUSALS = 3  # pushes the remote refuses while its branch stays where it was


class SyncResult(NamedTuple):
    merged: dict[str, int]  # file -> records the local copy gained from the branch
    tip: str | None  # the branch's commit afterwards (None: there is no branch)
    pushed: bool = False
    tries: int = 0


def pull(repo: Path, intake_dir: Path, remote: str, branch: str) -> SyncResult:
    """Union the branch's ledgers into the local ones."""
    tip = _fetch(repo, remote, branch)
    if tip is None:
        return SyncResult({}, None)
    return SyncResult(merge_into(intake_dir, branch_files(repo, tip, branch)), tip)


def push(repo: Path, intake_dir: Path, remote: str, branch: str, message: str) -> SyncResult:
    """Union the branch's ledgers into the local ones, commit the union on the branch and
    push it; a push another writer beat is merged again and retried (up to TRIES in all),
    a push the remote refused while nobody else pushed is tried REFUSALS times."""
    merged: dict[str, int] = {}
    last = ""
    refused = 0
    for attempt in range(1, TRIES + 1):
        tip = _fetch(repo, remote, branch)
        theirs = branch_files(repo, tip, branch) if tip else {}
        for name, count in merge_into(intake_dir, theirs).items():
            merged[name] = merged.get(name, 0) + count
        mine = {n: (intake_dir / n).read_bytes() for n in FILES if (intake_dir / n).is_file()}
        if tip is not None and mine == {n: d for n, d in theirs.items() if d is not None}:
            return SyncResult(merged, tip, False, attempt)  # the branch has it all already
        commit = git.commit_files(repo, tip, FOLDER, mine, message)
        try:
            git.push_lease(repo, remote, commit, branch, tip)
        except git.GitError as exc:
            last = str(exc)
            if git.remote_heads(repo, remote, branch).get(branch) == tip:
                refused += 1  # nobody else pushed: the remote itself said no
                if refused >= REFUSALS:
                    break
            if attempt < TRIES:  # another writer pushed first: merge again and retry
                _pause(attempt)
            continue
        return SyncResult(merged, commit, True, attempt)
    raise KbkitError(
        f"the intake state could not be pushed to {remote} {branch} after {attempt} tries "
        f"({last[-600:]}); the local ledgers keep everything, and the next run's distill "
        "reads what is published back from GitHub. Let the bot push this branch (no "
        "protection rule on it), then rerun"
    )


def branch_files(repo: Path, tip: str | None, branch: str) -> dict[str, bytes | None]:
    """The state files on the branch at `tip` (None for the ones it lacks)."""
    if tip is None:
        return {}
    return {name: git.file_at(repo, tip, f"{FOLDER}/{name}") for name in FILES}


def merge_into(intake_dir: Path, theirs: dict[str, bytes | None]) -> dict[str, int]:
    """Union `theirs` (file -> bytes) into the local ledgers; what each file gained."""
    gained: dict[str, int] = {}
    for name in LEDGERS:
        data = theirs.get(name)
        if data:
            gained[name] = _union_rows(intake_dir / name, data, name)
    for name, key in STATES.items():
        data = theirs.get(name)
        if data:
            gained[name] = _union_state(intake_dir, name, key, data)
    return {name: count for name, count in gained.items() if count}


def _union_rows(path: Path, data: bytes, name: str) -> int:
    """Append the rows of `data` (JSONL) that the local file lacks."""
    theirs = []
    for line in data.split(b"\n"):
        try:
            row = loads(line) if line.strip() else None
        except ValueError:
            continue  # a torn or broken line on the branch: the local fold would skip it too
        if isinstance(row, dict):
            theirs.append(row)
    with locked(path.parent / f"sync-{name}"):
        known = {encode_row(r.data) for r in read_jsonl(path).rows} if path.exists() else set()
        missing: dict[bytes, dict[str, object]] = {}
        for row in theirs:
            encoded = encode_row(row)
            if encoded not in known:
                missing.setdefault(encoded, row)
        if missing:
            append_rows(path, list(missing.values()))
    return len(missing)


def _union_state(intake_dir: Path, name: str, key: str, data: bytes) -> int:
    where = f"{BRANCH}:{FOLDER}/{name}"
    try:
        document = loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError("not valid JSON on the state branch; fix or delete it there", path=where) from exc  # fmt: skip
    values = document.get(key) if isinstance(document, dict) else None
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise InputError(f'expected {{"version": 1, "{key}": {{...}}}}', path=where)
    if name == CURSOR_FILE:
        if not all(GITHUB_TIME.fullmatch(v) for v in values.values()):
            raise InputError("a cursor value is not a GitHub timestamp", path=where)
        before = _cursor_text(intake_dir)
        advance_cursor(intake_dir, values)
        return int(_cursor_text(intake_dir) != before)
    path = intake_dir / name
    with locked(path):
        known = read_refused(intake_dir)
        fresh = {k: v for k, v in values.items() if k not in known}
        if fresh:
            write_state(path, key, {**known, **fresh})
    return len(fresh)


def _cursor_text(intake_dir: Path) -> bytes:
    path = intake_dir / CURSOR_FILE
    return path.read_bytes() if path.exists() else b""


def _pause(attempt: int) -> None:
    """A random pause before retry `attempt + 1`: writers that lost together spread out."""
    base = timeout_from_env("KBKIT_SYNC_PAUSE", PAUSE)
    time.sleep(random.uniform(0, 2 * min(PAUSE_CAP, base * 2 ** (attempt - 1))))


def _fetch(repo: Path, remote: str, branch: str) -> str | None:
    """Fetch the branch; its commit, or None when the remote has no such branch yet.
    `remote` is a remote's name or a URL (a state branch several repositories share)."""
    heads = git.remote_heads(repo, remote, branch)
    if branch not in heads:
        return None
    named = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", remote) is not None
    local = f"refs/remotes/{remote}/{branch}" if named else f"refs/kbkit-state/{branch}"
    git.fetch_refs(repo, remote, [f"+refs/heads/{branch}:{local}"])
    return heads[branch]
