"""`kb help CMD`, one example in every command's help, the nearest name for a typo."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.commands.registry import COMMANDS, find_command, grouped

PROJECT = Path(__file__).resolve().parents[1]


def kb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbkit", *args], capture_output=True, text=True)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_an_example_that_names_it(name: str) -> None:
    assert COMMANDS[name].example, f"add an example for `kb {name}` to its registry row"
    line = COMMANDS[name].example.split("| ")[-1].split()
    assert line[0] == "kb"
    assert find_command(line[1:]) == (name, line[1 + len(name.split()) :])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_and_dash_help_print_options_and_the_example(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:  # as argparse's --help does
        main(["help", *name.split()])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: kb {name}")
    assert out.endswith(f"\nexample:\n  {COMMANDS[name].example}\n")
    with pytest.raises(SystemExit):
        main([*name.split(), "--help"])
    assert capsys.readouterr().out == out


@pytest.mark.slow
def test_an_unknown_command_suggests_the_nearest() -> None:
    done = kb("chek")
    assert done.returncode == 2
    assert "unknown command 'chek'" in done.stderr and "Did you mean `kb check`?" in done.stderr
    done = kb("intake", "stats")
    assert done.returncode == 2 and "Did you mean `kb intake status`?" in done.stderr
    done = kb("lesons")
    assert (
        done.returncode == 2
        and "Did you mean one of: lessons adopt, lessons audit, lessons bundle," in done.stderr
    )
    assert "Did you mean" not in kb("zzzzzz").stderr
    assert kb("help", "zzzzzz").returncode == 2


def test_help_alone_lists_the_commands() -> None:
    done = kb("help")
    assert done.returncode == 0 and "kb help COMMAND" in done.stdout


@pytest.mark.slow
def test_help_through_a_real_process_exits_0_with_the_example() -> None:
    done = kb("help", "intake", "check")
    assert done.returncode == 0 and done.stdout.endswith(COMMANDS["intake check"].example + "\n")


def test_dash_help_lists_every_command_under_its_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for heading in ("Check the tree:", "Intake:", "Curator:", "Lessons:", "Editor and shell:"):
        assert f"\n{heading}\n" in out
    for group, rows in grouped():
        block = out.split(f"\n{group}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [line.split("  ")[1] for line in block] == [row.name for row in rows]
        assert all(line.endswith(row.summary) for line, row in zip(block, rows, strict=True))
    assert "\ncommands:\n" not in out


@pytest.mark.parametrize(
    "name", ["commands.md", "environment.md", "policy-keys.md", "exit-codes.md", "file-formats.md"]
)
def test_the_reference_pages_are_what_the_generator_writes(name: str) -> None:
    """docs/reference/ is generated from the command registry, the table of environment
    variables, the policy schema, the exit codes and the shipped JSON Schemas (regenerate:
    make generate, or python -m kbkit.help --write-reference)."""
    from kbkit import help as generator

    writers: dict[str, Callable[[], str]] = dict(zip(generator.REFERENCE_PAGES, (
        generator.commands_page, generator.environment_page, generator.policy_page,
        generator.exit_codes_page, generator.formats_page,
    ), strict=True))  # fmt: skip
    page = writers[name]()
    committed = (PROJECT / "docs" / "reference" / name).read_text(encoding="utf-8")
    assert committed == page, f"docs/reference/{name} is stale: run `make generate`"


def test_the_reference_lists_every_command_and_variable() -> None:
    from kbkit.help import commands_page, environment_page
    from kbkit.infra.settings import VARIABLES

    commands = commands_page()
    for group, rows in grouped():
        assert f"\n## {group}\n" in commands
        for row in rows:
            assert f"\n### kb {row.name}\n\n{row.summary}.\n\n```\n{row.example}\n```\n" in commands
    assert "| `--staged` | check the commit's tree" in commands  # options, from the parser
    environment = environment_page()
    for variable in VARIABLES.values():
        assert f"| `{variable.name}` |" in environment
        for old in variable.old:
            assert f"| `{old}` | `{variable.name}` |" in environment


def test_write_reference_writes_only_what_changed(tmp_path: Path) -> None:
    from kbkit.help import main as help_main

    folder = tmp_path / "reference"
    assert help_main(["--write-reference", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "commands.md", "environment.md", "exit-codes.md", "file-formats.md", "policy-keys.md",
    ]  # fmt: skip
    (folder / "environment.md").write_text("stale\n", encoding="utf-8")
    from kbkit.help import write_reference

    assert write_reference(folder) == [folder / "environment.md"]
    assert write_reference(folder) == []


def test_the_policy_keys_page_lists_every_key_of_the_schema() -> None:
    import json

    from kbkit.help import policy_page

    page = policy_page()
    schema = json.loads((PROJECT / "tools/kbkit/policy/policy.schema.json").read_text("utf-8"))
    for key in schema["properties"]:
        assert f"| `{key}` |" in page
    assert '| `knowledge_root` | string | `"knowledge"` |' in page  # the default profile's
    assert "| `links.anchors` | boolean |" in page  # nested keys, dotted


def test_the_exit_codes_page_holds_the_codes_kb_exits_with() -> None:
    from kbkit import __main__ as entry
    from kbkit.help import exit_codes_page
    from kbkit.infra.errors import EXIT_CODES, EnvironmentFailure, KbkitError, UsageError

    codes = [code for code, _ in EXIT_CODES]
    used = {entry.EXIT_OK, entry.EXIT_FINDINGS, entry.EXIT_USAGE, entry.EXIT_UNEXPECTED}
    used |= {entry.EXIT_INTERRUPTED, entry.EXIT_ENVIRONMENT}
    used |= {KbkitError.exit_code, UsageError.exit_code, EnvironmentFailure.exit_code}
    assert sorted(codes) == sorted(used) == codes
    page = exit_codes_page()
    assert all(f"\n| {code} | " in page for code in codes)


def test_the_file_formats_page_lists_every_field_of_the_ledgers() -> None:
    import json

    from kbkit.help import formats_page

    page = formats_page()
    for name in ("events", "status"):
        path = PROJECT / f"tools/kbkit/intake/schemas/{name}.schema.json"
        assert f"## intake/{name}.jsonl" in page
        for field in json.loads(path.read_text("utf-8"))["properties"]:
            assert f"| `{field}` |" in page
