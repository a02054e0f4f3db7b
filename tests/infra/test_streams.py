"""Output under any locale and encoding, and messages without raw control characters: real
`kb` processes with the environments users have."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.streams import ShownMessages, safe_streams
from tests.conftest import PROJECT

PAGE = "日本語のページ.md"


def _tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(PROJECT / "knowledge", repo / "knowledge")
    (repo / ".git").mkdir()
    page = repo / "knowledge/general" / PAGE
    page.write_text('---\ntitle: "ページ"\n---\n# ページ 🙂\n', "utf-8")
    return repo


def _kb(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    full = dict(os.environ, PYTHONPATH=str(PROJECT / "tools"), **env)
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], env=full, capture_output=True, timeout=120
    )


def _locale(name: str) -> str | None:
    try:
        listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    found = [n for n in listed.stdout.split() if n.lower().replace("-", "") == name]
    return found[0] if found else None


ENVIRONMENTS = {
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "PYTHONIOENCODING=latin-1": {"PYTHONIOENCODING": "iso8859-1"},
    "LC_ALL=C without UTF-8 mode": {
        "LC_ALL": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
    },  # fmt: skip
}


@pytest.mark.slow
@pytest.mark.parametrize("env", list(ENVIRONMENTS.values()), ids=list(ENVIRONMENTS))
@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_kb_check_prints_a_japanese_page_name_in_any_encoding(
    tmp_path: Path, env: dict[str, str], fmt: str
) -> None:
    repo = _tree(tmp_path)
    done = _kb(["check", "--repo", str(repo), "--format", fmt, "--no-cache"], env)
    assert done.returncode == 1, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    if fmt == "json":
        paths = {f["path"] for f in json.loads(done.stdout)["findings"]}
        if "LC_ALL" not in env:  # (in the C locale the file name itself reads as bytes)
            assert f"knowledge/general/{PAGE}" in paths
    elif "LC_ALL" not in env:
        assert b"\\u65e5\\u672c\\u8a9e" in done.stdout  # 日本語, readable as escapes


def test_a_latin_1_locale_if_this_machine_has_one(tmp_path: Path) -> None:
    name = _locale("en_us.iso88591") or _locale("de_de.iso88591")
    if name is None:
        pytest.skip("no ISO-8859-1 locale installed (locale -a)")
    done = _kb(["check", "--repo", str(_tree(tmp_path))], {"LC_ALL": name, "PYTHONUTF8": "0"})
    assert done.returncode == 1 and b"Traceback" not in done.stderr


@pytest.mark.slow
def test_configuration_escapes_never_reach_the_terminal(tmp_path: Path) -> None:
    """The issue's case: `knowledge_repo:` in intake/config.yaml holds a screen clear and a
    window title; distill's progress line echoes it."""
    project = tmp_path / "project"
    (project / "intake").mkdir(parents=True)
    (project / "knowledge").mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "intake/config.yaml").write_text(
        'repo: acme/app\nknowledge_repo: "\\e[2J\\e]0;owned\\a"\n'
    )
    replay = project / "replay.jsonl"
    replay.write_text("")
    done = _kb(["distill", "--repo", str(project), "--dry-run", "--model", f"replay:{replay}"], {})
    assert b"work clone" in done.stderr, done.stderr
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr
    assert b"<U+001B>[2J<U+001B>]0;owned<U+0007>" in done.stderr


@pytest.mark.slow
def test_an_error_echoing_a_file_name_shows_its_escapes(tmp_path: Path) -> None:
    done = _kb(
        ["curate", "prompt", "--repo", str(tmp_path), "--batch", "x\x1b]0;owned\x07.json"], {}
    )
    assert done.returncode != 0 and b"<U+001B>]0;owned<U+0007>" in done.stderr
    assert b"\x1b" not in done.stderr


def test_safe_streams_restore_the_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with safe_streams():
        assert isinstance(sys.stderr, ShownMessages)
        print("ページ\x1b[2J")
        print("ページ\x1b[2J", file=sys.stderr)
    assert sys.stderr is err and err.errors == "strict" and out.errors == "strict"
    out.flush()
    err.flush()
    assert out.buffer.getvalue() == b"\\u30da\\u30fc\\u30b8\x1b[2J\n"  # type: ignore[attr-defined]
    assert err.buffer.getvalue() == b"\\u30da\\u30fc\\u30b8<U+001B>[2J\n"  # type: ignore[attr-defined]
