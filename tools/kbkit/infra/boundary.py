"""The repository boundary: no command reads or writes a path whose real location is
outside the repository (and, for pages, outside the knowledge root inside it).

One rule for every reader and writer (`kb check`, `kb fix`, `kb lsp`, `kb init`, the
curator, the report): resolve the real path once (`os.path.realpath`, every symlink and
`..` followed) and compare it with the real path of the boundary folder. A symlink inside
the tree is fine while it lands inside; the repository's own files cannot steer kbkit to
another folder, whether through a link (`knowledge -> /home/me/notes`), a `../` in the
policy (`knowledge_root: ../victim`) or a site config (`docs_dir: ../victim`).

What lies outside is refused before a byte of it is read, with exit 2 and one sentence that
names the path as the repository spells it, never what the file says
(`OutsideRepository`). A writer writes to the real target of an in-tree symlink, so the link
stays a link (`write_target`): `os.replace` over the link itself would turn it into a plain
copy of the file it pointed to.

Why the real path and not the link's text: a chain of links, a folder link higher up the
path, or `..` after a link all end where `realpath` says, and only there. Why once: the
walk never enters a symlinked folder and the page reader checks the page's own link, so a
root resolved here at the start is what every later read stays under.
"""

from __future__ import annotations

import os
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import read_regular_bytes

StrPath = str | os.PathLike[str]


class OutsideRepository(UsageError):
    """A path the repository names whose real location is outside it: exit 2."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


def real(path: StrPath) -> str:
    """The real path: every symlink and `..` resolved (a missing tail kept as written)."""
    return os.path.realpath(path)


def within(base: StrPath, path: StrPath) -> bool:
    """Whether `path`, every symlink resolved, is `base` (also resolved) or lies below it."""
    top = real(base)
    target = real(path)
    return target == top or target.startswith(top.rstrip(os.sep) + os.sep)


def is_link(path: StrPath) -> bool:
    """Whether `path` itself is a symlink (a broken one included)."""
    return os.path.islink(path)


def shown(path: StrPath, repo: StrPath | None = None) -> str:
    """`path` as the repository spells it: relative to `repo` when it lies below it
    (lexically, links not followed), else as given."""
    text = os.fspath(path)
    if repo is not None:
        base = os.path.abspath(repo)
        full = os.path.abspath(text)
        if full.startswith(base.rstrip(os.sep) + os.sep):
            return os.path.relpath(full, base)
    return text


def outside(
    what: str, path: StrPath, repo: StrPath | None, boundary: str, hint: str = ""
) -> OutsideRepository:
    """The one-sentence refusal of `path` (named, never read)."""
    name = shown(path, repo)
    return OutsideRepository(
        f"{what} {name} leads outside {boundary} (through a symlink or `..`); refused: "
        f"kbkit reads and writes only inside the repository{f' ({hint})' if hint else ''}",
        path=name,
    )


def confine(
    base: StrPath,
    path: StrPath,
    what: str,
    *,
    repo: StrPath | None = None,
    boundary: str = "the repository",
    hint: str = "",
) -> Path:
    """The real path of `path`, or OutsideRepository when it is not inside `base`. `what`
    says what the path is ("the page", "the policy file"); `repo` makes the message
    name it relative to the repository; `hint` is the way out, said in brackets."""
    if not within(base, path):
        raise outside(what, path, repo if repo is not None else base, boundary, hint)
    return Path(real(path))


def knowledge_top(repo: StrPath, root: str, source: str = "") -> Path:
    """The real path of the knowledge root `root` (repository-relative), refused when it
    lies outside the repository: `knowledge_root: ../victim`, or a root that is a symlink
    to another folder. `source` names where the root was set (a policy file)."""
    path = Path(repo) / root
    if not within(repo, path):
        where = f" (knowledge_root in {shown(source, repo)})" if source else ""
        raise OutsideRepository(
            f"the knowledge root {root or '.'}{where} leads outside the repository (through a "
            "symlink or `..`); refused: kbkit reads and writes only inside the repository",
            path=root,
        )
    return Path(real(path))


def read_within(base: StrPath, path: StrPath) -> bytes | None:
    """The bytes of `path` when its real path is inside `base`, else None (never opened).
    OSError passes through: NotRegularFile for a FIFO, a device or a folder."""
    if not within(base, path):
        return None
    return read_regular_bytes(real(path))  # a FIFO or a device: NotRegularFile, never opened


def text_within(base: StrPath, path: StrPath) -> str | None:
    """The UTF-8 text of `path` when it is inside `base` and readable, else None."""
    try:
        data = read_within(base, path)
        return None if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_target(
    base: StrPath, path: StrPath, what: str = "the file", *, repo: StrPath | None = None
) -> Path:
    """Where a write of `path` goes: its real path, which must be inside `base`. A symlink
    inside the tree is written through (its target changes, the link stays a link); one
    that leads outside is refused (OutsideRepository) before anything is written."""
    return confine(base, path, what, repo=repo)
