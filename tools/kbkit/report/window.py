"""The report's date window: `--since`/`--until`, default the last 30 days up to today."""

from __future__ import annotations

from datetime import date, timedelta
from typing import NamedTuple

from kbkit.infra import clock
from kbkit.infra.errors import UsageError

DEFAULT_DAYS = 30


class Window(NamedTuple):
    since: date
    until: date  # inclusive

    def contains(self, stamp: str) -> bool:
        """Is an ISO date or timestamp (`2026-11-30T08:15:00Z`) inside the window?"""
        day = stamp[:10]
        return self.since.isoformat() <= day <= self.until.isoformat()

    def days(self) -> list[str]:
        """Every day of the window, oldest first."""
        count = (self.until - self.since).days + 1
        return [(self.since + timedelta(days=n)).isoformat() for n in range(count)]

    def to_dict(self) -> dict[str, str]:
        return {"since": self.since.isoformat(), "until": self.until.isoformat()}


def _parse(option: str, value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r}: expected a real date written YYYY-MM-DD") from None


def make_window(since: str | None, until: str | None) -> Window:
    """The window from the options; `until` defaults to today (kbkit.infra.clock), `since` to
    DEFAULT_DAYS - 1 days before `until`."""
    end = _parse("--until", until) if until else clock.today()
    start = _parse("--since", since) if since else end - timedelta(days=DEFAULT_DAYS - 1)
    if start > end:
        raise UsageError(f"--since {start} is after --until {end}")
    if (end - start).days > 3660:
        raise UsageError(f"the window {start}..{end} is longer than ten years; narrow it")
    return Window(start, end)
