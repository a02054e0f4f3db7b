"""The only module that runs git: a small adapter with clear errors."""

from __future__ import annotations

import os
from pathlib import Path
from subprocess import CompletedProcess

from kbkit.infra.errors import KbkitError
from kbkit.infra.process import run_bounded, timeout_from_env

# Every git call ends within this many seconds (a clone or fetch of a large repository over a
# slow link is the longest); KBKIT_GIT_TIMEOUT overrides it.
TIMEOUT_VARIABLE = "KBKIT_GIT_TIMEOUT"
DEFAULT_TIMEOUT = 600.0


class GitError(KbkitError):
    """git is missing, or a git command failed; the message says what to do next."""


class GitMissing(GitError):
    """git is not installed or not on PATH: the environment, like a missing gh (exit 4)."""

    exit_code = 4


def run_git(
    repo: Path, *args: str, check: bool = True, input: str | None = None, code: bool = False
) -> str:
    """Run `git -C repo args...` and return its stdout (UTF-8, undecodable bytes replaced).

    With `code=True`, return the exit code (as text) instead of the output.
    """
    done = _run(repo, args, input)
    if check and done.returncode != 0:
        detail = failure_detail(done.stderr.decode("utf-8", "replace"), done.returncode)
        raise GitError(f"git {' '.join(args[:2])} failed in {repo}: {detail}")
    if code:
        return str(done.returncode)
    return done.stdout.decode("utf-8", "replace")


