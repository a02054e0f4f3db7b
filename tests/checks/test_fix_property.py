"""`kb fix` on generated hostile trees: page names with odd characters and unicode, LF, CRLF
and bare-CR pages, unquoted titles, unlinked pages, missing fields, unused suppressions, pages
changed since the last commit, symlinked pages. Whatever the tree, the real `kb fix` changes nothing outside the repository,
a second run writes nothing, a refused run leaves every byte as it was, a page keeps its line
endings, a symlink stays a symlink, and every fixable finding left is on a page the run
named as skipped (a refusal of the whole tree would keep the other promises: not this one). A few examples in `make test`; many in `make stress`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.gitrepo import git
from tests.kbtree import kb, make_tree

from kbkit.checks.fixes import FIXES

STRESS = bool(os.environ.get("KBKIT_STRESS"))
EXAMPLES = 40 if STRESS else 4
SYMLINK_EXAMPLES = 30 if STRESS else 2
FOLDERS = ("general", "general/sub")  # sub: a folder of its own, with its own index
EOLS = ("\n", "\r\n", "\r")
ODD = "#%?()[]&!~+,;=@' -_." + "\u00e9\u00fc\u00df\u4e2d\u0416\U0001f600"
NAMES = st.text(alphabet=st.sampled_from("abcxyz0" + ODD), min_size=1, max_size=10).filter(
    lambda name: not name.startswith(".") and name != "_index"
)


class Spec(NamedTuple):
    folder: str
    name: str
    eol: str
    quoted: bool
    linked: bool
    committed: bool
    edited: bool  # changed after the commit: a page whose `updated:` gets bumped
    missing: bool = False  # no `created:` and no `sources:` (stubbed by the fix)
    suppressed: bool = False  # an unused suppression comment (dropped by the fix)


PAGE = st.builds(
    Spec,
    st.sampled_from(FOLDERS),
    NAMES,
    st.sampled_from(EOLS),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
TREES = st.lists(PAGE, min_size=1, max_size=12 if STRESS else 6, unique_by=lambda s: s.name)


def _text(spec: Spec) -> str:
    # never blank: an empty title is the author's to write, not a mechanical fix
    title = (
        json.dumps(f"Title of {spec.name}", ensure_ascii=False)
        if spec.quoted
        else "Title of " + spec.name
    )
    title = title.replace("#", "")
    created = "" if spec.missing else "created: 2026-01-01\n"
    sources = "" if spec.missing else "sources: []\n"
    comment = "<!-- kb-disable-next-line tree/link-broken: moved -->\n" if spec.suppressed else ""
    return (
        f"---\ntitle: {title}\n{created}updated: 2026-01-02\ntype: guide\n"
        f"tags: [general]\n{sources}---\n\n# Heading\n\n{comment}Some text.\n"
    ).replace("\n", spec.eol)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`kb init`'s tree with a sub-folder, made once: each example starts from a copy."""
    repo = make_tree(tmp_path_factory.mktemp("template") / "team")
    sub = repo / "knowledge/general/sub"
    sub.mkdir()
    (sub / "_index.md").write_text(
        '---\ntitle: "Sub"\ncreated: 2026-01-01\nupdated: 2026-01-01\ntype: index\n'
        "tags: [general]\nsources: []\n---\n\n# Sub\n"
    )
    index = repo / "knowledge/general/_index.md"
    index.write_text(
        index.read_text().replace("updated: 2026-11-30", "updated: 2026-01-01")
        + "\n- [Sub](sub/_index.md)\n"
    )
    return repo


