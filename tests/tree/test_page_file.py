"""Reading a page file: only regular files inside the root, bounded by size, decided by stat."""

from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Any

import pytest

from kbkit.checks.registry import analyze_page
from kbkit.policy.model import Policy, builtin_policy
from kbkit.tree.model import LoadOptions, load_tree
from kbkit.tree.page_file import PageRefused, inside, read_page_file
from kbkit.tree.walk import stat_key

SECRET = "root:x:0:0:SECRET-CONTENT-10.9.8.7"


def _root(tmp_path: Path) -> Path:
    top = tmp_path / "repo" / "knowledge"
    (top / "general").mkdir(parents=True)
    (top / "general" / "a.md").write_text("# A\n")
    return top


def test_a_regular_page_is_read_with_its_key(tmp_path: Path) -> None:
    top = _root(tmp_path)
    data, key = read_page_file(str(top), "general/a.md", 100)
    assert data == b"# A\n"
    assert key == stat_key(os.stat(top / "general/a.md"))


def test_a_symlink_inside_the_root_is_followed(tmp_path: Path) -> None:
    top = _root(tmp_path)
    (top / "general" / "b.md").symlink_to("a.md")
    (top / "c.md").symlink_to(top / "general" / "a.md")  # absolute, still inside
    assert read_page_file(str(top), "general/b.md", 100)[0] == b"# A\n"
    assert read_page_file(str(top), "c.md", 100)[0] == b"# A\n"


@pytest.mark.parametrize("target", ["outside.md", "/dev/zero"])
def test_a_symlink_out_of_the_root_is_refused_unread(tmp_path: Path, target: str) -> None:
    top = _root(tmp_path)
    outside = tmp_path / "repo" / "outside.md"
    outside.write_text(SECRET)
    (top / "general" / "x.md").symlink_to(outside if target == "outside.md" else target)
    with pytest.raises(PageRefused) as refused:
        read_page_file(str(top), "general/x.md", 10**9)
    assert "leaves the knowledge root" in refused.value.message
    assert "SECRET" not in refused.value.message


def test_a_chain_of_links_that_ends_outside_is_refused(tmp_path: Path) -> None:
    top = _root(tmp_path)
    (tmp_path / "secret.md").write_text(SECRET)
    (top / "general" / "hop.md").symlink_to(tmp_path / "secret.md")
    (top / "general" / "x.md").symlink_to("hop.md")
    with pytest.raises(PageRefused):
        read_page_file(str(top), "general/x.md", 100)


def test_a_fifo_is_refused_without_reading_it(tmp_path: Path) -> None:
    top = _root(tmp_path)
    os.mkfifo(top / "general" / "f.md")
    with pytest.raises(PageRefused) as refused:
        read_page_file(str(top), "general/f.md", 100)  # a blocking open would hang here
    assert refused.value.message.startswith("a FIFO, not a regular file")


def test_a_page_over_the_limit_is_refused_from_its_size(tmp_path: Path) -> None:
    top = _root(tmp_path)
    (top / "general" / "big.md").write_bytes(b"x" * 101)
    with pytest.raises(PageRefused) as refused:
        read_page_file(str(top), "general/big.md", 100)
    assert refused.value.size == 101
    assert "101 bytes, over the read limit of 100 bytes" in refused.value.message
    assert read_page_file(str(top), "general/big.md", 101)[0] == b"x" * 101


def test_inside_is_by_whole_folder_names(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge-2").mkdir()
    assert inside(str(tmp_path / "knowledge"), str(tmp_path / "knowledge" / "a.md"))
    assert not inside(str(tmp_path / "knowledge"), str(tmp_path / "knowledge-2" / "a.md"))


def _small_limit() -> Policy:
    policy = builtin_policy("default")
    data = dict(policy.data)
    data["limits"] = {**data["limits"], "read_bytes": 1000}
    return Policy(data, "test: read_bytes 1000")


def test_warm_loads_never_open_a_refused_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache keeps a refusal by its stat key: a warm run neither opens the big page nor
    verifies it by content, even while it is racy (just written)."""
    top = _root(tmp_path)
    (top / "general" / "big.md").write_bytes(b"# big\n" + b"10.9.8.7\n" * 500)
    os.mkfifo(top / "general" / "f.md")
    options = LoadOptions(analyze=analyze_page, use_cache=True)
    policy = _small_limit()
    cold = load_tree(top.parent, policy, options)
    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def spy_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    warm = load_tree(top.parent, policy, options)
    monkeypatch.undo()
    assert not [p for p in opened if p.endswith(("big.md", "f.md"))]
    for tree in (cold, warm):
        big = tree.pages["general/big.md"]
        assert big.error is not None and "4506 bytes, over the read limit" in big.error
        assert big.text == "" and not tree.analysis.get("general/big.md")
        assert (tree.pages["general/f.md"].error or "").startswith("a FIFO")


def test_a_small_page_is_read_without_a_buffer_the_size_of_the_limit(tmp_path: Path) -> None:
    # os.read(fd, n) allocates n bytes first: reading "the rest of the limit" to find the end
    # of the file allocated the whole limit for every page (a cold check's largest cost).
    import tracemalloc

    top = _root(tmp_path)
    limit = 32 * 1024 * 1024
    tracemalloc.start()
    try:
        data, _ = read_page_file(str(top), "general/a.md", limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data == b"# A\n"
    assert peak < 1024 * 1024


def test_a_page_that_grows_past_its_stat_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = _root(tmp_path)
    page = top / "general" / "a.md"
    real_fstat = os.fstat

    def fstat_then_grow(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        with page.open("ab") as grow:  # written after the size was taken
            grow.write(b"y" * 200_000)
        return st

    monkeypatch.setattr(os, "fstat", fstat_then_grow)
    data, key = read_page_file(str(top), "general/a.md", 1_000_000)
    assert data == b"# A\n" + b"y" * 200_000
    assert key[0] == 4  # the key is the one taken before the read: the next run re-reads
    with pytest.raises(PageRefused) as refused:
        read_page_file(str(top), "general/a.md", 300_000)  # grew past the limit meanwhile
    assert "at least" in refused.value.message


def test_a_page_that_did_not_grow_is_read_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its stat'ed size plus one byte comes back short: that is its end, no read to confirm
    top = _root(tmp_path)
    real_read = os.read
    reads: list[int] = []

    def counted(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", counted)
    data, _ = read_page_file(str(top), "general/a.md", 1_000_000)
    assert data == b"# A\n" and reads == [5]
