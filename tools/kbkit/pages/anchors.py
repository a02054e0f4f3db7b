"""Heading anchors as a site generator makes them, for `page.md#fragment` links.

A slug style names the generator whose ids a site publishes:

- `github` (the default): github-slugger. Lower-case the rendered text, drop everything but
  letters, combining marks, digits, `_`, `-` and spaces, turn each space into `-`; a repeat
  gets `-1`, `-2` (the real github-slugger is the oracle: tests/pages/test_anchors.py).
- `python-markdown`: the `toc` extension's `slugify` (mkdocs): the text folded to ASCII
  (NFKD), everything but word characters, spaces and `-` dropped, lower-cased, each run of
  spaces and `-` one `-` ("Caret, Mark & Tilde" is `caret-mark-tilde`); a repeat gets `_1`.
- `mdbook`: mdBook's `normalize_id`: letters, digits, `_` and `-` kept (ASCII letters
  lower-cased), each whitespace character a `-`; a repeat gets `-1`.
- `docfx`: markdig's GitHub-style identifiers, as DocFX and Learn build them: `github`'s,
  except that a heading with nothing left (`### $?`) is `section`.
- `kramdown`: kramdown's GFM parser, as Jekyll builds ids by default: `github`'s, from the
  text after kramdown's typography (`--`, `---`, `...`, `<<`, `>>` become symbols, which
  are dropped) and with each tab a `-` too ("A -- B" is `a--b`, GitHub's `a----b`).

Ids that do not come from heading text are read too (`page_ids`): `attr_list` blocks
(`## Title { #id }`, `{: #id }`, `{ id="x" }`) replace the heading's own slug, HTML
`id`/`name` attributes, footnote ids in every generator's spelling, and
pymdownx.tabbed's tab ids (`=== "Tab"`: the tab title's slug, alone and after the
heading's).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from kbkit.infra.lazy_pattern import lazy

GITHUB, PYTHON_MARKDOWN, MDBOOK, DOCFX = "github", "python-markdown", "mdbook", "docfx"
KRAMDOWN = "kramdown"
STYLES = (GITHUB, PYTHON_MARKDOWN, MDBOOK, DOCFX, KRAMDOWN)

# GitHub (github-slugger) lower-cases the heading's text, drops everything but letters,
# digits, `_`, `-` and spaces, and turns each space into `-`.
_DROP = lazy(r"[^\w\- ]")
# The same for ASCII text in one C pass: punctuation deleted, spaces turned into `-`.
_ASCII_KEEP = set("abcdefghijklmnopqrstuvwxyz0123456789_- ")
_GITHUB_ASCII = str.maketrans(
    {
        chr(c): (None if chr(c) not in _ASCII_KEEP else "-" if c == 32 else chr(c))
        for c in range(128)
    }
)
_PM_DROP = lazy(r"[^\w\s-]")
_PM_RUNS = lazy(r"[-\s]+")
_PM_COUNT = lazy(r"^(.*)_([0-9]+)$")
# kramdown's typographic symbols (em and en dash, ellipsis, guillemets), longest first
_KRAMDOWN_SYMBOLS = lazy(r"---|--|\.\.\.|<<|>>")


def slug(text: str, style: str = GITHUB) -> str:
    """The anchor of one heading text (its rendered text: `Heading.plain`)."""
    if style == PYTHON_MARKDOWN:
        value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        return _PM_RUNS.sub("-", _PM_DROP.sub("", value).strip().lower())
    if style == MDBOOK:
        out = []
        for char in text.strip().lstrip("#").strip():
            if char.isalnum() or char in "_-":
                out.append(char.lower() if char.isascii() else char)
            elif char.isspace():
                out.append("-")
        return "".join(out)
    lowered = text.strip().lower()
    if style == KRAMDOWN:
        lowered = _KRAMDOWN_SYMBOLS.sub("", lowered).replace("\t", " ")
    if lowered.isascii():
        made = lowered.translate(_GITHUB_ASCII)
    elif style in (GITHUB, KRAMDOWN):
        made = _keep_word_and_marks(lowered).replace(" ", "-")
    else:
        made = _DROP.sub("", lowered).replace(" ", "-")
    if style == DOCFX and not made:
        return "section"  # markdig's AutoIdentifier for a heading without text
    return made


# What github-slugger and kramdown's GFM ids keep of non-ASCII text (`\\p{Word}`): letters,
# combining marks (Bengali's `া`, Hindi's `ि`, which Python's `\\w` leaves out), decimal
# digits, letter numbers (`Ⅻ`) and connectors (`_`); other numbers (`²`, `½`) go.
_KEPT_CATEGORIES = frozenset(("Nd", "Nl", "Pc"))


class _WordAndMarks(dict[int, "int | None"]):
    """A `str.translate` table over every character: the character itself where
    github-slugger keeps it (`-`, space, `_KEPT_CATEGORIES` and the letter and mark
    categories), None (dropped) where not. Each character's category is looked up once
    per process, not once per heading: a translated docs site repeats the same few
    hundred characters in thousands of headings."""

    def __missing__(self, code: int) -> int | None:
        char = chr(code)
        category = unicodedata.category(char)
        kept = char in "- " or category[0] in "LM" or category in _KEPT_CATEGORIES
        self[code] = value = code if kept else None
        return value


_WORD_AND_MARKS = _WordAndMarks()


def _keep_word_and_marks(text: str) -> str:
    """`text` without what github-slugger and kramdown's GFM ids drop, `-` and spaces kept:
    `"না" বলতে শেখা` is `না বলতে শেখা`, `x² and ½` is `x and `."""
    return text.translate(_WORD_AND_MARKS)


def _unique(candidate: str, seen: set[str], style: str, counters: dict[str, int]) -> str:
    """The candidate, or the first of `candidate-1`, `candidate-2`... not yet `seen`.
    `counters` keeps the last number each candidate took: every smaller one was taken then
    and `seen` only grows, so the search resumes there (a class reference repeats
    "Parameters", "Remarks" and "Example" under each of hundreds of members)."""
    if style == PYTHON_MARKDOWN:  # markdown.extensions.toc.unique, resumed (as below)
        if candidate and candidate not in seen:
            return candidate
        # it tries `base_N+1`, `base_N+2`... where the candidate is `base_N`, else
        # `candidate_1`, `candidate_2`...; `counters` keeps the N it last stopped at
        match = _PM_COUNT.match(candidate)
        base, number = (match.group(1), int(match.group(2))) if match else (candidate, 0)
        number = counters.get(candidate, number)
        while True:
            number += 1
            numbered = f"{base}_{number}"
            if numbered not in seen:
                counters[candidate] = number
                return numbered
    if candidate not in seen:
        return candidate
    base = candidate
    number = counters.get(base, 0)
    candidate = f"{base}-{number}" if number else base
    while candidate in seen:
        number += 1
        candidate = f"{base}-{number}"
    counters[base] = number
    return candidate


def page_anchors(texts: Iterable[str], style: str = GITHUB) -> tuple[str, ...]:
    """The anchors of a page's headings in order, repeats numbered as the style does."""
    seen: set[str] = set()
    counters: dict[str, int] = {}
    out = []
    for text in texts:
        candidate = _unique(slug(text, style), seen, style, counters)
        seen.add(candidate)
        out.append(candidate)
    return tuple(out)


