"""The one place kbkit reads the wall clock.

Every timestamp kbkit writes and every "today" it measures against comes from `now()`.
`KBKIT_NOW` (an ISO-8601 instant such as `2026-11-30T08:15:00Z`) pins it, so a replay, a
demo or a test suite gets the same output whatever the real date is; library functions
also take the moment as a parameter where a caller may want to choose it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from kbkit.infra import settings
from kbkit.infra.errors import UsageError

PIN_VARIABLE = "KBKIT_NOW"


def now() -> datetime:
    """The current instant in UTC, or the pinned one when `KBKIT_NOW` is set."""
    pinned = settings.value(PIN_VARIABLE)
    if not pinned:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(pinned.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{PIN_VARIABLE}={pinned!r} is not an ISO-8601 instant; "
            "write it as 2026-11-30T08:15:00Z or unset it"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def today() -> date:
    """Today's date in UTC (the date of `now()`)."""
    return now().date()


def timestamp(moment: datetime | None = None) -> str:
    """GitHub's timestamp format, always UTC: `2026-11-30T08:15:00Z`."""
    return (moment or now()).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
