"""Moments in the lessons store: ISO 8601 timestamps in the ledger's one UTC form.

`YYYY-MM-DDTHH:MM:SSZ` compares as text in time order, which the time cut of the selection
view relies on (`kbkit.lessons.view`).
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime

_NORMAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def normalize_time(value: object, default: str) -> str:
    """An ISO timestamp as `YYYY-MM-DDTHH:MM:SSZ` (UTC), or `default` when absent/unparsable."""
    if not isinstance(value, str) or not value:
        return default
    if _NORMAL_TIME.fullmatch(value) and _real_moment(value):
        return value  # already in the form (most records): no parse, no format
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return default
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=4096)
def _real_moment(value: str) -> bool:
    try:
        datetime.fromisoformat(value[:-1])
    except ValueError:
        return False
    return True
