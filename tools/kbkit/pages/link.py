"""One link of a page, as the page model keeps it (no parser needed to read one)."""

from __future__ import annotations

from typing import Final, NamedTuple
from urllib.parse import unquote

from kbkit.infra.lazy_pattern import lazy

_EXTERNAL = lazy(r"^(?:[a-zA-Z][a-zA-Z0-9+.\-]*:|//)")

# How a link was written: `[t](dest)`, `[t][label]`/`[label]`, `<scheme:...>`/`<a@b.c>`,
# `[[Page]]` and `![[file.png]]` (the last two only in `Page.wikilinks`).
INLINE: Final = "inline"
REFERENCE: Final = "reference"
AUTOLINK: Final = "autolink"
WIKILINK: Final = "wikilink"
EMBED: Final = "embed"


class Link(NamedTuple):
    """One link or image: its destination as written (percent-decoded), its line, and its
    path part (decoded after `#fragment` and `?query` were cut off, so an encoded `%23` or
    `%3F` in a file name stays part of the path)."""

    target: str
    line: int
    image: bool
    path_part: str
    kind: str = INLINE

    @property
    def is_external(self) -> bool:
        """A URL with a scheme (`https:`, `mailto:`) or a protocol-relative `//host/x`."""
        target = self.target
        if ":" not in target:  # most links: a relative path, which holds no scheme's colon
            return target.startswith("//")
        return _EXTERNAL.match(target) is not None


class Footnote(NamedTuple):
    """A GFM footnote definition (`[^label]: text`) or reference (`[^label]`) and its line."""

    label: str
    line: int
    definition: bool


def make_link(href: str, line: int, image: bool, kind: str = INLINE) -> Link:
    """A Link from markdown-it's (percent-encoded) href."""
    if "%" not in href and "#" not in href and "?" not in href:  # most relative links
        return Link(href, line, image, href, kind)
    path = href.split("#", 1)[0].split("?", 1)[0]
    return Link(unquote(href), line, image, unquote(path), kind)
