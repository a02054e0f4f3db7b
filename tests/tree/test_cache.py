"""The parse cache never serves stale results and never changes what a check reports."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbkit.checks.registry import analyze_page
from kbkit.infra.content_digest import digest
from kbkit.policy.model import load_policy
from kbkit.tree.cache import CACHE_DIR, PageCache
from kbkit.tree.model import LoadOptions, load_tree


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo" / "knowledge" / "general"
    root.mkdir(parents=True)
    (root / "_index.md").write_text("# General\n\n- [a](a.md)\n")
    (root / "a.md").write_text("---\ntitle: a\n---\n# A\n\nSee [b](b.md).\n")
    return tmp_path / "repo"


def _load(repo: Path, use_cache: bool = True):
    return load_tree(
        repo, load_policy(repo), LoadOptions(analyze=analyze_page, use_cache=use_cache)
    )


def test_warm_load_equals_cold_load(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cold = _load(repo, use_cache=False)
    first = _load(repo)
    assert (repo / CACHE_DIR / "pages.marshal").exists()
    assert (repo / CACHE_DIR / ".gitignore").read_text().strip().endswith("*")
    warm = _load(repo)
    assert warm.pages == first.pages == cold.pages
    assert warm.analysis == cold.analysis


def test_same_size_edit_with_restored_mtime_is_seen(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    page = repo / "knowledge" / "general" / "a.md"
    before = _load(repo).pages["general/a.md"]
    st = page.stat()
    page.write_text(page.read_text().replace("b.md", "c.md"))  # same size
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = _load(repo).pages["general/a.md"]
    assert [link.target for link in before.links] == ["b.md"]
    assert [link.target for link in after.links] == ["c.md"]


def test_racy_entries_are_verified_by_content(tmp_path: Path) -> None:
    """A file changed moments before the cache was written could change again with an
    identical stat key (coarse timestamps); such entries are checked against a digest."""
    path = tmp_path / "pages.marshal"
    now = time.time_ns()
    key = (10, now, now, 1)
    writer = PageCache(path, "ns")
    writer.put("a.md", key, digest(b"old bytes!"), "payload")
    writer.save()
    page = tmp_path / "a.md"
    page.write_bytes(b"new bytes!")
    assert PageCache(path, "ns").get("a.md", str(page), key) is None
    page.write_bytes(b"old bytes!")
    assert PageCache(path, "ns").get("a.md", str(page), key) == "payload"
    assert PageCache(path, "other-namespace").get("a.md", str(page), key) is None


def test_old_entries_trust_the_stat_key(tmp_path: Path) -> None:
    path = tmp_path / "pages.marshal"
    old = time.time_ns() - 60 * 10**9
    key = (10, old, old, 1)
    writer = PageCache(path, "ns")
    writer.put("a.md", key, digest(b"old bytes!"), "payload")
    writer.save()

    missing = str(tmp_path / "never-read.md")  # reading it would fail: the key suffices
    assert PageCache(path, "ns").get("a.md", missing, key) == "payload"


def test_corrupt_cache_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _load(repo)
    cache = repo / CACHE_DIR / "pages.marshal"
    cache.write_bytes(b"\x00garbage")
    tree = _load(repo)
    assert [link.target for link in tree.pages["general/a.md"].links] == ["b.md"]
    assert cache.read_bytes() != b"\x00garbage"


def test_policy_change_invalidates(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = load_tree(repo, load_policy(repo), LoadOptions(analyze=analyze_page))
    other = load_tree(repo, load_policy(repo, "infermatrix"), LoadOptions(analyze=analyze_page))
    assert first.policy.fingerprint != other.policy.fingerprint
    assert other.pages.keys() == first.pages.keys()


def test_parallel_and_serial_loads_agree(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    folder = repo / "knowledge" / "general"
    for i in range(700):
        (folder / f"p{i}.md").write_text(
            f"---\ntitle: p{i}\n---\n# P{i}\n\n[a](a.md) `[x](y.md)`\n"
        )
    serial = load_tree(repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=1))
    parallel = load_tree(
        repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=2)
    )
    assert serial.pages == parallel.pages
    assert serial.analysis == parallel.analysis


def _helpers_forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The helper count of each parallel parse the test's loads start (`run_chunks` calls)."""
    from kbkit.infra import parallel

    forked: list[int] = []
    real = parallel.run_chunks

    def counted(count: int, work: object, helpers: int) -> object:
        forked.append(helpers)
        return real(count, work, helpers)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "run_chunks", counted)
    return forked


