"""Loading YAML someone else wrote, with limits: the one safe loader every reader builds on.

PyYAML's safe loader still trusts its input's size. Aliases share nodes, so a "billion
laughs" file of a few hundred bytes loads as a small graph, but the first caller that walks
it (a `str()`, a schema check, a deep copy) expands 10^9 values and dies of MemoryError; an
alias inside the node it names makes a cycle that recursive code never leaves; and a plain
integer of 100,000 digits is an int that Python refuses to print (ValueError past 4,300
digits) or, in hex, builds without any limit. `BoundedLoader` refuses all three as YAML
errors with the line where they occur, before anything is constructed: the composed node
graph is measured once (linear in its nodes, shared ones counted as often as they are
used), and an integer longer than MAX_INT_CHARS is not converted. Text over MAX_CHARS is
refused before it is parsed (callers read files with lower limits of their own).

Subclasses keep these limits (the front matter, policy and table-of-contents loaders);
`load_yaml` is the plain safe load with them.
"""

from __future__ import annotations

from typing import Any

import yaml

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_NODES = 100_000  # values after alias expansion; an 8-level alias bomb has 10^8
MAX_INT_CHARS = 64  # far past any count, port or version a configuration writes
MAX_CHARS = 64 * 1024 * 1024  # a backstop: every file reader has a lower limit of its own


class YamlLimitError(yaml.MarkedYAMLError):
    """YAML refused for its size, not its syntax (aliases, a huge integer, a huge text)."""


def _refusal(problem: str, node: yaml.Node | None) -> YamlLimitError:
    return YamlLimitError(problem=problem, problem_mark=node.start_mark if node else None)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def check_expansion(root: yaml.Node, limit: int = MAX_NODES) -> None:
    """Raise YamlLimitError when the node graph under `root`, every alias expanded, holds
    more than `limit` nodes, or when an alias sits inside the node it names (a cycle).
    Each distinct node is visited once, so the cost is linear in the text."""
    sizes: dict[int, int] = {}  # id(node) -> nodes under it, expanded (itself included)
    open_nodes: set[int] = set()  # collections entered and not yet summed: the current path
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, summing = stack.pop()
        key = id(node)
        if summing:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > limit:
                raise _refusal(
                    f"expands to more than {limit} values through YAML aliases (`*name`); "
                    "write the values out or use fewer aliases",
                    node,
                )
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise _refusal("a YAML alias (`*name`) inside the node it names: a loop", node)
        children = _children(node)
        if not children:
            sizes[key] = 1
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in open_nodes:
                raise _refusal("a YAML alias (`*name`) inside the node it names: a loop", child)
            if id(child) not in sizes:
                stack.append((child, False))


def _bounded_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    if isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_INT_CHARS:
        raise _refusal(
            f"an integer of {len(node.value)} characters; at most {MAX_INT_CHARS} are read "
            "(quote it to make it text)",
            node,
        )
    return int(yaml.constructor.SafeConstructor.construct_yaml_int(loader, node))  # type: ignore[arg-type]


class BoundedLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The safe loader (C where present) with the limits of the module docstring."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.text_length = len(stream)
        self.may_alias = "*" in stream

    def get_single_node(self) -> Any:
        if self.text_length > MAX_CHARS:  # here, so every caller's YAML error handling sees it
            raise YamlLimitError(problem=f"more than {MAX_CHARS} characters of YAML")
        node = super().get_single_node()
        if node is not None and self.may_alias:  # without a `*` there is no alias to expand
            check_expansion(node)
        return node

    def construct_document(self, node: yaml.Node) -> Any:
        # Python may refuse what PyYAML resolved (nesting past the recursion limit): a YAML
        # error like any other (one frame per document, not per node: this is a hot path).
        try:
            return super().construct_document(node)
        except (ValueError, OverflowError, RecursionError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read a value ({exc})", node.start_mark
            ) from exc


def _bounded_timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """A date as PyYAML builds it; an impossible one (`2019-02-30`) a YAML error at its line."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)  # type: ignore[arg-type]
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot read this date ({exc})", node.start_mark
        ) from exc


BoundedLoader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
BoundedLoader.add_constructor("tag:yaml.org,2002:timestamp", _bounded_timestamp)


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)` within the limits; YAMLError (YamlLimitError for a limit)."""
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError) -> tuple[int, str]:
    """The 1-based line (0: unknown) and the problem of a YAML error, in a few words."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return (mark.line + 1 if mark else 0), str(exc.problem or exc.context or "invalid YAML")
    return 0, str(exc)
