"""Release hygiene: `make release` (tools/release.py) on a clone of this checkout, and what
the wheel holds: no test-only or checkout-only module, complete metadata, the LICENSE."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.gitrepo import git

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "tools"))
import release  # noqa: E402  (tools/release.py: checkout-only, not in the package)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's committed state in a new folder (the release reads git, not the disk)."""
    dest = tmp_path_factory.mktemp("release") / "kbkit"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(PROJECT), str(dest)], check=True)
    return dest


def _release(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(PROJECT / "tools/release.py"), "--repo", str(repo)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.slow
def test_release_tags_the_version_once_with_a_clean_wheel(clone: Path) -> None:
    version = release.version_of(clone)
    (clone / "notes.txt").write_text("not committed\n")
    dirty = _release(clone)
    assert dirty.returncode == 1 and "the working tree has changes" in dirty.stderr
    (clone / "notes.txt").unlink()
    done = _release(clone)
    assert done.returncode == 0, done.stderr
    assert f"made v{version}" in done.stdout
    assert git(clone, "tag", "--list").split() == [f"v{version}"]
    assert git(clone, "cat-file", "-t", f"v{version}").strip() == "tag"  # annotated
    (wheel,) = (clone / "dist").glob("*.whl")
    assert release.wheel_problems(wheel) == []
    names = zipfile.ZipFile(wheel).namelist()
    for gone in ("kbkit/shims.py", "kbkit/demo.py", "kbkit/lessons/demo.py"):
        assert gone not in names
    assert "kbkit/__main__.py" in names and "kbkit/policy/policy.schema.json" in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    text = metadata.decode()
    assert "Project-URL: Source, https://github.com/kbkit-dev/kbkit" in text
    assert "Classifier: Programming Language :: Python :: 3.11" in text
    again = _release(clone)
    assert again.returncode == 1 and f"v{version} exists already" in again.stderr


def test_wheel_problems_names_what_must_not_ship(tmp_path: Path) -> None:
    wheel = tmp_path / "bad.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("kbkit/shims.py", "")
        archive.writestr("kbkit/test_hooks.py", "")
        archive.writestr("x.dist-info/METADATA", "Name: x\n")
    problems = release.wheel_problems(wheel)
    assert "kbkit/shims.py: checkout-only, must not ship" in problems
    assert "kbkit/test_hooks.py: a test module, must not ship" in problems
    assert "the LICENSE file is missing from the wheel's metadata" in problems
    assert "METADATA lacks Classifier:" in problems


def test_version_must_be_x_y_z(tmp_path: Path) -> None:
    (tmp_path / "tools/kbkit").mkdir(parents=True)
    (tmp_path / "tools/kbkit/__init__.py").write_text('__version__ = "0.2"\n')
    with pytest.raises(release.ReleaseError, match="is not X.Y.Z"):
        release.version_of(tmp_path)
