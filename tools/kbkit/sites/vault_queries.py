"""The pages an Obsidian vault lists by query instead of by link: Dataview queries and Bases.

A vault of records (one page per spell, item or creature, its data in the front matter) links
few of its pages: a Dataview query on some page (```` ```dataview ```` `TABLE ... FROM
"Folder"` or `FROM #tag`, `dv.pages('"Folder"')` in DataviewJS) or a Base (a `.base` file,
Obsidian's core plugin: `filters: file.inFolder("Folder")`, `file.hasTag("tag")`) lists them,
and the reader reaches them from that table. Such a page is not an orphan. The sources are
read as the plugins document them (Dataview's "Sources" reference, Obsidian's "Bases syntax"):
a quoted folder or file path, a tag (its nested tags too), joined by `and`/`or`; a negated one
(`-#tag`, `!file.inFolder(...)`, under `not:`) lists nothing. A query whose source is every
page (no `FROM`, `dv.pages()`) is not counted: kbkit cannot tell which pages its `WHERE` keeps.

A page whose body renders its own front matter (Dataview's `` `= this.Name` ``, DataviewJS's
`dv.current()`) shows different text on every page even where the bodies are the same
template: such pages are not copies of each other (`tree/duplicate-page`).

Sources are (kind, value) pairs: ("folder", "Folder/Sub") (a file path names one page), or
("tag", "tag/nested") in lower case (tags match whatever their case).
"""

from __future__ import annotations

import re
from typing import Any

from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.lines import LineCounter
from kbkit.pages.page import Page

Source = tuple[str, str]

# the FROM clause of a Dataview query, up to the next clause
_FROM = lazy(r"(?is)\bfrom\s+(.*?)(?=\b(?:where|sort|group\s+by|flatten|limit)\b|\Z)")
# a source inside it: a quoted path or a tag, and whether `-` negates it
_SOURCE = lazy(r"""(-?)\s*(?:"([^"\n]*)"|(#[^\s"()#,]+))""")
# DataviewJS: `dv.pages("#tag")`, `dv.pages('"Folder"')`, `dv.pagePaths(...)`
_DV_PAGES = lazy(
    r"""dv\.page(?:s|Paths)\(\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`]*)`)"""
)
# an inline query: `= expression` and `$= javascript`
_INLINE = lazy(r"`\$?=[^`\n]*`")
_OWN_FIELDS = lazy(r"`=[^`\n]*\bthis\.|dv\.current\(\)")
# Bases: `file.inFolder("x")`, `file.hasTag("a", "b")`, `file.folder == "x"`
_IN_FOLDER = lazy(r"""(!?)\s*file\.inFolder\(\s*["']([^"'\n]*)["']\s*\)""")
_HAS_TAG = lazy(r"""(!?)\s*file\.hasTag\(([^)\n]*)\)""")
_FOLDER_IS = lazy(r"""file\.folder\s*==\s*["']([^"'\n]*)["']""")
_QUOTED = lazy(r"""["']([^"'\n]*)["']""")
# an inline tag: `#` after a blank or the line's start, then tag characters, not all digits
_TAG_CHARS = r"[^\s#!\"$%&'()*+,.:;<=>?@\[\\\]^`{|}~]"
_TAG = lazy(r"(?<![^\s(\[,])#(" + _TAG_CHARS + "+)")
_TAG_HINT = lazy("#" + _TAG_CHARS)
_BEFORE_TAG = frozenset(" \t\n\r\f\v([,`\u00a0\u3000")


def page_sources(page: Page) -> tuple[Source, ...]:
    """What the page's Dataview queries list (code blocks and inline queries)."""
    found: list[Source] = []
    for block in page.code_blocks:
        kind = block.info.split()[0].lower() if block.info.strip() else ""
        if kind == "dataview":
            found.extend(_from_clause(block.text))
        elif kind == "dataviewjs":
            found.extend(_js_sources(block.text))
    text = page.text
    if "`=" in text or "`$=" in text:
        for inline in _INLINE.findall(text):
            found.extend(_js_sources(inline) if inline.startswith("`$=") else _from_clause(inline))
    return tuple(dict.fromkeys(found))


def _from_clause(query: str) -> list[Source]:
    out: list[Source] = []
    for clause in _FROM.finditer(query):
        out.extend(_sources(clause.group(1)))
    return out


