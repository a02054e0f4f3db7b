"""The environment variables that exist only for kbkit's own crash tests, named in one place.

Production code reads them to pause or die at a chosen step, so that a test can kill or race
a real process exactly there; `tests/conftest.py` clears every one before each test, so a
hook left set in a shell never leaks into a run. Nothing outside the tests sets them.
"""

from __future__ import annotations

# Read by `kbkit.curator.apply` : seconds to pause at a named apply step.
CURATOR_PAUSE = "KBKIT_CURATOR_TEST_PAUSE"
# Read by `kbkit.distill.publication` (`checkpoint`): the step at which the distill run kills itself.
DISTILL_KILL_AT = "KBKIT_DISTILL_TEST_KILL_AT"

TEST_HOOKS = (CURATOR_PAUSE, DISTILL_KILL_AT)