def failure_detail(stderr: str, returncode: int) -> str:
    """What a failed git call said, in one line: its first `fatal:` or `error:` line (git
    ends many with advice, such as "...and the repository exists.", that names no cause),
    else its last line, else its exit code."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    remote = [line[len("remote:") :].strip() for line in lines if line.startswith("remote:")]
    said = [text for text in remote if text][:5]  # a remote's hook says why it refused
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return " | ".join([*said, line[len(prefix) :]])
    return " | ".join([*said, lines[-1]]) if lines else f"exit code {returncode}"


def _run(repo: Path, args: tuple[str, ...], input: str | None) -> CompletedProcess[bytes]:
    """`git -C repo args...` within the timeout; a missing git is a clear error."""
    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    try:
        return run_bounded(
            ["git", "-C", str(repo), *args],
            name=f"git {args[0]} (in {repo})" if args else "git",
            timeout=timeout_from_env(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT),
            timeout_variable=TIMEOUT_VARIABLE,
            env=env,
            input=input.encode("utf-8") if input is not None else None,
        )
    except FileNotFoundError as exc:
        raise GitMissing(
            "git is not installed or not on PATH; install git (e.g. `apt-get install git`) "
            "and retry"
        ) from exc


def is_repository(path: Path) -> bool:
    """True when `path` is inside a git work tree."""
    return run_git(path, "rev-parse", "--is-inside-work-tree", check=False).strip() == "true"


def tracked_files(top: Path) -> list[str]:
    """Every path the index tracks, relative to the work tree top `top` (`git ls-files`)."""
    return [name for name in run_git(top, "ls-files", "-z", "--full-name").split("\0") if name]


def staged_blobs(top: Path, under: str, paths: set[str]) -> dict[str, bytes]:
    """The staged content (stage 0 of the index) of each of `paths` (relative to the work
    tree top `top`, all below the folder `under`): what the commit will hold for files that
    are not on disk (outside a sparse checkout, or deleted but not staged)."""
    listing = run_git(top, "ls-files", "-s", "-z", "--full-name", "--", under)
    shas: dict[str, str] = {}
    for record in listing.split("\0"):
        meta, _, path = record.partition("\t")
        fields = meta.split()
        if path in paths and len(fields) == 3 and fields[2] == "0":
            shas[path] = fields[1]
    if not shas:
        return {}
    done = _run(top, ("cat-file", "--batch"), "".join(f"{sha}\n" for sha in shas.values()))
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise GitError(f"git cat-file failed in {top}: {detail}")
    out, pos, by_sha = done.stdout, 0, {}
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        if len(header) != 3:  # `<sha> missing`: an object this clone does not have
            pos = end + 1
            continue
        size = int(header[2])
        by_sha[header[0].decode()] = out[end + 1 : end + 1 + size]
        pos = end + 2 + size
    return {path: by_sha[sha] for path, sha in shas.items() if sha in by_sha}


def changed_files(repo: Path) -> set[str] | None:
    """Paths (relative to `repo`) that differ from HEAD in the index or the work tree, or are
    untracked; None when `repo` is not in a git work tree."""
    if not is_repository(repo):
        return None
    listing = run_git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    top = Path(run_git(repo, "rev-parse", "--show-toplevel").strip())
    lead = repo.absolute().resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if lead == "." else f"{lead}/"
    changed: set[str] = set()
    records = iter(listing.split("\0"))
    for record in records:
        if len(record) < 4:
            continue
        if record[0] in "RC":
            next(records, None)  # a rename's second path is its source
        path = record[3:]
        if path.startswith(prefix):
            changed.add(path[len(prefix) :])
    return changed


def commit_dates(repo: Path, path: str) -> tuple[str, str] | None:
    """(first, last) commit dates (YYYY-MM-DD, committer time) of a file, or None when no
    commit holds it (or `repo` is not a repository)."""
    dates = run_git(repo, "log", "--follow", "--format=%cs", "--", path, check=False).split()
    return (dates[-1], dates[0]) if dates else None


def committed_text(repo: Path, path: str) -> str | None:
    """The text of a file (relative to `repo`) as HEAD has it, or None when HEAD has none."""
    done = _run(repo, ("show", f"HEAD:./{path}"), None)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


RESOLVE_TIMEOUT = 20.0  # seconds a hook repository may take to answer `kb init`


def rev_resolves(source: str, rev: str) -> bool:
    """Does `rev` (a tag, branch or commit) name a commit at `source` (a local repository
    or a URL)? A URL is asked with `git ls-remote` within RESOLVE_TIMEOUT; a repository that
    cannot be reached, like a missing git, answers no."""
    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true")
    folder = Path(source).expanduser()
    if folder.is_dir():
        command = [
            "git",
            "-C",
            str(folder),
            "rev-parse",
            "--verify",
            "--quiet",
            f"{rev}^{{commit}}",
        ]
    else:
        command = ["git", "ls-remote", "--exit-code", "--", source, rev, f"refs/tags/{rev}"]
    try:
        done = run_bounded(
            command,
            name="git ls-remote",
            timeout=RESOLVE_TIMEOUT,
            timeout_variable=TIMEOUT_VARIABLE,
            env=env,
        )
    except (OSError, KbkitError):
        return False
    if done.returncode != 0:
        return False
    return bool(done.stdout.strip()) or folder.is_dir()


def remote_url(repo: Path, remote: str = "origin") -> str | None:
    """The URL of a remote, or None when it is not configured."""
    url = run_git(repo, "remote", "get-url", remote, check=False).strip()
    return url or None


# --- work clone operations (distill and publication) ---------------------------------------

FALLBACK_IDENTITY = ("-c", "user.name=kbkit distill", "-c", "user.email=kbkit@localhost")


def clone(source: str, dest: Path) -> None:
    """Clone `source` (URL or path) into `dest`, which must not exist yet."""
    run_git(dest.parent, "clone", "--quiet", "--no-local", "--", source, str(dest))


def fetch(repo: Path, remote: str = "origin") -> None:
    run_git(repo, "fetch", "--quiet", "--prune", remote)


def refresh_remote_head(repo: Path, remote: str = "origin") -> None:
    """Point `origin/HEAD` at the remote's default branch as it is now: a clone keeps the
    one it was made with, so after a rename (master -> main) it names a branch the fetch
    pruned. Left as it is when the remote does not say (the next call then reports it)."""
    run_git(repo, "remote", "set-head", remote, "--auto", check=False)


def remote_head(repo: Path, remote: str = "origin") -> str:
    """The default branch of a remote (what `origin/HEAD` points to), e.g. `main`."""
    prefix = f"refs/remotes/{remote}/"
    ref = run_git(repo, "symbolic-ref", "--quiet", f"{prefix}HEAD", check=False).strip()
    if not ref:
        run_git(repo, "remote", "set-head", remote, "--auto", check=False)
        ref = run_git(repo, "symbolic-ref", "--quiet", f"{prefix}HEAD", check=False).strip()
    if not ref.startswith(prefix):
        raise GitError(f"cannot tell the default branch of {remote} in {repo}; pass --base-branch")
    return ref[len(prefix) :]


def rev_parse(repo: Path, rev: str) -> str | None:
    """The commit id `rev` names, or None when it names nothing."""
    out = run_git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    return out.strip() or None


def current_branch(repo: Path) -> str | None:
    return run_git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip() or None


def checkout(repo: Path, branch: str, start: str | None = None, *, detach: bool = False) -> None:
    """Switch to `branch`; with `start`, create it there first (never moves an existing one)."""
    if detach:
        run_git(repo, "checkout", "--quiet", "--detach", branch)
    elif start is None:
        run_git(repo, "checkout", "--quiet", branch)
    else:
        run_git(repo, "checkout", "--quiet", "--no-track", "-b", branch, start)


def discard_changes(repo: Path) -> list[str]:
    """Throw away uncommitted changes to tracked files (not the branch); return their paths.

    Untracked files (a validator's cache, say) are left alone: an apply only edits pages.
    """
    status = run_git(repo, "status", "--porcelain", "--untracked-files=no")
    dirty = [line[3:] for line in status.splitlines() if line]
    if dirty:
        run_git(repo, "reset", "--quiet", "--hard", "HEAD")
    return dirty


def commit_paths(repo: Path, paths: list[str], message: str) -> str:
    """Stage `paths`, commit with `message` and return the new commit id."""
    run_git(repo, "add", "--", *paths)
    identity: tuple[str, ...] = ()
    if not run_git(repo, "config", "user.email", check=False).strip():
        identity = FALLBACK_IDENTITY  # a fresh machine: commit anyway, under a clear name
    run_git(repo, *identity, "commit", "--quiet", "--no-verify", "-F", "-", input=message)
    return run_git(repo, "rev-parse", "HEAD").strip()


def commits_in(repo: Path, revs: str) -> list[tuple[str, str]]:
    """(commit id, full message) of every commit in the range `revs`, oldest first."""
    out = run_git(repo, "log", "--reverse", "--format=%H%x1f%B%x1e", revs)
    found = []
    for record in out.split("\x1e"):
        sha, _, message = record.strip("\n").partition("\x1f")
        if sha:
            found.append((sha, message))
    return found


def replay(repo: Path, commits: list[str]) -> bool:
    """Cherry-pick `commits` onto the checked-out branch in order, keeping their authors;
    False (and nothing applied: the branch is where it was) when one does not apply."""
    start = run_git(repo, "rev-parse", "HEAD").strip()
    identity: tuple[str, ...] = ()
    if not run_git(repo, "config", "user.email", check=False).strip():
        identity = FALLBACK_IDENTITY
    for sha in commits:
        done = run_git(repo, *identity, "cherry-pick", "--allow-empty", "--keep-redundant-commits", sha, check=False, code=True)  # fmt: skip
        if done != "0":
            run_git(repo, "cherry-pick", "--abort", check=False)
            run_git(repo, "reset", "--quiet", "--hard", start)
            return False
    return True


def commit_messages(repo: Path, rev: str, grep: str) -> list[tuple[str, str]]:
    """(commit id, full message) of every commit reachable from `rev` whose message has `grep`."""
    out = run_git(repo, "log", "--format=%H%x1f%B%x1e", "--fixed-strings", f"--grep={grep}", rev)
    commits = []
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if record:
            sha, _, message = record.partition("\x1f")
            commits.append((sha.strip(), message))
    return commits


def local_branches(repo: Path, pattern: str) -> list[str]:
    out = run_git(repo, "for-each-ref", "--format=%(refname:short)", f"refs/heads/{pattern}")
    return sorted(line for line in out.splitlines() if line)


def is_ancestor(repo: Path, ancestor: str, descendant: str) -> bool:
    done = run_git(
        repo, "merge-base", "--is-ancestor", ancestor, descendant, check=False, code=True
    )
    return done == "0"


def push(repo: Path, url: str, branch: str) -> None:
    """Push `branch` to the same name at `url` (fast-forward only: never forced).

    A rejection carries the remote's own reason: every `remote:` line (a pre-receive hook's
    output) and the rejected ref's status, not only git's last line.
    """
    _push(repo, url, f"refs/heads/{branch}:refs/heads/{branch}", (), branch)


def push_lease(repo: Path, url: str, rev: str, branch: str, expect: str | None) -> None:
    """Put `rev` at `branch` on `url`, replacing what is there only when it is still `expect`
    (None: the branch must not exist yet): a rebuilt branch of the bot's own, never anyone
    else's work. A rejection carries the remote's reason, as `push` does."""
    lease = f"--force-with-lease=refs/heads/{branch}:{expect or ''}"
    _push(repo, url, f"{rev}:refs/heads/{branch}", (lease,), branch)


def _push(repo: Path, url: str, refspec: str, flags: tuple[str, ...], branch: str) -> None:
    done = _run(repo, ("push", "--porcelain", *flags, url, refspec), None)
    if done.returncode == 0:
        return
    stderr = done.stderr.decode("utf-8", "replace").splitlines()
    stdout = done.stdout.decode("utf-8", "replace").splitlines()
    remote = [line[len("remote:") :].strip() for line in stderr if line.startswith("remote:")]
    refused = [line.split("\t")[-1].strip() for line in stdout if line.startswith("!")]
    last = [line.strip() for line in stderr if line.strip() and not line.startswith("remote:")]
    parts = (
        [text for text in remote if text][:20] + refused[:1] + (last[-1:] if not refused else [])
    )
    detail = " | ".join(parts) or f"exit code {done.returncode}"
    raise GitError(f"git push of {branch} failed in {repo}: {detail[:2000]}")


def fetch_branch(repo: Path, url: str, branch: str) -> str | None:
    """Fetch `branch` from `url`; its commit id, or None when the remote has no such branch."""
    out = run_git(repo, "ls-remote", "--heads", url, f"refs/heads/{branch}", check=False)
    if not out.strip():
        return None
    run_git(repo, "fetch", "--quiet", url, f"refs/heads/{branch}")
    return out.split()[0]


def show_stat(repo: Path, rev: str) -> str:
    return run_git(repo, "show", "--stat", "--format=commit %H%n%n    %s%n", rev)


# --- reading other branches and building commits without a work tree (issue #25) ----------


def remote_heads(repo: Path, url: str, pattern: str) -> dict[str, str]:
    """Branch name -> commit id of every branch of `url` matching `pattern` (`ls-remote`)."""
    out = run_git(repo, "ls-remote", "--heads", url, f"refs/heads/{pattern}")
    heads = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            heads[ref[len("refs/heads/") :]] = sha.strip()
    return heads


def fetch_refs(repo: Path, url: str, refspecs: list[str]) -> None:
    """Fetch `refspecs` (`+src:dst`) from `url`; no refspec, no call."""
    if refspecs:
        run_git(repo, "fetch", "--quiet", "--no-tags", url, *refspecs)


def merge_base(repo: Path, a: str, b: str) -> str | None:
    return run_git(repo, "merge-base", a, b, check=False).strip() or None


def changed_paths(repo: Path, base: str, head: str, under: str) -> list[tuple[str, str]]:
    """(status letter, path) of every file under `under` that `head` changes against `base`."""
    out = run_git(repo, "diff", "--name-status", "--no-renames", "-z", base, head, "--", under)
    fields = [f for f in out.split("\0") if f]
    return list(zip(fields[0::2], fields[1::2], strict=False))


def file_at(repo: Path, rev: str, path: str) -> bytes | None:
    """The bytes of `path` at `rev`, or None when it has no such file."""
    done = _run(repo, ("cat-file", "blob", f"{rev}:{path}"), None)
    return done.stdout if done.returncode == 0 else None


def clean_untracked(repo: Path, under: str) -> list[str]:
    """Remove untracked files under `under` (not ignored ones: caches stay); their paths."""
    out = run_git(repo, "clean", "-f", "-d", "--", under)
    return [line[len("Removing ") :] for line in out.splitlines() if line.startswith("Removing ")]


def reset_branch(repo: Path, branch: str, rev: str) -> None:
    """Check out `branch` at `rev`, creating or moving it (the bot's own branch)."""
    run_git(repo, "checkout", "--quiet", "--no-track", "-B", branch, rev)


def commit_files(
    repo: Path, parent: str | None, folder: str, files: dict[str, bytes], message: str
) -> str:
    """A commit on top of `parent` whose `folder/` holds exactly `files` (name -> bytes), the
    rest of the parent's tree kept; made with plumbing, no work tree or index touched."""
    entries = []
    for name, data in sorted(files.items()):
        blob = run_git(repo, "hash-object", "-w", "--stdin", input=data.decode("utf-8")).strip()
        entries.append(f"100644 blob {blob}\t{name}")
    subtree = run_git(repo, "mktree", input="\n".join(entries) + "\n" if entries else "").strip()
    kept = []
    if parent:
        for line in run_git(repo, "ls-tree", "-z", parent).split("\0"):
            if line and line.split("\t", 1)[-1] != folder:
                kept.append(line)
    kept.append(f"040000 tree {subtree}\t{folder}")
    tree = run_git(repo, "mktree", input="\n".join(sorted(kept, key=_tree_order)) + "\n").strip()
    identity: tuple[str, ...] = ()
    if not run_git(repo, "config", "user.email", check=False).strip():
        identity = FALLBACK_IDENTITY
    args = [*identity, "commit-tree", tree, *(["-p", parent] if parent else [])]
    return run_git(repo, *args, input=message).strip()


def _tree_order(line: str) -> str:
    return line.split("\t", 1)[-1]


# --- history (the report's trend) -----------------------------------------------------------


def first_parent_history(repo: Path) -> list[tuple[str, int]]:
    """(commit id, committer time in Unix seconds) along HEAD's first parents, newest first;
    empty outside a work tree or before the first commit."""
    done = _run(repo, ("log", "--first-parent", "--format=%H %ct", "HEAD"), None)
    if done.returncode != 0:
        return []
    out = []
    for line in done.stdout.decode("ascii", "replace").splitlines():
        sha, _, stamp = line.partition(" ")
        if len(sha) >= 40 and stamp.isdigit():
            out.append((sha, int(stamp)))
    return out


def path_prefix(repo: Path) -> str:
    """Where `repo` sits inside its work tree (`sub/dir/`, or empty at the top)."""
    return run_git(repo, "rev-parse", "--show-prefix").strip()


def object_id(repo: Path, rev: str, path: str) -> str | None:
    """The id of the tree or blob at `path` (from the work tree's top) in commit `rev`."""
    out = run_git(repo, "rev-parse", "--verify", "--quiet", f"{rev}:{path}", check=False)
    return out.strip() or None


def archive_tree(repo: Path, tree: str, out: Path, paths: tuple[str, ...] = ()) -> None:
    """Write a tar archive of the tree object `tree` (its files at the archive's top), or of
    only `paths` in it, to the file `out`."""
    done = _run(repo, ("archive", "--format=tar", "-o", str(out), tree, "--", *paths), None)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git archive failed in {repo}: {detail[-1] if detail else done.returncode}")


def tree_changes(repo: Path, old: str, new: str) -> list[tuple[str, str, str]]:
    """(status A/M/D/T, new mode, path) of every file that differs between two tree objects."""
    done = _run(repo, ("diff-tree", "-r", "-z", "--no-renames", old, new), None)
    if done.returncode != 0:
        raise GitError(f"git diff-tree failed in {repo} for {old[:12]}..{new[:12]}")
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    out = []
    for head, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = head.split()
        if len(parts) == 5 and path:
            out.append((parts[4][:1], parts[1], path))
    return out


def blob(repo: Path, object_id: str) -> bytes:
    """The bytes of a blob."""
    done = _run(repo, ("cat-file", "blob", object_id), None)
    if done.returncode != 0:
        raise GitError(f"git cat-file failed in {repo} for {object_id}")
    return done.stdout
