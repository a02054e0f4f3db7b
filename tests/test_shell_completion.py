"""Shell completion (argcomplete) in real shells: commands, options, choices, rule ids, paths."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
BASH_HARNESS = r"""
source <(kb completion bash)
comp() {
  COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
  read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  _python_argcomplete kb "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '; echo
}
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def _bash(cwd: Path, *lines: str) -> list[list[str]]:
    script = BASH_HARNESS + "\n".join(f"comp {line!r}" for line in lines) + "\n"
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, env=_env()
    )
    assert done.returncode == 0, done.stderr
    return [row.split() for row in done.stdout.splitlines()]


@pytest.mark.slow
def test_bash_completes_commands_options_choices_rule_ids_and_paths(tmp_path: Path) -> None:
    (tmp_path / "knowledge/general").mkdir(parents=True)
    assert _bash(
        tmp_path,
        "kb ch",
        "kb check --fa",
        "kb check --format ",
        "kb rule tree/link-",
        "kb lessons re",
        "kb check knowledge/gen",
        "kb completion ",
    ) == [
        ["check", "check-knowledge-tree", "check-wiki-lint"],
        ["--fail-on"],
        ["github", "json", "markdown", "sarif", "text"],
        ["tree/link-absolute", "tree/link-anchor", "tree/link-broken"],
        ["replay", "report", "retire"],
        ["knowledge/general/"],
        ["bash", "fish", "zsh"],
    ]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_through_its_own_complete_command(tmp_path: Path) -> None:
    script = 'kb completion fish | source; complete -C "kb rule tree/secret-p"; complete -C "kb fi"'
    done = subprocess.run(
        ["fish", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=_env()
    )
    rows = [line.split("\t")[0] for line in done.stdout.splitlines()]
    assert rows == ["tree/secret-private-key", "fix"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script_parses_and_the_protocol_answers_with_descriptions(tmp_path: Path) -> None:
    script = subprocess.run(
        [sys.executable, "-m", "kbkit", "completion", "zsh"], capture_output=True, text=True
    ).stdout
    assert script.startswith("#compdef kb kbkit")
    (tmp_path / "kb.zsh").write_text(script)
    assert subprocess.run(["zsh", "-n", str(tmp_path / "kb.zsh")]).returncode == 0
    # what the zsh function runs: kb with argcomplete's variables (the answer to a file here)
    line = "kb check --fail-on "
    answer = tmp_path / "answer"
    env = {
        **_env(),
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_SHELL": "zsh",
        "_ARGCOMPLETE_SUPPRESS_SPACE": "1",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
    }
    done = subprocess.run([BIN / "kb"], env=env, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr
    choices = [item.split(":", 1) for item in answer.read_text().split("\x0b")]
    assert [name for name, _ in choices] == ["error", "warning"]
    assert choices[0][1].startswith("the lowest severity that fails the run")


@pytest.mark.slow
def test_completion_runs_no_command(tmp_path: Path) -> None:
    """Completing `kb init ` must not set anything up (the parser is taken, main never runs)."""
    _bash(tmp_path, "kb init --")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git"]