@pytest.mark.parametrize(("pages", "size", "forks"), [(30, 60_000, True), (30, 2_000, False)])
def test_a_few_large_pages_are_parsed_by_helpers_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages: int, size: int, forks: bool
) -> None:
    """Thirty pages of 60 KB (1.8 MB of text) are worth a helper, thirty of 2 KB are not;
    either way the load equals the one in this process alone."""
    repo = _repo(tmp_path)
    folder = repo / "knowledge" / "general"
    prose = "Words [a](a.md) and `code`.\n\n" * (size // 30)
    for i in range(pages):
        (folder / f"p{i}.md").write_text(f"---\ntitle: p{i}\n---\n# P{i}\n\n{prose}")
    serial = load_tree(repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=1))
    forked = _helpers_forked(monkeypatch)
    both = load_tree(repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=2))
    assert forked == ([1] if forks else [])
    assert serial.pages == both.pages
    assert serial.analysis == both.analysis


def test_a_symlink_out_of_the_tree_is_not_followed_to_size_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sizing the parse looks at each page's own entry: a symlink to a large file outside
    the repository is not followed (the read refuses it, as before), so it forks nothing."""
    repo = _repo(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("# Out\n\n" + "x" * 2_000_000)
    (repo / "knowledge" / "general" / "link.md").symlink_to(outside)
    forked = _helpers_forked(monkeypatch)
    tree = load_tree(repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=2))
    assert forked == []
    assert "leaves" in (tree.pages["general/link.md"].error or "")


def test_versions_of_a_page_read_in_parallel_equal_each_page_read_alone(tmp_path: Path) -> None:
    # A versioned docset repeats its pages: the parallel load hands each version to the same
    # process, whose memo parses a repeated body once; every page must still be its own
    from kbkit.pages.page import parse_page

    repo = _repo(tmp_path)
    top = repo / "knowledge"
    for version in range(4):
        folder = top / "general" / f"v{version}"
        folder.mkdir()
        for i in range(180):
            front = f"---\ntitle: p{i}\n" + ("ms.date: x\n" * (version % 2)) + "---\n"
            body = f"# P{i}\n\n[a](../a.md) [s](#p{i}) <!-- c -->\n\n```\ncode {i}\n```\n"
            (folder / f"p{i}.md").write_text(front + body)
    for jobs in (1, 2):
        tree = load_tree(
            repo, load_policy(repo), LoadOptions(analyze_page, use_cache=False, jobs=jobs)
        )
        assert len(tree.pages) > 700
        for rel, page in tree.pages.items():
            alone = parse_page(page.path, (top / rel).read_bytes())
            assert page == alone, rel


def test_an_undecodable_page_is_cached_so_warm_runs_write_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "knowledge" / "general" / "bad.md").write_bytes(b"ok\n\xff\xfe\n")
    old = time.time() - 3600  # not racy
    for page in (repo / "knowledge" / "general").iterdir():
        os.utime(page, (old, old))
    _load(repo)
    cache = repo / CACHE_DIR / "pages.marshal"
    written = cache.stat().st_mtime_ns
    tree = _load(repo)
    assert "UTF-8" in (tree.pages["general/bad.md"].error or "")
    assert cache.stat().st_mtime_ns == written  # nothing changed, nothing rewritten


def test_validator_loads_keep_summaries_not_pages(tmp_path: Path) -> None:
    """What bounds a validator run's memory: no page objects, and the warm load (from the
    cache) hands out the same summaries, facts and findings as the cold one."""
    from kbkit.checks.runner import load_for_checks

    repo = _repo(tmp_path)
    (repo / "knowledge" / "general" / "b.md").write_text(
        "---\ntitle: b\ntags: [x]\nupdated: 2026-01-02\n---\n# B\n\n10.1.2.3 [a](a.md)\n"
    )
    policy = load_policy(repo)
    cold = load_for_checks(repo, policy, use_cache=True)
    warm = load_for_checks(repo, policy, use_cache=True)
    assert cold.pages == warm.pages == {}
    assert cold.summaries == warm.summaries
    assert cold.summaries["general/b.md"].links == (("general/a.md", 8, "a.md"),)
    assert cold.facts == warm.facts
    assert cold.facts["general/b.md"]["updated"] == ("2026-01-02", 4)
    assert cold.analysis == warm.analysis
    assert "tree/secret-ip" in {f.rule_id for f in cold.analysis["general/b.md"]}


def _payloads(repo: Path) -> dict[str, object]:
    from kbkit.tree.cache import read_block

    data = memoryview((repo / CACHE_DIR / "pages.marshal").read_bytes())
    pos, _ = read_block(data, 0)
    found = {}
    while pos < len(data):
        pos, chunk = read_block(data, pos)
        found.update({rel: payload for rel, _, _, payload in chunk})
    return found


@pytest.mark.parametrize("chunk", [1000, 2])
def test_saved_payloads_are_the_parsed_entries_cold_and_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Parsed pages' entries are written as the parse runs, a chunk at a time (chunk=2:
    during the load; 1000: at save), and cache hits' payloads are made again at save from
    the tree's parts: what is written must be exactly what parsing the page gives, for
    both (the second load adds a page, so it rewrites the hits too)."""
    import kbkit.tree.cache
    from kbkit.tree.model import read_entry

    monkeypatch.setattr(kbkit.tree.cache, "ADDED_CHUNK", chunk)
    repo = _repo(tmp_path)
    top = repo / "knowledge"
    (top / "general" / "c.md").write_text("# C\n\n[x](/abs/path.md)\n")
    (top / "general" / "d.md").write_bytes(b"\xff\xfe not utf-8\n")
    policy = load_policy(repo)
    for keep_pages in (True, False):
        options = LoadOptions(analyze=analyze_page, use_cache=True, keep_pages=keep_pages)
        for step in ("cold", "warm"):
            if step == "warm":
                (top / "general" / "e.md").write_text("# E\n")
            load_tree(repo, policy, options)
            pages = sorted(str(p.relative_to(top)) for p in top.rglob("*.md"))
            expected = {
                rel: read_entry(str(top), "knowledge", rel, policy, options)[1] for rel in pages
            }
            assert any(entry[2] for entry in expected.values())  # a page with findings
            assert _payloads(repo) == expected
        (repo / CACHE_DIR / "pages.marshal").unlink()
        (top / "general" / "e.md").unlink()


