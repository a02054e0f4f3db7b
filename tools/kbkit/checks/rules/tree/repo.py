"""Tree-wide checks that look past single pages: duplicates (T25), tracked local/ files (T26)
and the length of the contributor entry page (T27)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from itertools import islice

from kbkit.checks.rules.tree import DUPLICATE_PAGE, ENTRY_TOO_LONG, LOCAL_TRACKED
from kbkit.infra.closed_spans import closed_spans, replace_spans
from kbkit.infra.content_digest import digest
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.frontmatter import split_frontmatter
from kbkit.pages.page import Page, decode
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree
from kbkit.tree.page_file import PageRefused, read_page_file
from kbkit.vcs.git_index import GitIndexError, tracked_paths

_FILE_SUPPRESSION = lazy(r"<!--\s*kb-disable-file\b")  # to the next `-->` (closed_spans)


# ASCII whitespace: what bytes.split() splits on
_ASCII_SPACE = b" \t\n\r\x0b\x0c"


def _body(page: Page) -> str:
    """The body without frontmatter and without a `kb-disable-file` comment."""
    body = page.text[page.frontmatter.body_offset :]
    if "kb-disable-file" in body:  # the comment that says why a copy is kept is not content
        body = replace_spans(body, closed_spans(body, _FILE_SUPPRESSION, "-->"))
    return body


def exact_fingerprint(body: str, min_chars: int) -> bytes | None:
    """A hash of `body` with its whitespace runs collapsed; None when too short (fewer than
    `min_chars` characters after collapsing)."""
    if len(body) < min_chars:
        return None
    # bytes.split() on the UTF-8 body is twice as fast as str.split(); it collapses ASCII
    # whitespace (Unicode spaces such as U+3000 stay significant)
    normalized = b" ".join(body.encode("utf-8").split())
    if len(normalized) < 4 * min_chars and len(normalized.decode("utf-8")) < min_chars:
        return None
    return digest(normalized)


def body_fingerprint(page: Page, min_chars: int) -> bytes | None:
    """A hash of the body without frontmatter and without ASCII whitespace; None when too
    short (as `exact_fingerprint` decides). Bodies equal up to whitespace runs hash equal;
    so do the rare bodies that differ only in where whitespace is (`a b`, `ab`), which
    `duplicate_findings` tells apart with `exact_fingerprint`."""
    body = _body(page)
    if len(body) < min_chars:
        return None
    # Deleting the whitespace is one C pass without objects; collapsing it (split and join)
    # made a bytes object per word and cost 10% of a cold check's CPU.
    squeezed = body.encode("utf-8").translate(None, _ASCII_SPACE)
    # collapsed, the body is at least as long as squeezed: only a short one needs measuring
    if len(squeezed) < 4 * min_chars and exact_fingerprint(body, min_chars) is None:
        return None
    return digest(squeezed)


def page_exact_fingerprint(page: Page, min_chars: int) -> bytes | None:
    """`exact_fingerprint` of a page's body (what `body_fingerprint` approximates)."""
    return exact_fingerprint(_body(page), min_chars)


def bytes_exact_fingerprint(data: bytes, min_chars: int) -> bytes | None:
    """`page_exact_fingerprint` of a page's bytes without parsing its markdown (only the
    frontmatter is split off, as `parse_page` splits it); None when it is not text."""
    text, _, error = decode(data)
    if error is not None:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    body = text[split_frontmatter(text).body_offset :]
    if "kb-disable-file" in body:
        body = replace_spans(body, closed_spans(body, _FILE_SUPPRESSION, "-->"))
    return exact_fingerprint(body, min_chars)


def duplicate_findings(
    fingerprints: Iterable[tuple[str, bytes]],
    repo_path: Callable[[str], str],
    exact: Callable[[str], bytes | None] | None = None,
    version: Callable[[str], str | None] | None = None,
) -> list[Finding]:
    """T25: a page (root-relative path, body fingerprint; sorted by path) whose body equals an
    earlier page's body. With `exact` (the page's `exact_fingerprint`, None when it cannot be
    read again), pages whose `body_fingerprint`s are equal are compared exactly. With
    `version` (the declared version folder a page is in, or None), a page copied from
    another version's folder is no duplicate: only copies within one version, or of or into
    a page outside every version folder, are."""
    # Only bodies held by two pages or more are kept, found by sorting: a Counter and a
    # list per page were 15 MB of the peak memory of a check at 100k pages.
    pairs = list(fingerprints)
    repeated = _repeated(body for _, body in pairs)
    if not repeated:
        return []  # every body differs (most trees)
    if exact is not None:
        clash = _may_clash(pairs, repeated, version)
        refined = []
        for rel, body in pairs:
            if body in repeated and (clash is None or rel in clash):
                found = exact(rel)
                if found is None:
                    continue  # gone or changed past reading since the load
                body = b"=" + found  # never equal to a 16-byte body_fingerprint
            refined.append((rel, body))
        pairs = refined
        repeated = _repeated(body for _, body in pairs)
    first: dict[bytes, list[str]] = {}
    findings: list[Finding] = []
    for rel, body in pairs:
        if body not in repeated:
            continue
        earlier = first.setdefault(body, [])
        earlier.append(rel)
        if version is None:
            owner = earlier[0]
        else:
            mine = version(rel)
            owner = next((o for o in earlier if mine is None or version(o) in (None, mine)), rel)
        if owner != rel:
            findings.append(
                DUPLICATE_PAGE.at(
                    repo_path(rel),
                    0,
                    f"same text as {repo_path(owner)}: keep one page and link to it",
                )
            )
    return findings


