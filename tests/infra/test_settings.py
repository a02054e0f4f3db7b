"""The table of environment variables: every read goes through it, kbkit's own names are
`KBKIT_*`, and an old name still works with a one-line note on stderr, once per process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra import settings
from kbkit.infra.settings import VARIABLES, lookup, value

PACKAGE = Path(__file__).resolve().parents[2] / "tools" / "kbkit"
# the process environment, by any spelling; the only uses allowed outside the table are
# handing it to a child process whole and handing it to a reader that goes through the table
_ENVIRON = re.compile(r"os\.environ\b|getenv\b|environ\.get\(")
_ALLOWED = re.compile(r"dict\(os\.environ,|settings_from_env\(os\.environ,")
# demo.py saves and restores GIT_AUTHOR_DATE / GIT_COMMITTER_DATE around its git children
NOT_SETTINGS = {"infra/settings.py", "demo.py"}


def _reads(text: str) -> int:
    return len(_ENVIRON.findall(text)) - len(_ALLOWED.findall(text))


def test_every_read_of_the_environment_goes_through_the_table() -> None:
    reads = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if _reads(path.read_text(encoding="utf-8"))
    }
    assert sorted(reads - NOT_SETTINGS) == []


def test_the_scan_sees_every_spelling_of_a_read() -> None:
    for read in ("os.environ.get('X')", "os.getenv('X')", "os.environ['X']", "'X' in os.environ",
                 "env = os.environ if env is None else env"):  # fmt: skip
        assert _reads(read) == 1, read
    assert _reads("env = dict(os.environ, LC_ALL='C')") == 0


def test_kbkit_names_its_own_variables_kbkit_and_each_name_once() -> None:
    names = [name for v in VARIABLES.values() for name in (v.name, *v.old)]
    assert len(names) == len(set(names))
    for variable in VARIABLES.values():
        assert variable.meaning and variable.default
        if variable.owner == settings.KBKIT:
            assert variable.name.startswith("KBKIT_"), variable.name
        else:
            assert not variable.name.startswith("KBKIT_") and not variable.old


def test_the_renamed_variables() -> None:
    old = {name: v.name for v in VARIABLES.values() for name in v.old}
    assert old == {
        "INTAKE_ROOT": "KBKIT_INTAKE_ROOT",
        "KNOWLEDGE_INTAKE_DIR": "KBKIT_DROP_DIR",
        "ALLOW_POST": "KBKIT_ALLOW_POST",
        "KNOWLEDGE_REPO": "KBKIT_KNOWLEDGE_REPO",
        "KB_DISTILL_MODEL": "KBKIT_DISTILL_MODEL",
        "POST_MODE": "KBKIT_POST_MODE",
        "KNOWLEDGE_PR_ENABLED": "KBKIT_KNOWLEDGE_PR_ENABLED",
        "KNOWLEDGE_FORK_SLUG": "KBKIT_KNOWLEDGE_FORK_SLUG",
        "KNOWLEDGE_FORK_URL": "KBKIT_KNOWLEDGE_FORK_URL",
        "KNOWLEDGE_REPO_SLUG": "KBKIT_KNOWLEDGE_REPO_SLUG",
        "KB_LESSONS": "KBKIT_LESSONS",
        "ARTEX_RSI_LESSONS": "KBKIT_LESSONS",
        "KB_LESSONS_SCOPE": "KBKIT_LESSONS_SCOPE",
    }


def test_the_new_name_is_read_silently(capsys: pytest.CaptureFixture[str]) -> None:
    env = {"KBKIT_POST_MODE": "review", "POST_MODE": "shadow"}
    assert lookup("KBKIT_POST_MODE", env) == ("KBKIT_POST_MODE", "review")
    assert value("KBKIT_STATE_ROOT", {}) is None
    assert value("KBKIT_POST_MODE", {"KBKIT_POST_MODE": "  "}) is None  # blanks: unset
    assert capsys.readouterr().err == ""


def test_an_old_name_still_works_with_one_note_per_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"POST_MODE": "review", "KB_LESSONS": "inject"}
    assert lookup("KBKIT_POST_MODE", env) == ("POST_MODE", "review")
    assert value("KBKIT_POST_MODE", env) == "review"
    assert value("KBKIT_LESSONS", env) == "inject"
    assert capsys.readouterr().err == (
        "kb: note: the environment variable POST_MODE is now named KBKIT_POST_MODE; set "
        "KBKIT_POST_MODE instead (POST_MODE is still read for now)\n"
        "kb: note: the environment variable KB_LESSONS is now named KBKIT_LESSONS; set "
        "KBKIT_LESSONS instead (KB_LESSONS is still read for now)\n"
    )


def test_an_older_name_comes_after_the_old_one() -> None:
    env = {"KB_LESSONS": "shadow", "ARTEX_RSI_LESSONS": "inject"}
    assert lookup("KBKIT_LESSONS", env) == ("KB_LESSONS", "shadow")
    assert lookup("KBKIT_LESSONS", {"ARTEX_RSI_LESSONS": "inject"}) == (
        "ARTEX_RSI_LESSONS",
        "inject",
    )


def test_an_undeclared_name_is_a_bug() -> None:
    with pytest.raises(KeyError):
        value("KBKIT_NOT_DECLARED", {})


def test_the_old_intake_root_moves_the_ledgers_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit.infra.paths import intake_root

    monkeypatch.setenv("INTAKE_ROOT", str(tmp_path / "old"))
    assert intake_root(tmp_path) == tmp_path / "old"
    monkeypatch.setenv("KBKIT_INTAKE_ROOT", str(tmp_path / "new"))
    assert intake_root(tmp_path) == tmp_path / "new"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "set KBKIT_INTAKE_ROOT instead" in err


@pytest.mark.slow
def test_a_real_kb_obeys_an_old_name_and_notes_it_once(tmp_path: Path) -> None:
    """Through a real `kb` process: KB_LESSONS_SCOPE is still read, and the note on stderr
    names the variable to set instead, once."""
    import os

    env = dict(os.environ, KB_LESSONS_SCOPE="open")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "lessons", "replay", "--repo", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "(scope open)" in done.stdout
    assert done.stderr == (
        "kb: note: the environment variable KB_LESSONS_SCOPE is now named KBKIT_LESSONS_SCOPE; "
        "set KBKIT_LESSONS_SCOPE instead (KB_LESSONS_SCOPE is still read for now)\n"
    )
