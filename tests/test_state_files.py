"""kbkit's own state files, damaged into other shapes: read as absent (caches) or one clear
error naming the file (the cursor, the mailbox's refusals), never a traceback.

The crash journal has its own cases in tests/curator/test_journal.py.
"""

from __future__ import annotations

import marshal
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.tree.cache import CACHE_DIR, read_block
from tests.conftest import PROJECT

_LENGTH = struct.Struct("<Q")


def _blocks(path: Path) -> list[object]:
    data = memoryview(path.read_bytes())
    pos, found = 0, []
    while pos < len(data):
        pos, value = read_block(data, pos)
        found.append(value)
    return found


def _write_blocks(path: Path, values: list[Any]) -> None:
    blobs = [marshal.dumps(v) for v in values]
    path.write_bytes(b"".join(_LENGTH.pack(len(b)) + b for b in blobs))


def _tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(PROJECT / "knowledge", repo / "knowledge")
    (repo / ".git").mkdir()
    return repo


def _check(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["check", "--repo", str(repo), "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out


# Each damage keeps the file's header (so the file is not simply "another version") and
# replaces what follows with values of another shape.
PAGE_DAMAGE = {
    "payloads of another shape": lambda e: (e[0], e[1], e[2], ("not", "an", "entry")),
    "a payload that is a string": lambda e: (e[0], e[1], e[2], "entry"),
    "facts that are a list": lambda e: (e[0], e[1], e[2], (*e[3][:3], ["x"], e[3][4])),
    "entries of three fields": lambda e: (e[0], e[1], e[2]),
}


@pytest.mark.slow
@pytest.mark.parametrize("damage", list(PAGE_DAMAGE.values()), ids=list(PAGE_DAMAGE))
def test_a_damaged_parse_cache_reads_as_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: object
) -> None:
    repo = _tree(tmp_path)
    expected = _check(repo, capsys, "--no-cache")
    _check(repo, capsys)  # writes the cache
    cache = repo / CACHE_DIR / "pages.marshal"
    header, *chunks = _blocks(cache)
    _write_blocks(cache, [header, *[[damage(e) for e in chunk] for chunk in chunks]])  # type: ignore[operator, attr-defined]
    for snapshot in (repo / CACHE_DIR).glob("result-*.marshal"):
        snapshot.unlink()  # the page cache itself is read
    assert _check(repo, capsys) == expected
    assert _check(repo, capsys) == expected  # and the rewritten cache is sound


SNAPSHOT_DAMAGE = {  # a snapshot is four blocks: the header, then its three arrays
    "arrays missing": lambda h, arrays: [h, ("keys",)],
    "arrays of another shape": lambda h, arrays: [h, ("keys",), *arrays[1:]],
    "arrays that are a number": lambda h, arrays: [h, 5, 5, 5],
    "a header without its walk": lambda h, arrays: [{"namespace": h["namespace"]}, *arrays],
    "a header list": lambda h, arrays: [[h["namespace"]], *arrays],
}


@pytest.mark.slow
@pytest.mark.parametrize("damage", list(SNAPSHOT_DAMAGE.values()), ids=list(SNAPSHOT_DAMAGE))
def test_a_damaged_result_snapshot_reads_as_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: object
) -> None:
    repo = _tree(tmp_path)
    expected = _check(repo, capsys, "--no-cache")
    _check(repo, capsys)
    (snapshot,) = (repo / CACHE_DIR).glob("result-*.marshal")
    header, *arrays = _blocks(snapshot)
    assert len(arrays) == 3, "the snapshot's shape changed: update the damage cases"
    _write_blocks(snapshot, damage(header, arrays))  # type: ignore[operator]
    assert _check(repo, capsys) == expected


CURSORS = {
    "a list": "[]",
    "no repositories": '{"version": 1}',
    "repositories as a list": '{"version": 1, "merged_prs": ["acme/app"]}',
    "a number for a time": '{"version": 1, "merged_prs": {"acme/app": 5}}',
    "not JSON": "{",
    "deep JSON": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("content", list(CURSORS.values()), ids=list(CURSORS))
def test_a_damaged_cursor_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    intake = tmp_path / "intake"
    intake.mkdir()
    (intake / "cursor.json").write_text(content)
    code = main(["intake", "status", "--repo", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 1 and err.startswith(f"kb: error: {intake / 'cursor.json'}: "), err
    assert "Traceback" not in err and err.count("\n") == 1


REFUSALS = {
    "a list": "[]",
    "refusals as a list": '{"version": 1, "refused": ["1"]}',
    "not JSON": "{",
}


@pytest.mark.parametrize("content", list(REFUSALS.values()), ids=list(REFUSALS))
def test_damaged_mailbox_refusals_are_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    intake = tmp_path / "intake"
    intake.mkdir()
    (intake / "mailbox-refused.json").write_text(content)
    comments = tmp_path / "comments.json"
    comments.write_text('[{"id": 1, "body": "<!-- kbkit:bugfix-record:v1 -->", '
                        '"author_association": "NONE", "user": {"login": "x"}}]')  # fmt: skip
    code = main(
        [
            "intake",
            "mailbox",
            "--repo",
            str(tmp_path),
            "--slug",
            "acme/app",
            "--from",
            str(comments),
        ]
    )
    _, err = capsys.readouterr()
    assert code == 1 and f"{intake / 'mailbox-refused.json'}: " in err, err
    assert "Traceback" not in err


def _task(tmp_path: Path) -> Path:
    import json

    task = {
        "id": "T1", "status": "done", "company": "acme", "category": "web",
        "findings": [{"id": "F1", "status": "confirmed", "class": "xss", "summary": "echoed q"}],
        "retests": [], "metrics": {"tokens": 1000, "tool_calls": 10},
    }  # fmt: skip
    path = tmp_path / "task.json"
    path.write_text(json.dumps(task))
    return path


FOLD_DAMAGE = {
    "marks of another shape": lambda p: (p[0], {"lessons": "x"}, *p[2:]),
    "a list for the lessons": lambda p: (p[0], p[1], [], *p[3:]),
    "marks with strings for offsets": lambda p: (
        p[0],
        {n: (m[0], m[1], m[2], "far", m[4], m[5]) for n, m in p[1].items()},
        *p[2:],
    ),  # fmt: skip
}


@pytest.mark.parametrize("damage", list(FOLD_DAMAGE.values()), ids=list(FOLD_DAMAGE))
def test_a_damaged_lessons_cache_reads_as_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: object
) -> None:
    task = _task(tmp_path)
    assert main(["lessons", "extract", "--repo", str(tmp_path), str(task)]) == 0
    show = ["lessons", "show", "--repo", str(tmp_path), str(task), "--format", "json"]
    assert main(show) == 0
    capsys.readouterr()
    assert main(show) == 0
    expected = capsys.readouterr().out
    index = tmp_path / "intake/lessons/.index"
    state = index / "state.marshal"
    state.write_bytes(marshal.dumps(damage(marshal.loads(state.read_bytes())), 4))  # type: ignore[operator]
    view = index / "view.bin"
    view.write_bytes(view.read_bytes()[:40] + b"\0" * 64)  # the header's length, then nothing
    assert main(show) == 0
    out, err = capsys.readouterr()
    assert out == expected and "Traceback" not in err