def _sources(expression: str) -> list[Source]:
    """The sources a FROM expression names, negated ones left out."""
    out: list[Source] = []
    for negated, path, tag in _SOURCE.findall(expression):
        if negated:
            continue
        if path:
            out.append(("folder", path.strip("/")))
        elif tag:
            out.append(("tag", tag[1:].lower().rstrip("/")))
    return out


def _js_sources(script: str) -> list[Source]:
    out: list[Source] = []
    for double, single, backtick in _DV_PAGES.findall(script):
        argument = (double or single or backtick).replace('\\"', '"').replace("\\'", "'")
        out.extend(_sources(argument))
    return out


def renders_own_fields(page: Page) -> bool:
    """Whether the page's body shows its own front matter (`= this.x`, `dv.current()`)."""
    text = page.text
    if "this." not in text and "dv.current" not in text:
        return False
    return _OWN_FIELDS.search(text, page.frontmatter.body_offset) is not None


def page_tags(page: Page) -> tuple[str, ...]:
    """The page's tags, lower case: its front matter's `tags` (and `tag`), and the `#tags`
    of its body outside code."""
    tags: list[str] = []
    for key in ("tags", "tag"):
        value = page.meta.get(key)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str):
                tags.extend(part.lstrip("#") for part in re.split(r"[,\s]+", item) if part)
    text = page.text
    start = page.frontmatter.body_offset
    # Only the lines where `#` and a tag character meet can hold a tag (one search for `#`,
    # not a pattern tried at every character): most `#` open a heading (`## x`).
    # (and after a blank, `(`, `[`, `,` or a backtick: `[[Page#Heading]]` is no tag)
    line_at = LineCounter(text, 0).line_at  # 0-based: an index into the split lines
    lines = sorted(
        {
            line_at(at)
            for found in _TAG_HINT.finditer(text, start)
            if (at := found.start()) == start or text[at - 1] in _BEFORE_TAG
        }
    )
    if lines:
        code = page.code_line_numbers()
        split = text.split("\n")
        for index in lines:
            if index + 1 in code:
                continue
            bare = re.sub(r"`[^`]*`", "", split[index])  # inline code holds no tag
            tags.extend(name for name in _TAG.findall(bare) if not name.replace("/", "").isdigit())
    return tuple(dict.fromkeys(tag.lower().rstrip("/") for tag in tags if tag))


def base_sources(data: Any) -> tuple[Source, ...] | None:
    """What a Base (its parsed `.base` YAML) lists: the sources of its filters and its
    views' filters; None when it has no filter at all (it lists every page)."""
    if not isinstance(data, dict):
        return ()
    found: list[Source] = []
    views: list[Any] = data["views"] if isinstance(data.get("views"), list) else []
    top = data.get("filters")
    if top is None and not any(isinstance(v, dict) and v.get("filters") for v in views):
        return None
    for filters in (top, *(v.get("filters") for v in views if isinstance(v, dict))):
        found.extend(_filter_sources(filters, negated=False))
    return tuple(dict.fromkeys(found))


def _filter_sources(node: Any, negated: bool) -> list[Source]:
    if isinstance(node, dict):
        out: list[Source] = []
        for key, value in node.items():
            out.extend(_filter_sources(value, negated or key == "not"))
        return out
    if isinstance(node, list):
        return [source for item in node for source in _filter_sources(item, negated)]
    if not isinstance(node, str) or negated:
        return []
    out = [("folder", f.strip("/")) for bang, f in _IN_FOLDER.findall(node) if not bang]
    out.extend(("folder", f.strip("/")) for f in _FOLDER_IS.findall(node))
    for bang, arguments in _HAS_TAG.findall(node):
        if not bang:
            out.extend(("tag", t.lstrip("#").lower()) for t in _QUOTED.findall(arguments))
    return out


def listed(rel: str, tags: tuple[str, ...], sources: set[Source]) -> bool:
    """Whether a page (its path from the vault's top, its tags) is one the sources list
    (("folder", "") lists every page)."""
    if ("folder", "") in sources:
        return True
    for tag in tags:
        parts = tag.split("/")
        if any(("tag", "/".join(parts[:n])) in sources for n in range(1, len(parts) + 1)):
            return True
    folder = rel
    while folder:
        if ("folder", folder) in sources:
            return True
        if folder.endswith(".md") and ("folder", folder[:-3]) in sources:
            return True  # a file source names its page without the suffix
        folder = folder.rpartition("/")[0]
    return False