def test_a_page_that_cannot_be_opened_is_not_cached(tmp_path: Path) -> None:
    """A page removed between the walk and its read is unreadable this time and not
    cached (the next run reads it again); the other pages are."""
    from kbkit.tree.walk import walk_root

    repo = _repo(tmp_path)
    gone = repo / "knowledge" / "general" / "gone.md"
    policy = load_policy(repo)
    options = LoadOptions(analyze=analyze_page, use_cache=True)
    for _ in ("cold", "warm"):
        gone.write_text("# Gone\n")
        walk = walk_root(repo / "knowledge", "knowledge")
        gone.unlink()
        tree = load_tree(repo, policy, options, walk)
        error = tree.summaries["general/gone.md"].error
        assert error is not None and error.startswith("cannot read")
        assert "general/gone.md" not in _payloads(repo)
        assert "general/a.md" in _payloads(repo)


def test_only_racy_pages_are_hashed_while_loading(tmp_path: Path, monkeypatch) -> None:
    """The cache keeps a content digest of racy files only: hashing every page's bytes on a
    cold load cost 2% of it. A page older than the racy window is trusted by its stat key."""
    import kbkit.tree.model

    repo = _repo(tmp_path)
    now = time.time()  # the test clock's (it may be moved away from the files' real times)
    for page in (repo / "knowledge").rglob("*.md"):
        os.utime(page, (now - 3600, now - 3600))
    new = repo / "knowledge" / "general" / "new.md"
    new.write_text("# New\n")
    os.utime(new, (now, now))  # racy: modified as the load starts
    hashed: list[bytes] = []

    def counting(data: bytes) -> bytes:
        hashed.append(data)
        return digest(data)

    monkeypatch.setattr(kbkit.tree.model, "digest", counting)
    _load(repo)
    assert b"# New\n" in hashed
    assert not any(data.startswith((b"# General", b"---\ntitle: a")) for data in hashed)


