"""Dangerous operations in a page: named anywhere (T17) or as commands in code blocks (T18).

A rule's must-not bullet (`- Must not: ...`, labels from `rules.labels.must_not`) may name the
forbidden operation: its lines are exempt from both checks. Inline code spans are prose
(authors quote the command that caused an incident), so T18 looks only at fenced and indented
code blocks, the text readers copy and run.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from kbkit.checks.rules.tree import DANGER_CODE, DANGER_TEXT
from kbkit.checks.scopes import compiled
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.lines import LineCounter
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding, quote
from kbkit.rulebook.rule import Rule

# (policy name, literal prefilter, pattern, what it does); `danger.patterns` names the ones on
_DANGER_TEXT: tuple[tuple[str, str, re.Pattern[str], str], ...] = (
    (
        "ssh-no-host-key-checking",
        "StrictHostKeyChecking",
        re.compile(r"StrictHostKeyChecking[ \t]*(?:=|[ \t])[ \t]*[\"']?(?:no|No|NO)\b"),
        "disables SSH host key checking",
    ),
    (
        "git-safe-directory-any",
        "safe.directory",
        re.compile(r"safe\.directory[ \t]*=?[ \t]*[\"']?\*"),
        "trusts every git repository (safe.directory *)",
    ),
    (
        "docker-gpus-all",
        "--gpus",
        re.compile(r"--gpus(?:[ \t]*=[ \t]*|[ \t]+)[\"']?all\b"),
        "takes every GPU (--gpus all)",
    ),
)
TEXT_PATTERNS = tuple(name for name, _, _, _ in _DANGER_TEXT)
# `danger.commands` names the command checks that are on (T18)
COMMANDS = ("pkill", "killall", "rm-recursive-force", "find-delete", "find-exec-rm", "xargs-rm")
# A command name that ends a word (`format` holds no `rm`); checked per block, then per line.
_COMMAND_HINT = lazy(r"(?:rm|pkill|killall|find|xargs)(?![\w.-])")
_SEGMENT_SPLIT = lazy(r"\|\||&&|[|;&\n]")
_TOKEN_STRIP = "\"'`()[]{}$"
_CONTINUATION_END = lazy(r"^[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#)")


@functools.lru_cache(maxsize=8)
def _must_not_start(labels: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(label) for label in labels)
    return re.compile(
        r"[ \t]*[-*+][ \t]+(?:\*\*|__)?(?:" + alternatives + r")[ \t]*"
        r"(?:[:：][ \t]*(?:\*\*|__)?|(?:\*\*|__)[ \t]*[:：])"
    )


def must_not_lines(text: str, labels: tuple[str, ...]) -> frozenset[int]:
    """1-based lines that belong to a must-not bullet (its first line and continuations)."""
    if not labels or not any(label in text for label in labels):
        return frozenset()
    pattern = _must_not_start(labels)
    found: set[int] = set()
    inside = False
    for number, line in enumerate(text.split("\n"), start=1):
        if any(label in line for label in labels) and pattern.match(line):
            inside = True
        elif inside and (not line.strip() or _CONTINUATION_END.match(line)):
            inside = False
        if inside:
            found.add(number)
    return frozenset(found)


def _rm_is_forced_recursive(tokens: list[str]) -> bool:
    recursive = force = False
    for token in tokens:
        if token == "--":
            break
        if token in ("--recursive",):
            recursive = True
        elif token == "--force":
            force = True
        elif token.startswith("-") and not token.startswith("--"):
            recursive = recursive or "r" in token or "R" in token
            force = force or "f" in token
    return recursive and force


def dangerous_commands(line: str, enabled: frozenset[str] | None = None) -> list[str]:
    """What is dangerous in one line of shell code (empty when nothing is); `enabled`: the
    policy names of the command checks that are on (default: all of COMMANDS)."""
    if _COMMAND_HINT.search(line) is None:
        return []
    found: list[tuple[str, str]] = []
    for segment in _SEGMENT_SPLIT.split(line):
        tokens = [token.strip(_TOKEN_STRIP) for token in segment.split()]
        names = [token.rsplit("/", 1)[-1] for token in tokens]
        for index, name in enumerate(names):
            if name in ("pkill", "killall"):
                found.append((name, name))
            elif name == "rm" and _rm_is_forced_recursive(tokens[index + 1 :]):
                found.append(("rm-recursive-force", "rm with recursive and force flags"))
            elif name == "xargs" and "rm" in names[index + 1 :]:
                found.append(("xargs-rm", "xargs rm"))
            elif name == "find":
                rest = names[index + 1 :]
                if "-delete" in rest:
                    found.append(("find-delete", "find -delete"))
                for flag in ("-exec", "-execdir", "-ok", "-okdir"):
                    after = rest.index(flag) + 1 if flag in rest else len(rest)
                    if after < len(rest) and rest[after] == "rm":
                        found.append(("find-exec-rm", f"find {flag} rm"))
    return list(dict.fromkeys(what for key, what in found if enabled is None or key in enabled))


class _DangerConfig(NamedTuple):
    texts: tuple[tuple[str, str, re.Pattern[str], str], ...]  # the text patterns turned on
    words: tuple[str, ...]  # forbidden words
    firsts: frozenset[str]  # their first characters
    commands: frozenset[str]  # the command checks turned on


def _danger_config(policy: Policy) -> _DangerConfig:
    danger = policy.data["danger"]
    patterns = set(map(str, danger["patterns"]))
    words = tuple(str(word) for word in danger["words"] if word)
    return _DangerConfig(
        tuple(entry for entry in _DANGER_TEXT if entry[0] in patterns),
        words,
        frozenset(word[0] for word in words),
        frozenset(map(str, danger["commands"])),
    )


def danger_findings(path: str, page: Page, policy: Policy) -> list[Finding]:
    """T17 on the whole text and T18 on code-block lines, outside must-not bullets."""
    text = page.text
    hits: dict[tuple[Rule, int], tuple[str, int]] = {}  # (rule, line) -> (message, column)
    lines = LineCounter(text)
    config = compiled(policy, _danger_config)

    def column(offset: int) -> int:
        return offset - text.rfind("\n", 0, offset)  # 1-based: rfind is -1 on line one

    for _, literal, pattern, what in config.texts:
        if literal in text:
            for match in pattern.finditer(text):
                key = (DANGER_TEXT, lines.line_at(match.start()))
                hits.setdefault(key, (f"{quote(match.group(0))} {what}", column(match.start())))
    words = config.words
    # one search per distinct first character (fast) before searching whole words
    if words and not any(first in text for first in config.firsts):
        words = ()
    for word in words:
        if word in text:
            for match in re.finditer(re.escape(word), text):
                key = (DANGER_TEXT, lines.line_at(match.start()))
                message = f"{quote(word)} names a forbidden practice"
                hits.setdefault(key, (message, column(match.start())))
    enabled = config.commands
    for block in page.code_blocks if enabled else ():
        if _COMMAND_HINT.search(block.text) is None:
            continue
        for line, content in block.lines():
            commands = dangerous_commands(content, enabled)
            if commands:
                hits[(DANGER_CODE, line)] = (
                    f"dangerous command in code ({', '.join(commands)}): "
                    "scope it to what this run created",
                    0,  # a block's line may be indented in the file: no column
                )
    if not hits:
        return []
    labels = tuple(map(str, policy.data["rules"]["labels"]["must_not"]))
    exempt = must_not_lines(text, labels)  # only computed for pages with a hit
    return [
        rule.at(path, line, message, col)
        for (rule, line), (message, col) in hits.items()
        if line not in exempt
    ]
