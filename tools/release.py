"""`make release`: check the version, build the wheel, check what it holds, make the tag.

Checkout-only (not in the package). The tag `v<kbkit.__version__>` is what `kb init` pins
as the hook's `rev:` and what pre-commit fetches; it is made only when the working tree is
clean, the tag is new, the version is `X.Y.Z`, and the wheel (in dist/) holds no test-only or
checkout-only module and carries its metadata (URLs, classifiers, the LICENSE file).
Pushing the tag is left to the releaser: `git push origin vX.Y.Z`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import zipfile
from pathlib import Path

CHECKOUT_ONLY = ("kbkit/demo.py", "kbkit/shims.py", "kbkit/lessons/demo.py")
METADATA_NEEDS = (
    "Project-URL: Homepage, ",
    "Project-URL: Source, ",
    "Classifier: ",
    "License-Expression: MIT",
)


class ReleaseError(Exception):
    """The release cannot be made; the message says why and what to do."""


def version_of(repo: Path) -> str:
    """kbkit.__version__ as the checkout writes it (read, not imported)."""
    text = (repo / "tools/kbkit/__init__.py").read_text("utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    if match is None:
        raise ReleaseError('tools/kbkit/__init__.py has no `__version__ = "X.Y.Z"` line')
    if not re.fullmatch(r"\d+\.\d+\.\d+", match[1]):
        raise ReleaseError(f"version {match[1]!r} is not X.Y.Z: fix kbkit.__version__")
    return match[1]


def wheel_problems(wheel: Path) -> list[str]:
    """What a release wheel must not hold, or lacks."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        text = archive.read(metadata).decode("utf-8") if metadata else ""
    problems = [f"{name}: checkout-only, must not ship" for name in CHECKOUT_ONLY if name in names]
    problems += [
        f"{name}: a test module, must not ship"
        for name in names
        if re.search(r"(^|/)(tests?|conftest)(/|\.py$)|(^|/)test_[^/]*\.py$", name)
    ]
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        problems.append("the LICENSE file is missing from the wheel's metadata")
    problems += [f"METADATA lacks {need.strip()}" for need in METADATA_NEEDS if need not in text]
    return problems


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)


def release(repo: Path, python: str) -> str:
    """Make the release of the checkout at `repo`; returns the tag made."""
    version = version_of(repo)
    tag = f"v{version}"
    if _git(repo, "status", "--porcelain").stdout.strip():
        raise ReleaseError("the working tree has changes: commit or stash them first")
    if _git(repo, "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}").returncode == 0:
        raise ReleaseError(f"{tag} exists already: raise kbkit.__version__ for a new release")
    dist = repo / "dist"
    for old in dist.glob(f"kbkit_knowledge-{version}-*.whl"):
        old.unlink()
    built = subprocess.run(
        [python, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(repo)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(dist.glob(f"kbkit_knowledge-{version}-*.whl"))
    if built.returncode != 0 or not wheels:
        raise ReleaseError(f"the wheel did not build: {built.stderr.strip()[-2000:]}")
    problems = wheel_problems(wheels[-1])
    if problems:
        raise ReleaseError("the wheel is not releasable: " + "; ".join(problems))
    made = _git(repo, "tag", "-a", tag, "-m", f"kbkit {version}")
    if made.returncode != 0:
        raise ReleaseError(f"git tag {tag} failed: {made.stderr.strip()}")
    return tag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make release", description=__doc__)
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--python", default=sys.executable, help="the Python that builds the wheel")
    args = parser.parse_args(argv)
    repo = Path(args.repo)
    try:
        tag = release(repo, args.python)
    except ReleaseError as exc:
        print(f"make release: {exc}", file=sys.stderr)
        return 1
    wheel = sorted((repo / "dist").glob("*.whl"))[-1]
    print(f"made {tag}; the wheel is {wheel.relative_to(repo)}")
    print(f"next: `git push origin {tag}` (teams then pin `rev: {tag}`), and share the wheel")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
