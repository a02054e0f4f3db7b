"""The mechanical fixes: findings whose fix needs no judgement, planned as line edits.

Each fix reads the finding and the page's text and returns the lines to put in place of
some lines (an edit); none rewrites what a page says. The fixes (`FIXES`, by rule):

- `lint/title-unquoted`: the title written as a double-quoted YAML string (same value);
- `lint/field-missing`: the keys that have a mechanical value stubbed: `title` from the
  page's first `# heading`, `created` and `updated` from git (the first and last commit of
  the page, today when it has changes not committed), `sources: []`;
- `tree/page-unregistered`, `tree/child-unregistered`: one list item linking the page (or
  the sub-folder's index) added to the folder's `_index.md`, after its last list item;
- `kb/suppression-unused`: the comment removed (its line too, when nothing else is on it).

Besides findings, `updated:` is bumped to today on a page whose text (its body, comments
aside) differs from the committed one, so a fix that only drops a comment bumps nothing.
The bump looks at the text as the fixes leave it, so a link the run adds to an index bumps
that index in the same run: a second `kb fix` finds nothing more to do.
Edits are planned against the texts as read and applied bottom-up per file; an edit that
overlaps one already planned is left out (`kb fix` plans again after applying). Each new
line takes the line ending of the lines around it (CRLF pages stay CRLF). A page whose lines
end in a bare CR is not edited, and a folder with no index is not linked: `plan` says so per
page instead of planning an edit the re-check would refuse. Applying the edits and
re-checking the tree is `kbkit.checks.fix_apply`.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import yaml

from kbkit.infra.closed_spans import closed_spans, replace_spans
from kbkit.pages.frontmatter import FrontmatterLoader
from kbkit.rulebook.findings import Finding


class Edit(NamedTuple):
    """Replace lines [start, end) (0-based) of `path` with `lines`; start == end inserts."""

    path: str  # repo-relative
    start: int
    end: int
    lines: tuple[str, ...]
    fixes: tuple[str, str]  # (rule, path) of the finding it fixes; ("", path): a bump


class Context(NamedTuple):
    repo: Path
    today: date
    required: tuple[str, ...]  # the frontmatter keys in the order the policy lists them
    index_page: str  # `_index.md`
    changed: frozenset[str]  # repo-relative paths with changes not committed
    dates: Callable[[str], tuple[str, str] | None]  # (first, last) commit dates of a path
    text: Callable[[str], str | None]  # the current text of a repo-relative file
    committed: Callable[[str], str | None]  # its text in HEAD (None: not committed)


Fix = Callable[[Finding, Context], list[Edit]]

_TITLE = re.compile(r"^title:[ \t]*(?P<value>(?:.*[^ \t\n])?)[ \t]*$")
_FIELD_MISSING = re.compile(r"^required frontmatter field `(?P<key>[^`]+)` is missing$")
_UNREGISTERED = re.compile(r"^not linked from (?P<index>\S+): add one link to this page there$")
_CHILD_UNREGISTERED = re.compile(
    r"^(?P<child>.+) is not linked from (?P<index>\S+): add one link to it there$"
)
_LIST_ITEM = re.compile(r"^(?P<marker>[-*+]|\d+[.)])[ \t]+\S")
_HEADING = re.compile(r"^#[ \t]+(?P<text>.(?:.*[^ \t#\n])?)[ \t#]*$")
# to the next `-->` on its line (closed_spans)
_SUPPRESSION = re.compile(r"<!--[ \t]*kb-disable-(?:next-line|file)\b")
_UPDATED = re.compile(r"^updated:[ \t]*(?P<value>(?:[^#\n]*[^#\n \t])?)[ \t]*$")


def _lines(ctx: Context, path: str) -> list[str] | None:
    text = ctx.text(path)
    return None if text is None else text.split("\n")


def _frontmatter_end(lines: list[str]) -> int | None:
    """The 0-based index of the closing `---` (or `...`) of the frontmatter, if any."""
    if not lines or lines[0].rstrip("\r") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return i
    return None


def _yaml_value(text: str) -> object:
    try:
        return yaml.load(f"v: {text}\n", Loader=FrontmatterLoader)["v"]
    except (yaml.YAMLError, TypeError, KeyError):
        return None


def quote_title(finding: Finding, ctx: Context) -> list[Edit]:
    lines = _lines(ctx, finding.path)
    if lines is None or not 0 < finding.line <= len(lines):
        return []
    line = lines[finding.line - 1].rstrip("\r")
    match = _TITLE.match(line)
    follows = lines[finding.line] if finding.line < len(lines) else ""
    if match is None or follows.startswith((" ", "\t")):  # a value over several lines
        return []
    value = _yaml_value(match["value"])
    if not isinstance(value, str) or not value.strip():
        return []
    quoted = json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML one
    if _yaml_value(quoted) != value:
        return []
    return [
        Edit(
            finding.path,
            finding.line - 1,
            finding.line,
            (f"title: {quoted}",),
            (finding.rule_id, finding.path),
        )
    ]


def stub_field(finding: Finding, ctx: Context) -> list[Edit]:
    match = _FIELD_MISSING.match(finding.message)
    lines = _lines(ctx, finding.path)
    end = _frontmatter_end(lines) if lines is not None else None
    if match is None or lines is None or end is None:
        return []
    value = _stub_value(match["key"], finding.path, lines[end + 1 :], ctx)
    if value is None:
        return []
    return [
        Edit(finding.path, end, end, (f"{match['key']}: {value}",), (finding.rule_id, finding.path))
    ]


def _stub_value(key: str, path: str, body: list[str], ctx: Context) -> str | None:
    if key == "title":
        heading = next((m["text"] for m in map(_HEADING.match, body) if m), None)
        return json.dumps(heading.strip(), ensure_ascii=False) if heading else None
    if key == "sources":
        return "[]"
    if key in ("created", "updated"):
        dates = ctx.dates(path)
        if key == "updated" and (dates is None or path in ctx.changed):
            return ctx.today.isoformat()
        return (
            dates[0]
            if dates and key == "created"
            else (dates[1] if dates else ctx.today.isoformat())
        )
    return None  # type, tags, ...: what they should say is the author's call


def register(finding: Finding, ctx: Context) -> list[Edit]:
    """A list item linking the page (or the sub-folder's index) in the folder's index."""
    page = _UNREGISTERED.match(finding.message)
    child = _CHILD_UNREGISTERED.match(finding.message)
    found = page or child
    if found is None:
        return []
    index = found["index"]
    target = posixpath.relpath(
        finding.path if page else f"{finding.path}/{ctx.index_page}", posixpath.dirname(index)
    )
    lines = _lines(ctx, index)
    if lines is None:
        return []
    title = _page_title(ctx, finding.path if page else f"{finding.path}/{ctx.index_page}")
    link = f"[{title}]({quote(target, safe='/')})"  # `#`, `%`, `?`, `)`: a path, not more
    last = max((i for i, line in enumerate(lines) if _LIST_ITEM.match(line)), default=None)
    if last is None:  # no list yet: one after the text
        while lines and not lines[-1].strip():
            lines = lines[:-1]
        return [
            Edit(index, len(lines), len(lines), ("", f"- {link}"), (finding.rule_id, finding.path))
        ]
    marker = _LIST_ITEM.match(lines[last])
    bullet = marker["marker"] if marker and not marker["marker"][0].isdigit() else "-"
    end = last + 1
    while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip():
        end += 1  # the item's continuation lines
    return [Edit(index, end, end, (f"{bullet} {link}",), (finding.rule_id, finding.path))]


def _page_title(ctx: Context, path: str) -> str:
    lines = _lines(ctx, path) or []
    end = _frontmatter_end(lines)
    if end is not None:
        try:
            data = yaml.load("\n".join(lines[1:end]), Loader=FrontmatterLoader)
        except yaml.YAMLError:
            data = None
        title = data.get("title") if isinstance(data, dict) else None
        if isinstance(title, str) and title.strip():
            return _link_text(title.strip())
    body = lines[end + 1 :] if end is not None else lines
    heading = next((m["text"] for m in map(_HEADING.match, body) if m), None)
    return _link_text((heading or "").strip() or posixpath.basename(path).removesuffix(".md"))


def _link_text(text: str) -> str:
    text = text.replace("\r", " ").replace("\n", " ")  # a link text stays on its line
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def drop_suppression(finding: Finding, ctx: Context) -> list[Edit]:
    lines = _lines(ctx, finding.path)
    if lines is None or not 0 < finding.line <= len(lines):
        return []
    line = lines[finding.line - 1]
    comments = [line[span.start : span.end] for span in closed_spans(line, _SUPPRESSION, "-->")]
    if len(comments) != 1:
        return []  # a comment over several lines, or two on one line: left to the author
    rest = line.replace(comments[0], "", 1)
    keep = () if not rest.strip() else (rest.rstrip(),)
    return [
        Edit(finding.path, finding.line - 1, finding.line, keep, (finding.rule_id, finding.path))
    ]


FIXES: dict[str, Fix] = {
    "lint/title-unquoted": quote_title,
    "lint/field-missing": stub_field,
    "tree/page-unregistered": register,
    "tree/child-unregistered": register,
    "kb/suppression-unused": drop_suppression,
}


_COMMENT = re.compile(r"<!--")  # to the next `-->` (closed_spans)


def said(text: str) -> str:
    """What a page says: its body without frontmatter and comments, whitespace folded."""
    lines = text.split("\n")
    end = _frontmatter_end(lines)
    body = "\n".join(lines[end + 1 :] if end is not None else lines)
    return " ".join(replace_spans(body, closed_spans(body, _COMMENT, "-->"), " ").split())


def bump_updated(path: str, ctx: Context, fixed: str | None = None) -> list[Edit]:
    """`updated:` set to today on a page whose text changed since HEAD, when it says earlier.
    `fixed`: the page's text as the run's other edits leave it (what is compared to HEAD)."""
    lines = _lines(ctx, path)
    end = _frontmatter_end(lines) if lines is not None else None
    if lines is None or end is None:
        return []
    committed = ctx.committed(path)
    now = "\n".join(lines) if fixed is None else fixed
    if committed is not None and said(committed) == said(now):
        return []  # only frontmatter or comments changed: nothing new was said
    for i in range(1, end):
        match = _UPDATED.match(lines[i].rstrip("\r"))
        if match is None:
            continue
        written = match["value"].strip("'\"")
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", written) and written < ctx.today.isoformat():
            return [Edit(path, i, i + 1, (f"updated: {ctx.today.isoformat()}",), ("", path))]
        return []
    return []


class Planned(NamedTuple):
    edits: list[Edit]
    skipped: dict[str, str]  # repo-relative path -> why its fixes were left out


def plan(
    findings: list[Finding], pages: list[str], ctx: Context, *, bump_edited: bool = False
) -> Planned:
    """The edits that fix what can be fixed of `findings`, plus the `updated:` bumps of
    `pages` (repo-relative markdown pages with changes not committed) and, with
    `bump_edited`, of the files the fixes edit. Overlapping edits: the first planned wins."""
    skipped: dict[str, str] = {}
    edits: list[Edit] = []
    for finding in findings:
        if finding.rule_id not in FIXES:
            continue
        why = _unfixable(finding, ctx)
        if why is not None:
            skipped.setdefault(finding.path, why)
            continue
        for edit in FIXES[finding.rule_id](finding, ctx):
            why = _bare_cr(ctx, edit.path)
            if why is None:
                edits.append(edit)
            else:
                skipped.setdefault(edit.path, why)
    kept = _first_of_overlapping(edits)
    by_path: dict[str, list[Edit]] = {}
    for edit in kept:
        by_path.setdefault(edit.path, []).append(edit)
    bumped = list(pages) + sorted(set(by_path) - set(pages) if bump_edited else ())
    for path in bumped:
        text = ctx.text(path) if path in by_path else None
        fixed = apply_edits(text, by_path[path]) if text is not None else None
        if path not in pages and (fixed is None or said(fixed) == said(text or "")):
            continue  # the fixes left what it says as it was: as `pages` decide (no git)
        for bump in bump_updated(path, ctx, fixed):
            why = _bare_cr(ctx, path)
            if why is None:
                kept.append(bump)
            else:
                skipped.setdefault(path, why)
    return Planned(_first_of_overlapping(kept), skipped)


def _first_of_overlapping(edits: list[Edit]) -> list[Edit]:
    kept: list[Edit] = []
    for edit in edits:
        if any(_overlap(edit, other) for other in kept):
            continue
        kept.append(edit)
    return kept


_BARE_CR = re.compile(r"\r(?!\n)")


def _bare_cr(ctx: Context, path: str) -> str | None:
    text = ctx.text(path)
    if text is None or _BARE_CR.search(text) is None:
        return None
    return "its lines end in a bare carriage return (CR), which the fixes do not edit"


def _unfixable(finding: Finding, ctx: Context) -> str | None:
    """Why `finding`'s fix is left out, when the page it reads cannot be fixed safely."""
    if finding.rule_id == "tree/child-unregistered":
        if ctx.text(f"{finding.path}/{ctx.index_page}") is None:
            return f"this folder has no {ctx.index_page} (or not one in UTF-8) to link to"
        return None
    return _bare_cr(ctx, finding.path)


def _overlap(a: Edit, b: Edit) -> bool:
    if a.path != b.path:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start and a.lines == b.lines  # the same insertion twice
    return (
        a.start < b.end
        and b.start < a.end
        or (a.start == a.end == b.start)
        or (b.start == b.end == a.start)
    )


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with `edits` (all of one file, planned against `text`) applied bottom-up; each
    new line ends as the line it replaces, or the one before it, does (CRLF or LF)."""
    lines = text.split("\n")  # a CRLF line keeps its CR; the last item has no line break
    crlf = text.count("\r\n") * 2 > text.count("\n")
    # bottom-up; of insertions at one place the last planned goes in first, so they end up
    # in the planned order
    order = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    for _, edit in reversed(order):
        cr = _ends_in_cr(lines, edit.start, edit.end, crlf)
        new = [line + "\r" if cr else line for line in edit.lines]
        if new and edit.end >= len(lines):  # the new last item: no line break after it
            new[-1] = new[-1].removesuffix("\r")
        if new and edit.start >= len(lines) and cr and not lines[-1].endswith("\r"):
            lines[-1] += "\r"  # the old last item gets a line break: a CRLF one
        lines[edit.start : edit.end] = new
    return "\n".join(lines)


def _ends_in_cr(lines: list[str], start: int, end: int, crlf: bool) -> bool:
    """Whether the lines an edit puts at [start, end) end in CRLF: as the first line they
    replace, else the line before them, else as most of the file's lines do."""
    last = len(lines) - 1  # the item after the last line break: not a line
    if start < end and start < last:
        return lines[start].endswith("\r")
    if 0 < start <= last:
        return lines[start - 1].endswith("\r")
    return crlf
