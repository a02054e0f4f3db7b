"""Split and parse YAML frontmatter with line-accurate errors.

The block is the first thing in the file: a line `---`, YAML, a line `---` (or `...`).
Markers are whole lines, so a `---` inside a value never cuts the block short. Dates stay
strings (PyYAML would turn unquoted dates into `datetime.date` and crash on impossible ones),
so the date check sees exactly what the author wrote.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

from kbkit.infra.bounded_yaml import BoundedLoader
from kbkit.pages.flat_yaml import load_flat

_MERGE = "tag:yaml.org,2002:merge"


class FrontmatterLoader(BoundedLoader):
    """Safe loader (C where present) that keeps timestamps as the written strings and notes
    every repeated mapping key (YAML would silently keep the last value). Within
    `BoundedLoader`'s limits: an alias bomb or a huge integer is an error at its line (the
    flat fast path reads strings only, never an alias or a number, so it needs no limit)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, int, int]] = []  # key, line, first line (0-based)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        # Checked before the base class flattens `<<` merges, whose overrides are legitimate.
        seen: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue
            key, line = (key_node.tag, key_node.value), key_node.start_mark.line
            if key in seen:
                self.duplicates.append((str(key_node.value), line, seen[key]))
            else:
                seen[key] = line
        return super().construct_mapping(node, deep)


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


FrontmatterLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


class FrontmatterError(NamedTuple):
    line: int  # 1-based line in the file
    message: str


class Frontmatter(NamedTuple):
    present: bool  # the file starts with a `---` line
    data: dict[Any, Any] | None  # the mapping, when it parsed
    error: FrontmatterError | None
    start_line: int  # line of the opening `---` (1), 0 when absent
    end_line: int  # line of the closing marker, 0 when absent or unclosed
    body_offset: int  # character offset of the body in the text
    raw: str  # the YAML text between the markers
    duplicates: tuple[tuple[str, int, int], ...] = ()  # repeated keys: key, file line, first line


NO_FRONTMATTER = Frontmatter(False, None, None, 0, 0, 0, "")


def _is_marker(line: str, markers: tuple[str, ...]) -> bool:
    return line.rstrip(" \t\r") in markers


def split_frontmatter(text: str) -> Frontmatter:
    """Find the frontmatter block of `text` (BOM already removed) and parse it."""
    if not text.startswith("---"):
        return NO_FRONTMATTER
    first_end = text.find("\n")
    first_line = text if first_end < 0 else text[:first_end]
    if not _is_marker(first_line, ("---",)):
        return NO_FRONTMATTER
    pos = first_end + 1 if first_end >= 0 else len(text)
    line_no = 2
    while pos < len(text):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if _is_marker(line, ("---", "...")):
            raw = text[first_end + 1 : pos]
            body = len(text) if end < 0 else end + 1
            data, error, duplicates = _parse_mapping(raw, first_line=2)
            return Frontmatter(True, data, error, 1, line_no, body, raw, duplicates)
        if end < 0:
            break
        pos = end + 1
        line_no += 1
    error = FrontmatterError(1, "frontmatter is not closed: no `---` line after the opening one")
    return Frontmatter(True, None, error, 1, 0, len(text), text[first_end + 1 :])


def parse_yaml_mapping(
    raw: str, first_line: int
) -> tuple[dict[Any, Any] | None, FrontmatterError | None]:
    """Parse YAML that must be a mapping; errors carry the file line of the problem."""
    data, error, _ = _parse_mapping(raw, first_line)
    return data, error


Duplicates = tuple[tuple[str, int, int], ...]


def _parse_mapping(
    raw: str, first_line: int
) -> tuple[dict[Any, Any] | None, FrontmatterError | None, Duplicates]:
    """`parse_yaml_mapping` plus the repeated keys (key, file line, file line of the first)."""
    flat = load_flat(raw)
    if flat is not None:  # the common flat shape, without PyYAML's node construction
        return flat, None, ()
    loader = FrontmatterLoader(raw)
    try:
        value = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        problem = exc.problem or exc.context or "invalid YAML"
        return None, FrontmatterError(line, f"invalid YAML: {problem}"), ()
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        return None, FrontmatterError(first_line, f"invalid YAML: {exc}"), ()
    finally:
        loader.dispose()
    duplicates = tuple((k, first_line + n, first_line + f) for k, n, f in loader.duplicates)
    if value is None:
        return {}, None, duplicates
    if not isinstance(value, dict):
        return (
            None,
            FrontmatterError(
                first_line, f"frontmatter must be a mapping, got {type(value).__name__}"
            ),
            duplicates,
        )
    return value, None, duplicates