# An attribute list: `{ #id .class key="value" }`, `{: #id }` (kramdown/Python-Markdown).
# Each item is atomic (`(?>...)`): an unquoted value takes `=` and letters too, so
# `{a=a=a=...` could be cut into items in exponentially many ways, all tried before failing
# (28 pairs took 0.1 s, 40 half a minute). A quoted value is one only where the item ends
# after it (`key="v" `, `key="v"}`); else the value is read unquoted to the next blank or
# brace (`{op="a",result="b"}`), as trying both ways found.
_ATTRS = lazy(
    r"\{:?[ \t]*((?:(?>[#.][^\s{}#.]+|[\w-]+=(?:(?:\"[^\"]*\"|'[^']*')(?=[\s}])|[^\s{}]+)"
    r"|[ \t]))+)\}"
)
_ATTR_ID = lazy(r"(?:^|[ \t])(?:#([^\s{}.]+)|id=(?:\"([^\"]*)\"|'([^']*)'|([^\s{}]+)))")
_TRAILING_ATTRS = lazy(_ATTRS.pattern + r"[ \t]*$")


def _attr_id(attrs: str) -> str | None:
    match = _ATTR_ID.search(attrs)
    if match is None:
        return None
    return next(group for group in match.groups() if group is not None)


def heading_ids(texts: Iterable[str], style: str = GITHUB, attr_list: bool = False) -> list[str]:
    """The id of each heading (plain text): its `{ #id }` when `attr_list` is on, else its
    slug, with repeats numbered as the style does."""
    seen: set[str] = set()
    counters: dict[str, int] = {}
    out = []
    for text in texts:
        given = None
        if attr_list and "{" in text:
            match = _TRAILING_ATTRS.search(text)
            if match is not None:
                given = _attr_id(match.group(1))
                text = text[: match.start()]
        candidate = given if given else _unique(slug(text, style), seen, style, counters)
        seen.add(candidate)
        out.append(candidate)
    return out


