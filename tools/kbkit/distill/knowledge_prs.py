"""The knowledge PRs the bot opened, read back from GitHub: part of the state, every run.

A knowledge PR is a pull request into the upstream knowledge repository's base branch whose
head is a `knowledge/intake-*` branch of the bot's fork. Every open one is read (whatever its
age), and the closed ones created in the last LOOKBACK_DAYS: enough to reconcile a ledger
whose status push was lost. Each carries its record in its body (`pr_record`).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import NamedTuple

from kbkit.distill.pr_record import PrRecord, RecordError, decode
from kbkit.distill.work_clone import BRANCH_PREFIX
from kbkit.vcs import github

LOOKBACK_DAYS = 60
MAX_PAGES = 20  # of 100 closed PRs each: a bound on the read even for a busy repository
BRANCH = re.compile(re.escape(BRANCH_PREFIX) + r"(\d{4}-\d\d-\d\d)(?:-(\d+))?$")


class KnowledgePr(NamedTuple):
    pull: github.Pull
    record: PrRecord | None
    problem: str | None = None  # why the record could not be read (None: read, or absent)

    @property
    def number(self) -> int:
        return self.pull.number

    @property
    def is_open(self) -> bool:
        return self.pull.state == "open"

    @property
    def day(self) -> str:
        found = BRANCH.match(self.pull.head_ref)
        return found.group(1) if found else ""

    @property
    def ordinal(self) -> int:
        """1 for `knowledge/intake-DAY`, N for its follow-up `knowledge/intake-DAY-N`."""
        found = BRANCH.match(self.pull.head_ref)
        return int(found.group(2) or 1) if found else 0

    @property
    def state(self) -> str:
        return "merged" if self.pull.merged else self.pull.state


def branch_for(day: str, ordinal: int) -> str:
    """The head branch of the `ordinal`-th knowledge PR of `day`."""
    return f"{BRANCH_PREFIX}{day}" + (f"-{ordinal}" if ordinal > 1 else "")


def read(upstream: str, fork_owner: str, base: str, today: str, cwd: Path) -> list[KnowledgePr]:
    """Every open knowledge PR and the closed ones of the lookback window, oldest first."""
    since = (date.fromisoformat(today) - timedelta(days=LOOKBACK_DAYS)).isoformat()
    found: dict[int, github.Pull] = {}
    for state in ("open", "closed"):
        for page in range(1, MAX_PAGES + 1):
            pulls = github.list_pulls(upstream, cwd, state=state, page=page)
            for pull in pulls:
                found.setdefault(pull.number, pull)
            if len(pulls) < 100 or (state == "closed" and pulls[-1].created_at[:10] < since):
                break
    mine = [
        pull
        for pull in found.values()
        if pull.head_owner.lower() == fork_owner.lower()
        and BRANCH.match(pull.head_ref)
        and pull.base_ref == base
        and (pull.state == "open" or pull.created_at[:10] >= since)
    ]
    return [_with_record(pull) for pull in sorted(mine, key=lambda p: p.number)]


def _with_record(pull: github.Pull) -> KnowledgePr:
    try:
        return KnowledgePr(pull, decode(pull.body))
    except RecordError as exc:
        return KnowledgePr(pull, None, f"its record cannot be read ({exc})")