def test_the_input_digest_is_of_values_not_of_object_identity() -> None:
    """Equal summaries and facts digest equal whether their strings are interned, shared or
    fresh copies (marshal's later formats record those differences)."""
    import sys

    from kbkit.tree.model import input_digest

    def fresh(text: str) -> str:
        return "".join(list(text))  # an equal string that is a new, not interned, object

    shared = sys.intern("general/a.md")
    summary = (None, ((shared, 3, shared), (shared, 4, shared)), ())
    copies = (None, ((fresh(shared), 3, fresh(shared)), (fresh(shared), 4, fresh(shared))), ())
    facts = {"tags": (("a", "b"), 2), "updated": ("2026-11-01", 3), "fingerprint": b"x"}
    other = {"updated": (fresh("2026-11-01"), 3), "tags": ((fresh("a"), "b"), 2)}
    assert input_digest(summary, facts) == input_digest(copies, other)
    assert input_digest(summary, facts) != input_digest(summary, {**facts, "tags": (("a",), 2)})


def test_a_full_disk_mid_write_keeps_the_old_cache_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries of a large cold load are written while it parses; when the disk fills
    up halfway, the half-written file goes, the previous cache file stays as it was and
    the load's result is the same (a cache that cannot be written only costs speed)."""
    import kbkit.tree.cache
    from tests.disk import fill, small_tmpfs

    monkeypatch.setattr(
        kbkit.tree.cache, "ADDED_CHUNK", 2
    )  # written during the load, chunk by chunk
    repo = _repo(tmp_path)
    with small_tmpfs(repo / CACHE_DIR, "256k") as folder:
        first = _load(repo)
        old = (folder / "pages.marshal").read_bytes()
        for n in range(60):  # a new cache file far larger than what the disk has left
            (repo / "knowledge" / "general" / f"p{n}.md").write_text(f"# P{n}\n\n" + "x" * 2000)
        fill(folder)
        loaded = _load(repo)
        assert (folder / "pages.marshal").read_bytes() == old
        assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "filler", "pages.marshal"]
    assert loaded.summaries.keys() > first.summaries.keys()
    assert loaded.summaries == _load(repo, use_cache=False).summaries


@given(st.integers(min_value=0, max_value=5_000))
def test_chunks_cover_every_page_once_and_end_small(total: int) -> None:
    """The parallel load's chunks: every page in exactly one, in order, none over CHUNK
    pages, the last 2 * CHUNK pages in quarter chunks (the processes end together), and
    at least eight chunks where there are eight pages."""
    from kbkit.tree.model import CHUNK, chunk_bounds

    bounds = chunk_bounds(total)
    assert bounds[0] == 0 and bounds[-1] == total
    sizes = [end - start for start, end in zip(bounds, bounds[1:], strict=False)]
    assert all(0 < size <= CHUNK for size in sizes)
    tail = [size for start, size in zip(bounds, sizes, strict=False) if start >= total - 2 * CHUNK]
    assert sum(tail) == min(total, 2 * CHUNK)
    assert all(size <= CHUNK // 4 for size in tail)
    assert len(sizes) >= min(total, 8)  # a few large pages are shared out too