def _repeated(bodies: Iterable[bytes]) -> set[bytes]:
    """The bodies that occur more than once."""
    ordered = sorted(bodies)
    following = islice(ordered, 1, None)
    return {body for body, after in zip(ordered, following, strict=False) if body == after}


def _may_clash(
    pairs: list[tuple[str, bytes]],
    repeated: set[bytes],
    version: Callable[[str], str | None] | None,
) -> set[str] | None:
    """The pages whose equal-looking bodies could be reported (all, None, without versions):
    a copy in another version's folder never is, so it needs no exact comparison."""
    if version is None:
        return None
    groups: dict[bytes, list[str]] = {}
    for rel, body in pairs:
        if body in repeated:
            groups.setdefault(body, []).append(rel)
    clash: set[str] = set()
    for members in groups.values():
        seen = Counter(version(rel) for rel in members)
        for rel in members:
            mine = version(rel)
            if mine is None or seen[mine] > 1 or seen[None]:
                clash.add(rel)
    return clash


def version_reader(tree: Tree) -> Callable[[str], str | None] | None:
    """The declared version folder (`versions:`, knowledge-root folders; `*` and `?` match
    within one name) each root-relative page lies in, or None for the policy without any."""
    patterns = tuple(str(p).strip("/") for p in tree.policy.data.get("versions") or ())
    if not patterns:
        return None
    import fnmatch

    known: dict[str, str | None] = {}

    def version(rel: str) -> str | None:
        folder = rel.rpartition("/")[0]
        if folder not in known:
            parts = folder.split("/") if folder else []
            found = None
            for end in range(1, len(parts) + 1):
                prefix = "/".join(parts[:end])
                if any(fnmatch.fnmatchcase(prefix, pattern) for pattern in patterns):
                    found = prefix
                    break
            known[folder] = found
        return known[folder]

    return version


def exact_reader(tree: Tree) -> Callable[[str], bytes | None]:
    """`exact_fingerprint` of a page of `tree` by its root-relative path, read again."""
    top = str(tree.repo / tree.root)
    min_chars = tree.policy.limit("duplicate_min_chars")

    def exact(rel: str) -> bytes | None:
        try:
            data, _ = read_page_file(top, rel, tree.policy.limit("read_bytes"))
        except (PageRefused, OSError):
            return None
        return bytes_exact_fingerprint(data, min_chars)

    return exact


def local_tracked_findings(tree: Tree) -> list[Finding]:
    """T26: files under <knowledge root>/<local_dir>/ listed in the git index (no git needed)."""
    local = f"{tree.root}/{tree.policy.data['local_dir']}/"
    try:
        found = tracked_paths(tree.repo, local)
    except GitIndexError as exc:
        return [
            LOCAL_TRACKED.at(
                tree.repo_path(str(tree.policy.data["local_dir"])),
                0,
                f"cannot verify that local/ is untracked: {exc}",
            )
        ]
    if found is None:
        return []  # not a git repository: nothing can be tracked
    prefix, paths = found  # only the paths under local/
    lead = f"{prefix}/" if prefix else ""
    return [
        LOCAL_TRACKED.at(
            path[len(lead) :], 0, "tracked by git: local/ is private; run `git rm --cached` on it"
        )
        for path in sorted(paths)
    ]


def entry_findings(tree: Tree) -> list[Finding]:
    """T27: the entry page stays short (`>` the limits fails, as in the reference)."""
    entry = tree.policy.data["entry_page"]
    if not entry:
        return []
    path = str(entry).strip("/")
    try:
        data, _ = read_page_file(
            str(tree.repo), path, tree.policy.limit("read_bytes"), "the repository"
        )
    except (FileNotFoundError, NotADirectoryError):
        return []  # no entry page in this repository: nothing to gate
    except PageRefused as refused:  # a FIFO, a device, a link out of the repository, too big
        return [ENTRY_TOO_LONG.at(path, 0, f"entry page: {refused.message}")]
    except OSError as exc:
        return [ENTRY_TOO_LONG.at(path, 0, f"cannot read the entry page: {exc.strerror or exc}")]
    text, _, error = decode(data)
    if error is not None:
        return [ENTRY_TOO_LONG.at(path, 0, f"cannot measure the entry page: {error}")]
    lines = sum(1 for line in text.splitlines() if line.strip())
    max_lines, max_bytes = tree.policy.limit("entry_lines"), tree.policy.limit("entry_bytes")
    if lines > max_lines or len(data) > max_bytes:
        return [
            ENTRY_TOO_LONG.at(
                path,
                0,
                f"entry page has {lines} non-empty lines and {len(data)} bytes "
                f"(limits {max_lines} lines, {max_bytes} bytes): move detail to linked pages",
            )
        ]
    return []
