"""MyST markdown's own targets (Sphinx with MyST-Parser, Jupyter Book): the labels a page
defines and the entries of its `{toctree}` directives, read from the page as parsed.

A label is a `(name)=` line before a block, a directive's `:name:` option (`name:` in
its `---` options block): figures, tables, code blocks, admonitions; the `{math}`
directive's `:label:`; and the argument of `{figure-md}`. Sphinx keeps label
names as docutils normalises them (lower-cased, whitespace runs one space) and gives each
the id docutils' `make_id` makes of it (`docutils_id`). Lines inside a code block that is
not a directive are text, not labels. `kbkit.sites.sphinx` answers the checks with them.
"""

from __future__ import annotations

import bisect
import unicodedata

from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.page import Page

_LABEL = lazy(r"^ {0,3}\((?P<name>[^()\s][^()]*)\)=[ \t]*$")
_NAME_OPTION = lazy(r"^[ \t]*:(?:name|label):[ \t]+(?P<name>\S(?:.*[^ \t\n])?)[ \t]*$")
_YAML_NAME = lazy(r"^[ \t]*(?:name|label):[ \t]+(?P<name>\S(?:.*[^ \t\n])?)[ \t]*$")
# `{figure-md} name` opening a backtick or (colon_fence) a colon fence
_FIGURE_MD = lazy(r"^[ \t]*(?:`{3,}|:{3,})\{figure-md\}[ \t]+(?P<name>\S+)")
_TOCTREE = lazy(r"^\{toctree\}")
_TITLED = lazy(r"^(?P<title>.*\S)\s+<(?P<target>[^<>]+)>$")

# docutils.nodes.make_id (public domain): the id of a label or a heading's section
_DIGRAPHS = {0x00DF: "sz", 0x00E6: "ae", 0x0153: "oe", 0x0238: "db", 0x0239: "qp"}
_STROKED = {
    0x00F8: "o", 0x0111: "d", 0x0127: "h", 0x0131: "i", 0x0142: "l", 0x0167: "t", 0x0180: "b",
    0x0183: "b", 0x0188: "c", 0x018C: "d", 0x0192: "f", 0x0199: "k", 0x019A: "l", 0x019E: "n",
    0x01A5: "p", 0x01AB: "t", 0x01AD: "t", 0x01B4: "y", 0x01B6: "z", 0x01E5: "g", 0x0225: "z",
    0x0234: "l", 0x0235: "n", 0x0236: "t", 0x0237: "j", 0x023C: "c", 0x023F: "s", 0x0240: "z",
    0x0247: "e", 0x0249: "j", 0x024B: "q", 0x024D: "r", 0x024F: "y",
}  # fmt: skip
_NON_ID = lazy(r"[^a-z0-9]+")
_AT_ENDS = lazy(r"^[-0-9]+|-+$")

# the pages Sphinx's HTML builder always writes: labels of the standard domain
BUILT_IN = frozenset({"genindex", "modindex", "py-modindex", "search"})


def normalized(name: str) -> str:
    """A label name as Sphinx stores it: lower-cased, whitespace runs one space."""
    return " ".join(name.split()).lower()


def docutils_id(text: str) -> str:
    """The id docutils makes of a name or a heading (`make_id`): ASCII letters and digits,
    each other run one `-`, no leading digits or `-`."""
    value = text.lower().translate(_DIGRAPHS).translate(_STROKED)
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return _AT_ENDS.sub("", _NON_ID.sub("-", " ".join(value.split())))


def labels(page: Page) -> tuple[str, ...]:
    """The label names the page defines (normalised), in page order, once each."""
    plain_code: list[tuple[int, int]] = []  # (first, after the last) line of each
    options: dict[int, str] = {}  # line -> a name given in a directive's `---` options
    for block in page.code_blocks:
        if not block.info.startswith("{"):
            numbers = block.line_numbers()
            plain_code.append((numbers.start, numbers.stop))
            continue
        text = block.text
        if "\n" in text and text[: text.index("\n")].strip() == "---":  # an options block
            for number, line in block.lines()[1:]:
                if line.strip() == "---":
                    break
                found = _YAML_NAME.match(line)
                if found:
                    options[number] = found["name"]
    names = []
    # every label line starts (after blanks) with `(`, `:` or a backtick fence: only those
    # lines and the options' are looked at
    led = _led_lines(page.text)
    firsts = [first for first, _ in plain_code]  # blocks come in page order
    for number in sorted(led.keys() | options.keys()):
        if number in options:
            names.append(normalized(options[number]))
            continue
        inside = bisect.bisect_right(firsts, number) - 1  # the last block starting at or before
        if inside < 0 or number >= plain_code[inside][1]:  # not a line of plain code
            line = led[number]
            # MyST-Parser's `{figure-md} name`: its argument is its label
            found = _LABEL.match(line) or _NAME_OPTION.match(line) or _FIGURE_MD.match(line)
            if found:
                names.append(normalized(found["name"]))
    return tuple(dict.fromkeys(names))


# A line whose first text after blanks is `(`, `:` or a backtick, after its line break:
# found by the literal `\n` in C (the first line is tried apart), where `(?m)^` would be
# tried at every offset
_LED_AFTER = lazy(r"\n[ \t]*[(:`]")


def _led_lines(text: str) -> dict[int, str]:
    """1-based line number -> text of every line that `_LED_AFTER` leads."""
    starts = [found.start() + 1 for found in _LED_AFTER.finditer(text)]
    if text.lstrip(" \t")[:1] in ("(", ":", "`"):
        starts.insert(0, 0)
    led: dict[int, str] = {}
    number, counted = 1, 0
    for start in starts:
        number += text.count("\n", counted, start)
        counted = start
        end = text.find("\n", start)
        led[number] = text[start:] if end < 0 else text[start:end]
    return led


def toctree_entries(page: Page) -> tuple[tuple[int, str, bool], ...]:
    """(line, entry as written, a glob pattern) for every entry of the page's `{toctree}`
    directives: document names (`Title <name>` too), `self` and URLs left out."""
    out = []
    for block in page.code_blocks:
        if not _TOCTREE.match(block.info):
            continue
        lines = block.lines()
        glob = any(line.strip() == ":glob:" or line.strip() == "glob:" for _, line in lines)
        in_options = bool(lines) and lines[0][1].strip() == "---"
        for index, (number, line) in enumerate(lines):
            entry = line.strip()
            if in_options:
                in_options = index == 0 or entry != "---"
                continue
            if not entry or entry.startswith(":") or entry.startswith("#"):
                continue
            titled = _TITLED.match(entry)
            target = titled["target"].strip() if titled else entry
            if target == "self" or "://" in target or target.startswith("mailto:"):
                continue
            out.append((number, target, glob and any(c in target for c in "*?[")))
    return tuple(out)
