"""Regular expressions compiled on first use instead of at import.

A `kb check` of a small tree imports the modules of every rule, and compiling their
patterns at import cost a tenth of its fixed cost, most of it for patterns a page without
addresses, homes or tokens never runs. `lazy(pattern, flags)` stands in for
`re.compile(pattern, flags)`: the first method called compiles it, and from then on the
compiled pattern's own bound methods answer (an instance attribute each, no extra call).
"""

from __future__ import annotations

import re
from typing import Any, cast

# the pattern methods kbkit calls; each becomes the compiled pattern's own after first use
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:  # only for names not set yet: the first use
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.groups = compiled.groups
        self.groupindex = compiled.groupindex
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self.flags})"


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when a method is first called."""
    return cast("re.Pattern[str]", _Lazy(pattern, int(flags)))


class _Deferred(_Lazy):
    """A pattern in `re`'s own cache, compiled when first used (`defer_compile`)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        # compiled under another cache key (re.UNICODE is what a str pattern has anyway),
        # so `re` never answers this compile with the deferred pattern itself
        self.flags = int(re.UNICODE)
        return super().__getattr__(name)


def defer_compile(pattern: str) -> None:
    """Make `re.compile(pattern)` (no flags), wherever a library calls it at import, return
    a pattern compiled on first use instead: seeded into `re`'s cache. Where `re` keeps no
    such cache (another Python), the library compiles it at import as before."""
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict):
        cache.setdefault((str, pattern, 0), _Deferred(pattern, 0))
