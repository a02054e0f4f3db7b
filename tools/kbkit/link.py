"""One link of a page, as the page model keeps it (no parser needed to read one)."""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import unquote

_EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.\-]*:|//)")


class Link(NamedTuple):
    """One link or image: its destination as written (percent-decoded), its line, and its
    path part (decoded after `#fragment` and `?query` were cut off, so an encoded `%23` or
    `%3F` in a file name stays part of the path)."""

    target: str
    line: int
    image: bool
    path_part: str

    @property
    def is_external(self) -> bool:
        return bool(_EXTERNAL.match(self.target))


def make_link(href: str, line: int, image: bool) -> Link:
    """A Link from markdown-it's (percent-encoded) href."""
    path = href.split("#", 1)[0].split("?", 1)[0]
    return Link(unquote(href), line, image, unquote(path))
