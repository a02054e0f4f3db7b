"""The command registry: one row per command module and one module per row, each row in a
known group with a summary and an example that runs the command it names."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from kbkit.commands.registry import COMMANDS, GROUPS, Command, find_command, grouped

COMMANDS_DIR = Path(__file__).resolve().parents[2] / "tools" / "kbkit" / "commands"
NOT_COMMANDS = {"__init__", "registry"}  # the package and this table


def test_every_command_module_has_a_row_and_every_row_a_module() -> None:
    modules = {path.stem for path in COMMANDS_DIR.glob("*.py")} - NOT_COMMANDS
    rows = {row.module.rpartition(".")[2] for row in COMMANDS.values()}
    assert sorted(modules - rows) == [], "a command module without a registry row"
    assert sorted(rows - modules) == [], "a registry row without its module"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_row_names_a_runnable_module(name: str) -> None:
    row = COMMANDS[name]
    assert row.name == name and row.group in GROUPS and row.summary
    assert callable(importlib.import_module(row.module).main)


def test_the_module_is_named_after_the_command() -> None:
    row = Command("intake record-prs", GROUPS[1], "s", "kb intake record-prs")
    assert row.module == "kbkit.commands.intake_record_prs"
    assert Command("check-wiki-lint", GROUPS[0], "s", "").module == "kbkit.commands.check_wiki_lint"


def test_every_group_has_commands_and_every_command_one_group() -> None:
    groups = grouped()
    assert [group for group, _ in groups] == list(GROUPS)
    assert all(rows for _, rows in groups)
    listed = [row.name for _, rows in groups for row in rows]
    assert sorted(listed) == sorted(COMMANDS) and len(listed) == len(set(listed))


def test_the_longest_name_wins() -> None:
    assert find_command(["intake", "check", "x.jsonl"]) == ("intake check", ["x.jsonl"])
    assert find_command(["check", "--staged"]) == ("check", ["--staged"])
    assert find_command(["intake"]) is None
