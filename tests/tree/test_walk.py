"""The walk: names, problems and stat keys, here or in a forked child; and the `kb` script's
exit after a check (no teardown) loses no output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.tree import walk as walk_module
from kbkit.tree.walk import PACKED_KEY, stat_key, walk_aside, walk_root

OWN_TREE = Path(__file__).resolve().parents[2] / "knowledge"


def test_the_forked_walk_equals_the_walk_here(tmp_path: Path) -> None:
    top = tmp_path / "knowledge"
    shutil.copytree(OWN_TREE, top)
    (top / "general" / "loop").symlink_to(top / "general")  # a problem to carry over
    here = walk_root(top, "knowledge")
    aside = walk_aside(top, "knowledge")()
    assert aside == here
    keys = dict(zip(here.pages, PACKED_KEY.iter_unpack(here.packed_keys), strict=True))
    assert here.problems and keys
    page = "general/_index.md"
    assert keys[page] == stat_key(os.stat(top / page))
    assert here.pages == sorted(rel for rel in here.files if rel.endswith(".md"))


def test_a_child_that_fails_leaves_the_walk_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("needs fork")
    top = tmp_path / "knowledge"
    shutil.copytree(OWN_TREE, top)
    parent = os.getpid()
    real = walk_module.walk_root

    def broken_in_the_child(
        where: Path, root: str, stat_pages: bool, suffixes: tuple[str, ...]
    ) -> walk_module.Walk:
        if os.getpid() != parent:
            raise RuntimeError("the child breaks")
        return real(where, root, stat_pages, suffixes)

    monkeypatch.setattr(walk_module, "walk_root", broken_in_the_child)
    assert walk_aside(top, "knowledge")() == real(top, "knowledge")


@pytest.mark.slow
def test_the_kb_script_prints_the_whole_report_before_it_exits(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(OWN_TREE, repo / "knowledge")
    (repo / "knowledge" / "general" / "x.md").write_text("# X\n\n[gone](gone.md) 10.9.8.7\n")
    script = Path(sys.executable).parent / "kb"
    if not script.exists():
        pytest.skip("kb is not installed next to this Python")
    result = subprocess.run(
        [str(script), "check", "--repo", str(repo), "--format", "json", "--today", "2026-11-30"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)  # complete: flushed before the fast exit
    rules = {finding["rule"] for finding in report["findings"]}
    assert {"tree/link-broken", "tree/secret-ip"} <= rules


def test_a_check_walks_the_root_its_policy_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The walk starts under knowledge/ before the policy is read; a policy that names
    another root gets a walk of that root (the early walk is discarded)."""
    from kbkit.__main__ import main

    repo = tmp_path / "repo"
    shutil.copytree(OWN_TREE, repo / "docs" / "kb")
    (repo / "docs" / "kb" / "general" / "x.md").write_text("# X\n\n[gone](gone.md)\n")
    (repo / "knowledge").mkdir()  # the usual root: only the policy that points elsewhere
    policy = repo / "knowledge" / "policy.yaml"
    policy.write_text((OWN_TREE / "policy.yaml").read_text() + "\nknowledge_root: docs/kb\n")
    (repo / "knowledge" / "stray.md").write_text("# not checked\n\n[x](missing.md)\n")
    for extra in ([], ["--policy", str(policy)]):
        code = main(["check", "--repo", str(repo), "--format", "json", *extra])
        report = json.loads(capsys.readouterr().out)
        paths = {finding["path"] for finding in report["findings"]}
        assert code == 1, extra
        assert "docs/kb/general/x.md" in paths, extra
        assert not any(path.startswith("knowledge/") for path in paths), extra


def test_a_walk_without_page_stats_differs_only_in_the_keys(tmp_path: Path) -> None:
    top = tmp_path / "knowledge"
    shutil.copytree(OWN_TREE, top)
    full = walk_root(top, "knowledge")
    bare = walk_aside(top, "knowledge", stat_pages=False)()
    assert bare._replace(packed_keys=full.packed_keys) == full
    assert bare.packed_keys == b""  # every page's key is left to its read


def test_a_first_check_keeps_each_page_key_its_read_took(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no cache folder the walk takes no page stats: the keys the next run compares
    come from the reads, so an unchanged tree is answered again without reading a page."""
    import kbkit.checks.incremental
    import kbkit.tree.cache
    import kbkit.tree.model
    from kbkit.__main__ import main
    from kbkit.tree.cache import CACHE_DIR

    repo = tmp_path / "repo"
    shutil.copytree(OWN_TREE, repo / "knowledge")
    (repo / "knowledge" / "general" / "x.md").write_text("# X\n\n[gone](gone.md)\n")
    # A file changed in the seconds before a run (or after "now": a test clock may be set
    # back) is "racy" and re-read by design; not here: no file is racy in this test.
    never = -(1 << 62)
    monkeypatch.setattr(kbkit.tree.cache, "RACY_NS", never)
    monkeypatch.setattr(kbkit.checks.incremental, "RACY_NS", never)
    argv = ["check", "--repo", str(repo), "--format", "json", "--today", "2026-11-30"]
    walks: list[bool] = []
    real_aside = walk_module.walk_aside

    def recording(top: Path, root: str, stat_pages: bool = True) -> object:
        walks.append(stat_pages)
        return real_aside(top, root, stat_pages)

    monkeypatch.setattr(walk_module, "walk_aside", recording)
    assert not (repo / CACHE_DIR).exists()
    assert main(argv) == 1
    first = capsys.readouterr().out

    reads: list[str] = []
    real_read = kbkit.tree.model.read_entry

    def counted(top: str, root: str, rel: str, *args: object) -> object:
        reads.append(rel)
        return real_read(top, root, rel, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(kbkit.tree.model, "read_entry", counted)
    monkeypatch.setattr(kbkit.checks.incremental, "read_entry", counted)
    assert main(argv) == 1
    assert capsys.readouterr().out == first
    assert walks == [False, True]
    assert reads == []  # answered from the first run: its keys are the pages' own
    page = repo / "knowledge" / "general" / "x.md"
    page.write_text(page.read_text() + "\nMore.\n")
    assert main(argv) == 1
    assert reads == ["general/x.md"]


@pytest.mark.parametrize("count", [0, 1, 4095, 4096, 4097, 9000])
def test_walk_digest_is_the_digest_of_every_name_joined(count: int) -> None:
    """Hashed a chunk at a time (memory), the bytes are those of one join of every name."""
    import hashlib

    from kbkit.tree.walk import walk_digest

    files = [f"f/{i:05d}-é.md" for i in range(count)]
    folders = ["", "f", "f/g"]
    expected = hashlib.blake2b(digest_size=16)
    expected.update("\0".join(sorted(files)).encode())
    expected.update(b"\0\0")
    expected.update("\0".join(sorted(folders)).encode())
    expected.update(b"\0\0")
    expected.update(repr([]).encode())
    assert walk_digest(reversed(files), folders, []) == expected.digest()