def _build(template: Path, specs: list[Spec], symlinks: bool) -> tuple[Path, Path]:
    """A fresh copy of `template` holding `specs` (and, with `symlinks`, a page that links
    to another page of the tree and one that links to a file outside the repository) in a
    git repository; returns (repository, the folder outside it)."""
    top = Path(tempfile.mkdtemp(dir=template.parent.parent))
    repo = top / "team"
    shutil.copytree(template, repo, symlinks=True)
    outside = top / "outside"
    outside.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for spec in specs:
        path = repo / "knowledge" / spec.folder / f"{spec.name}.md"
        path.write_bytes(_text(spec).encode())
        if spec.linked:
            index = path.parent / "_index.md"
            target = spec.name.replace("%", "%25").replace(" ", "%20").replace("#", "%23")
            target = target.replace("?", "%3F").replace("(", "%28").replace(")", "%29")
            index.write_text(index.read_text() + f"\n- [x]({target}.md)\n")
    if symlinks:
        general = repo / "knowledge/general"
        (general / "target.md").write_text(_text(Spec("general", "target", "\n", *[False] * 4)))
        (general / "inside.md").symlink_to("target.md")
        (outside / "secret.md").write_text(_text(Spec("general", "secret", "\n", *[False] * 4)))
        (general / "leak.md").symlink_to(outside / "secret.md")
    git(repo, "add", "-A")
    for spec in specs:  # pages not committed are left out of the commit
        if not spec.committed:
            rel = f"knowledge/{spec.folder}/{spec.name}.md"
            git(repo, "--literal-pathspecs", "rm", "-q", "--cached", "--", rel)
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "tree")
    for spec in specs:
        if spec.committed and spec.edited:
            path = repo / "knowledge" / spec.folder / f"{spec.name}.md"
            path.write_bytes(path.read_bytes() + f"More.{spec.eol}".encode())
    return repo, outside


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every entry under `root` (a symlink as its target, a file as its bytes), .git and
    kbkit's parse cache aside."""
    out = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".kbkit-cache")]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = b"symlink -> " + os.readlink(path).encode()
            else:
                out[rel] = path.read_bytes()
    return out


def _endings(data: bytes) -> str:
    crlf = data.count(b"\r\n")
    lf, cr = data.count(b"\n") - crlf, data.count(b"\r") - crlf
    return "crlf" if crlf and not lf and not cr else "lf" if lf and not crlf and not cr else "?"


def _check(template: Path, specs: list[Spec], symlinks: bool) -> None:
    repo, outside = _build(template, specs, symlinks)
    top = repo.parent
    before = _snapshot(top)
    first = kb(repo, "fix", "--format", "json")
    assert first.returncode in (0, 1, 2), first.stderr
    assert "Traceback" not in first.stderr, first.stderr
    if first.returncode != 2:  # what is left to fix is what the run said it could not fix
        assert "every file is as it was" not in first.stderr, first.stderr  # a page cost all
        told = "\n".join(line for line in first.stderr.splitlines() if "skipped" in line)
        for finding in json.loads(first.stdout)["findings"]:
            if finding["rule"] in FIXES and not finding["path"].startswith("knowledge/general/lea"):
                assert f" {finding['path']}:" in told, (finding, first.stderr)
    once = _snapshot(top)
    assert {k: v for k, v in once.items() if not k.startswith("team/")} == {
        k: v for k, v in before.items() if not k.startswith("team/")
    }, "a file outside the repository changed"
    if first.returncode == 2 or "every file is as it was" in first.stderr:
        assert once == before, "a refused run changed a file"
    for rel, data in before.items():
        if data.startswith(b"symlink -> "):
            assert once[rel] == data, f"{rel} is no longer the same symlink"
        elif rel.endswith(".md") and _endings(data) != "?":
            assert _endings(once[rel]) == _endings(data), f"{rel} changed its line endings"
    second = kb(repo, "fix")
    assert second.returncode == first.returncode, second.stderr
    assert _snapshot(top) == once, "the second run wrote something"
    shutil.rmtree(top)


# The cases the issue found, always run: an unlinked CRLF page with an odd name and an unused
# suppression, a bare-CR page, a page named like a URL, pages missing fields
KNOWN = [
    Spec("general", "a#b", "\r\n", False, False, True, True, True, True),
    Spec("general/sub", "caf\u00e9 (1)?", "\r", False, False, False, False),
    Spec("general/sub", "x%20y", "\n", False, False, False, False, True),
]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not STRESS,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=TREES)
@example(specs=KNOWN)
def test_fix_on_hostile_trees_keeps_its_promises(template: Path, specs: list[Spec]) -> None:
    _check(template, specs, symlinks=False)


@pytest.mark.stress
@settings(
    max_examples=EXAMPLES * 3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=TREES)
def test_fix_on_many_hostile_trees_keeps_its_promises(template: Path, specs: list[Spec]) -> None:
    _check(template, specs, symlinks=False)


@settings(
    max_examples=SYMLINK_EXAMPLES,
    deadline=None,
    derandomize=not STRESS,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=TREES)
def test_fix_keeps_symlinks_and_the_outside_as_they_were(template: Path, specs: list[Spec]) -> None:
    # every example has a symlinked page with an unquoted title inside the tree and one to a
    # file outside the repository: a fix must write through the first and refuse the second
    _check(template, specs, symlinks=True)
