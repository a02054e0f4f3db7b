"""`kb help CMD`, one example in every command's help, the nearest name for a typo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kbkit.__main__ import COMMANDS, find_command, main
from kbkit.help import EXAMPLES


def kb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbkit", *args], capture_output=True, text=True)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_an_example_that_names_it(name: str) -> None:
    assert name in EXAMPLES, f"add an example for `kb {name}` to kbkit/help.py"
    line = EXAMPLES[name].split("| ")[-1].split()
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
    assert out.endswith(f"\nexample:\n  {EXAMPLES[name]}\n")
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
    assert done.returncode == 0 and done.stdout.endswith(EXAMPLES["intake check"] + "\n")
