"""Keep the README and the docs honest (#42): the README stays short, with the install
command near its top and no pin of a tag that does not exist; every registered command is in
the commands table of docs/checking.md and every Make target in CONTRIBUTING.md's table,
and those tables name only things that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kbkit.commands.registry import COMMANDS, Command, find_command

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
COMMANDS_PAGE = PROJECT / "docs" / "checking.md"
TARGETS_PAGE = PROJECT / "CONTRIBUTING.md"
MAKEFILE = PROJECT / "Makefile"

# `target: prerequisites ## help text`, as `make help` lists them.
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:[^=\n]*##\s*\S", re.M)
_COMMAND_SPAN = re.compile(r"`kb ([^`]+)`")
_TABLE_COMMAND = re.compile(r"^\|\s*`kb ([^`]+)`", re.M)
_TABLE_TARGET = re.compile(r"^\|\s*`make ([^`]+)`", re.M)


def readme() -> str:
    return README.read_text("utf-8")


def commands_page() -> str:
    return COMMANDS_PAGE.read_text("utf-8")


def targets_page() -> str:
    return TARGETS_PAGE.read_text("utf-8")


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
def test_every_registered_command_is_in_the_commands_table(name: str) -> None:
    assert name in documented_commands(commands_page()), (
        f"docs/checking.md does not document `kb {name}`; add a row to its command table"
    )


@pytest.mark.parametrize("target", make_targets())
def test_every_make_target_is_in_the_contributing_guide(target: str) -> None:
    assert f"`make {target}`" in targets_page(), (
        f"CONTRIBUTING.md does not document `make {target}`; add a row to its target table"
    )


def test_command_table_rows_name_registered_commands() -> None:
    rows = _TABLE_COMMAND.findall(commands_page())
    assert rows, "docs/checking.md has no command table rows (| `kb ...` | ... |)"
    stale = [row for row in rows if find_command(row.split()) is None]
    assert stale == [], f"docs/checking.md documents commands that are not registered: {stale}"


def test_target_table_rows_name_real_targets() -> None:
    rows = _TABLE_TARGET.findall(targets_page())
    assert rows, "CONTRIBUTING.md has no Make target table rows (| `make ...` | ... |)"
    stale = sorted(set(rows) - set(make_targets()))
    assert stale == [], f"CONTRIBUTING.md documents Make targets that do not exist: {stale}"


def test_a_longer_name_does_not_document_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("check", "check-wiki-lint", "lessons", "lessons show")
    registry = {name: Command(name, "Check the tree", "", f"kb {name}") for name in names}
    monkeypatch.setattr("kbkit.commands.registry.COMMANDS", registry)
    text = "| `kb check-wiki-lint` | lint |\n| `kb lessons show TASK.json` | preview |"
    assert documented_commands(text) == {"check-wiki-lint", "lessons show"}


def test_the_readme_is_short_and_starts_with_the_install() -> None:
    lines = readme().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/"
    install = next(n for n, line in enumerate(lines, 1) if line.startswith("python3 -m venv"))
    assert install <= 60, f"the install command is on line {install} of README.md"
    assert "## Layout" not in readme() and "tools/kbkit/" not in readme()  # no module list


def test_the_readme_shows_a_first_check_in_three_commands_or_fewer() -> None:
    text = readme()
    section = text[text.index("## A first green check") :].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    commands = [line for line in block[1].splitlines() if line.strip()]
    assert 1 <= len(commands) <= 3 and commands[-1] == "kb check"


def test_nothing_is_installed_by_the_unrelated_pypi_name() -> None:
    for path in (README, *sorted((PROJECT / "docs").rglob("*.md"))):
        text = path.read_text("utf-8")
        assert not re.search(r"pip install kbkit\b(?!-)", text.replace("`pip install kbkit`", ""))


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md", "NOTES.md"])
def test_the_top_level_pages_link_only_files_that_exist(name: str) -> None:
    text = (PROJECT / name).read_text("utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert targets
    missing = [t for t in targets if "://" not in t and not (PROJECT / t).exists()]
    assert missing == [], f"{name} links files that do not exist: {missing}"
