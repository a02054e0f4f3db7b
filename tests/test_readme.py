"""Keep the README honest: every registered command and every Make target is documented,
and the README's command and target tables name only things that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kbkit.commands.registry import COMMANDS, Command, find_command

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
MAKEFILE = PROJECT / "Makefile"

# `target: prerequisites ## help text`, as `make help` lists them.
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:[^=\n]*##\s*\S", re.M)
_COMMAND_SPAN = re.compile(r"`kb ([^`]+)`")
_TABLE_COMMAND = re.compile(r"^\|\s*`kb ([^`]+)`", re.M)
_TABLE_TARGET = re.compile(r"^\|\s*`make ([^`]+)`", re.M)


def readme() -> str:
    return README.read_text("utf-8")


def make_targets() -> list[str]:
    """The documented targets of the Makefile: every `target: ... ## help` line."""
    return _MAKE_TARGET.findall(MAKEFILE.read_text("utf-8"))


def documented_commands(text: str) -> set[str]:
    """Commands named by a code span `kb NAME` or `kb NAME ARGS...`.

    The span resolves like the command line does (the longest registered name wins), so
    `kb check-wiki-lint` documents neither `check` nor anything but itself.
    """
    found = set()
    for span in _COMMAND_SPAN.findall(text):
        match = find_command(span.split())
        if match is not None:
            found.add(match[0])
    return found


def test_the_makefile_parser_sees_the_known_targets() -> None:
    targets = make_targets()
    assert {"help", "setup", "test", "check", "demo"} <= set(targets)
    assert len(targets) == len(set(targets))


def test_the_registry_is_read_dynamically() -> None:
    assert "check" in COMMANDS and "check-wiki-lint" in COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_registered_command_is_in_the_readme(name: str) -> None:
    assert name in documented_commands(readme()), (
        f"README.md does not document `kb {name}`; add a row to its command table"
    )


@pytest.mark.parametrize("target", make_targets())
def test_every_make_target_is_in_the_readme(target: str) -> None:
    assert f"`make {target}`" in readme(), (
        f"README.md does not document `make {target}`; add a row to its Make target table"
    )


def test_command_table_rows_name_registered_commands() -> None:
    rows = _TABLE_COMMAND.findall(readme())
    assert rows, "README.md has no command table rows (| `kb ...` | ... |)"
    stale = [row for row in rows if find_command(row.split()) is None]
    assert stale == [], f"README.md documents commands that are not registered: {stale}"


def test_target_table_rows_name_real_targets() -> None:
    rows = _TABLE_TARGET.findall(readme())
    assert rows, "README.md has no Make target table rows (| `make ...` | ... |)"
    stale = sorted(set(rows) - set(make_targets()))
    assert stale == [], f"README.md documents Make targets that do not exist: {stale}"


def test_a_longer_name_does_not_document_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("check", "check-wiki-lint", "lessons", "lessons show")
    registry = {name: Command(name, "Check the tree", "", f"kb {name}") for name in names}
    monkeypatch.setattr("kbkit.commands.registry.COMMANDS", registry)
    text = "| `kb check-wiki-lint` | lint |\n| `kb lessons show TASK.json` | preview |"
    assert documented_commands(text) == {"check-wiki-lint", "lessons show"}