def attr_list_ids(text: str) -> list[str]:
    """Every `#id` / `id=` of the attribute lists in `text` (blocks, images, spans)."""
    if "{" not in text:
        return []
    return [found for match in _ATTRS.finditer(text) if (found := _attr_id(match.group(1)))]


# A tag's attributes end at its `>`, or at the next `<`: a tag that is never closed
# (`<<EOF` in a shell sample) is read up to the next tag, not to the end of the page, so each
# character is read a bounded number of times (up to the end, a page of such lines took
# minutes). A tag holding a `<` (`<a <b id="x">`) gives the same id either way.
_HTML_ID = lazy(r"""<[a-zA-Z][^<>]*\s(?:id|name)\s*=\s*["']([^"']+)["']""")
_QUOTED_VALUE = lazy(r"""=\s*["']""")  # what every such attribute holds (found by its `=`)


def html_ids(text: str) -> list[str]:
    """Explicit HTML `id`/`name` anchors (`<a id="x">`, `<div name='y'>`)."""
    if "id" not in text and "name" not in text:
        return []
    if _QUOTED_VALUE.search(text) is None:
        return []
    return [match.group(1) for match in _HTML_ID.finditer(text)]


# A definition list's definition line (`: text`), whose term is the line above it (or the
# line above a blank one)
_DEFINITION = lazy(r"(?m)^[^\S\n]{0,3}:[ \t]")
_TERM_MARKUP = lazy(r"[`*_]")


def definition_terms(text: str) -> list[tuple[int, str]]:
    """The definition terms of `text` (goldmark gives them ids with Hugo's
    `autoDefinitionTermID`, numbered with the headings' in one run): (line, the term's text
    with its code and emphasis marks dropped)."""
    if ":" not in text or _DEFINITION.search(text) is None:
        return []
    lines = text.split("\n")
    out = []
    for index, line in enumerate(lines):
        if not _DEFINITION.match(line) or index == 0:
            continue
        above = index - 1
        if not lines[above].strip() and above > 0:
            above -= 1  # a blank line may part the term from its definition
        term = lines[above].strip()
        if term and not _DEFINITION.match(lines[above]):
            out.append((above + 1, _TERM_MARKUP.sub("", term)))
    return out


def footnote_ids(labels: Iterable[str]) -> list[str]:
    """The ids footnotes get, in each generator's spelling: Python-Markdown and markdig
    (`fn:x`, `fnref:x`), GitHub (`fn-x`, `user-content-fn-x`), mdBook (`footnote-x`); by
    label and by number in order of definition."""
    out = []
    for number, label in enumerate(dict.fromkeys(labels), 1):
        for name in (label, str(number)):
            out += [f"fn:{name}", f"fnref:{name}", f"fn-{name}", f"fnref-{name}"]
            out += [f"user-content-fn-{name}", f"user-content-fnref-{name}", f"footnote-{name}"]
    return out


# pymdownx.tabbed: `=== "Title"` (also `===!` / `===+`) opens a tab.
_TAB = lazy(r'^[ \t]*===[!+]?[ \t]+"(.*)"[ \t]*$', re.M)
_ICON = lazy(r":[a-z0-9_+-]+:")


def tab_ids(text: str, headings: list[tuple[int, str]], style: str) -> list[str]:
    """pymdownx.tabbed's ids for each `=== "Title"` of `text`: the title's slug, and the
    slug after the id of the heading above it (`combine_header_slug`). `headings` are
    (line, id) in order; icon shortcodes (`:octicons-x-16:`) render no text."""
    if "===" not in text:
        return []
    out = []
    for match in _TAB.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        title = _ICON.sub("", match.group(1)).replace("`", "").replace("*", "")
        # the heading style's slug, and pymdownx.slugs' (github-slugger's: not trimmed)
        owns = dict.fromkeys((slug(title, style), _DROP.sub("", title.lower()).replace(" ", "-")))
        above = [anchor for at, anchor in headings if at < line]
        for own in owns:
            out.append(own)
            if above:
                out.append(f"{above[-1]}-{own}")
    return out
