"""What `kb init` writes into a repository: a starting tree, a policy, git attributes and
ignores, and a pre-commit hook. Files are created only when absent and line files only get
the lines they miss, so a second run changes nothing and nothing of the user's is replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import NamedTuple

from kbkit import __version__
from kbkit.infra import boundary
from kbkit.policy.inference import infer_policy, policy_text
from kbkit.sites import Site, detect_site, unread_site

HOOK_REPO = "https://github.com/kbkit-dev/kbkit"

DEFAULT_ROOT = "knowledge"
POLICY = """\
# kbkit policy of this repository (written by `kb init`). Every key not set here comes from
# kbkit's built-in `default` profile; `kb rules` lists what is checked and
# `kb rule RULE-ID` explains one rule.
version: 1

taxonomy:
  # A page may only use tags listed here: add a tag in the change that first needs it.
  tags: [general, knowledge, repos]
"""

PAGE = """\
---
title: "{title}"
created: {today}
updated: {today}
type: index
tags: [{tags}]
sources: []
---

# {title}

{body}
"""

ROOT_BODY = """\
This repository's engineering knowledge, checked by kbkit on every commit.

- [General](general/_index.md): practices that hold in any repository.
- [Repositories](repos/_index.md): one owner folder per repository.
"""
GENERAL_BODY = "Practices that hold in any repository: how to write, review and run things.\n"
REPOS_BODY = "One folder per repository (`repos/<repo>/_index.md`), each linked from this page.\n"

GITATTRIBUTES = [
    "# kbkit ledgers are append-only logs: a union merge keeps both sides' lines",
    "intake/*.jsonl merge=union",
    "intake/lessons/*.jsonl merge=union",
]
GITIGNORE = [
    "# kbkit local state, caches and locks",
    "state/",
    ".kbkit-cache/",
    ".kbkit-journal/",
    ".kbkit-locks/",
    "intake/lessons/.index/",
]


DISTRIBUTION = "kbkit-knowledge"


def install_spec() -> str:
    """How pip installs this kbkit again, as a requirement pre-commit can put in a hook's own
    environment: where it was installed from (a git URL at its commit, a checkout, a wheel),
    read from the installation's `direct_url.json` (PEP 610); a checkout kbkit runs from
    without being installed; else the published name at this version."""
    from importlib import metadata

    from kbkit.infra.json_input import loads

    try:
        raw = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        raw = None
        checkout = Path(__file__).resolve().parents[3]
        if (checkout / "pyproject.toml").is_file() and (checkout / "tools" / "kbkit").is_dir():
            return f"{DISTRIBUTION} @ {checkout.as_uri()}"
    try:
        direct = loads(raw) if raw else {}
    except ValueError:
        direct = {}
    url = direct.get("url") if isinstance(direct, dict) else None
    if isinstance(url, str) and url:
        vcs = direct.get("vcs_info")
        if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
            return f"{DISTRIBUTION} @ git+{url}@{vcs['commit_id']}"
        if url.startswith("file:"):
            return f"{DISTRIBUTION} @ {url}"
    return f"{DISTRIBUTION}=={__version__}"


def hook_config(
    repo: str = HOOK_REPO,
    rev: str = f"v{__version__}",
    local: bool = False,
    source: str | None = None,
) -> str:
    """The pre-commit configuration (or the entry to add) that runs `kb check --staged`.
    The local hook is one pre-commit installs itself (`language: python`, kbkit from
    `source`, by default where this kbkit was installed from), so it works from any shell or
    GUI client, with no `kb` on PATH."""
    if local:
        spec = source if source is not None else install_spec()
        return (
            "repos:\n"
            "  - repo: local\n"
            "    hooks:\n"
            "      - id: kb-check\n"
            "        name: kb check\n"
            "        entry: kb check --staged\n"
            "        language: python\n"
            f"        additional_dependencies: [{_yaml_string(spec)}]\n"
            "        pass_filenames: false\n"
            "        always_run: true\n"
            "        verbose: true  # show warnings on a commit that passes too\n"
        )
    return f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: kb-check\n"


def _yaml_string(text: str) -> str:
    """`text` as a double-quoted YAML scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Step(NamedTuple):
    path: str  # repo-relative
    action: str  # created, kept, added N line(s), print
    detail: str = ""


def _create(repo: Path, rel: str, text: str) -> Step:
    target = repo / rel
    boundary.confine(repo, target, "the file", repo=repo)
    if target.exists() or target.is_symlink():
        return Step(rel, "kept")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as handle:  # never replaces a file
        handle.write(text)
    return Step(rel, "created")


def _add_lines(repo: Path, rel: str, lines: list[str]) -> Step:
    target = boundary.confine(repo, repo / rel, "the file", repo=repo)
    existing = target.read_text("utf-8").splitlines() if target.exists() else []
    present = {line.strip() for line in existing}
    missing = [line for line in lines if line.strip() not in present]
    if not [line for line in missing if not line.startswith("#")]:
        return Step(rel, "kept")
    text = target.read_text("utf-8") if target.exists() else ""
    lead = "" if not text or text.endswith("\n") else "\n"
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(lead + ("\n" if text else "") + "\n".join(missing) + "\n")
    added = len([line for line in missing if not line.startswith("#")])
    return Step(rel, "created" if not text else f"added {added} line(s) to")


def initialize(
    repo: Path, today: date, hook: str, root: str = DEFAULT_ROOT, detect: bool = False
) -> list[Step]:
    """Write what is missing; return one step per file (created, kept, added, print).
    `root` is the knowledge root, a folder at the top of `repo` (a docs tree of the team's
    own): its policy then says `knowledge_root: <root>`, which is how kbkit finds it.
    With `detect` (no root was asked for), docs a site generator builds are set up as the
    generator reads them (`kbkit.sites.config`): `kbkit.yaml` at the top names the
    generator's profile and docs folder, and no starting tree is written."""
    # The repository is the boundary (`kbkit.infra.boundary`): a knowledge root, a docs
    # folder a generator's config names (`docs_dir: ../x`) or a file written that leads
    # outside is refused (exit 2) before anything is read below it or written.
    _confine(repo, [root] if root != "." else [], REPOSITORY_FILES)
    site = _site(repo, root, detect)
    if site is not None:
        boundary.knowledge_top(repo, site.root, site.config)
        _confine(repo, [site.root], [TOP_POLICY])
        return [_site_policy(repo, site), *_repository_files(repo, hook)]
    unread = unread_site(repo) if detect and not (repo / root / "policy.yaml").exists() else None
    notes = (
        []
        if unread is None
        else [Step(unread[0], "found", f"{unread[1]}: {root}/ is set up instead")]
    )
    pages = [
        (f"{root}/_index.md", "Knowledge", "knowledge", ROOT_BODY),
        (f"{root}/general/_index.md", "General", "general, knowledge", GENERAL_BODY),
        (f"{root}/repos/_index.md", "Repositories", "repos, knowledge", REPOS_BODY),
    ]
    top = repo / root
    policy_file = f"{root}/policy.yaml"
    named = {} if root == DEFAULT_ROOT else {"knowledge_root": root}
    # A tree of the team's own gets a policy inferred from it and no page. The starting
    # pages go into a tree without pages below a top folder (nothing to infer the roots
    # from; a root index of the team's own is kept), or one that has some of them and its
    # policy (an earlier run). A root index is no sign of an earlier run: most trees have one.
    ours = any((repo / rel).exists() for rel, *_ in pages)
    found = None if (top / "policy.yaml").exists() else infer_policy(top)
    if found is not None and "roots" not in found[0]:
        found = None
    if found is not None:
        policy, count = found
        policy = {"version": policy.pop("version"), **named, **policy}
        step = _create(repo, policy_file, policy_text(policy, count))
        steps = [step._replace(detail=f"inferred from {count} existing page(s)")]
    else:
        text = (
            POLICY.replace("version: 1\n", f"version: 1\nknowledge_root: {root}\n")
            if named
            else POLICY
        )
        steps = [_create(repo, policy_file, text)]
    if found is None and (ours or not _has_pages(top)):
        for rel, title, tags, body in pages:
            text = PAGE.format(title=title, today=today.isoformat(), tags=tags, body=body)
            steps.append(_create(repo, rel, text))
    return [*notes, *steps, *_repository_files(repo, hook)]


REPOSITORY_FILES = (".gitattributes", ".gitignore", ".pre-commit-config.yaml")


def _confine(repo: Path, roots: list[str], files: Sequence[str]) -> None:
    """Refuse a knowledge root or a file `kb init` reads or writes that leads outside."""
    for root in roots:
        boundary.knowledge_top(repo, root)
    for rel in files:
        boundary.confine(repo, repo / rel, "the file", repo=repo)


def _repository_files(repo: Path, hook: str) -> list[Step]:
    """The git attributes and ignores, and the pre-commit hook (or the entry to add)."""
    steps = [_add_lines(repo, ".gitattributes", GITATTRIBUTES)]
    steps.append(_add_lines(repo, ".gitignore", GITIGNORE))
    config = repo / ".pre-commit-config.yaml"
    if not config.exists():
        steps.append(_create(repo, ".pre-commit-config.yaml", hook))
    elif "kb-check" in config.read_text("utf-8", errors="replace"):
        steps.append(Step(".pre-commit-config.yaml", "kept"))
    else:
        entry = hook.split("\n", 1)[1]  # the list item, to paste under `repos:`
        steps.append(Step(".pre-commit-config.yaml", "print", entry))
    return steps


def _site(repo: Path, root: str, detect: bool) -> Site | None:
    """The site generator whose docs to set up: without a root asked for (or with the
    generator's own docs folder asked for), unless an earlier run set up a knowledge tree."""
    if (repo / DEFAULT_ROOT / "policy.yaml").exists():
        return None
    if (repo / root / "policy.yaml").exists() and not (repo / TOP_POLICY).exists():
        return None
    site = detect_site(repo)
    if site is None or not (detect or site.root == root):
        return None
    if not detect and site.config.endswith("/"):
        return None  # a docs folder no generator builds, asked for by name: infer its policy
    return site


TOP_POLICY = "kbkit.yaml"


def site_policy_text(site: Site) -> str:
    """The policy `kb init` writes for a generator's docs: the profile, the root, the rest."""
    header = (
        f"# kbkit policy written by `kb init`: {site.generator} builds these docs "
        f"({site.config}), so they\n# are read as it reads them: the built-in profile "
        f"`{site.profile}` (`kb rules` lists what is checked).\n"
    )
    lines = [f"version: 1\nextends: {site.profile}\nknowledge_root: {_plain(site.root)}\n"]
    for key, value in site.keys.items():
        lines.append(policy_text({key: value}, 0).split("\n", 2)[2])
    return header + "".join(lines)


def _plain(value: str) -> str:
    """A folder name as YAML reads it back as text (`5.1` and `.` quoted)."""
    import yaml

    return value if yaml.safe_load(value) == value and value != "." else f"'{value}'"


def _site_policy(repo: Path, site: Site) -> Step:
    from kbkit.sites.coverage import coverage, words

    step = _create(repo, TOP_POLICY, site_policy_text(site))
    return step._replace(detail=words(site, coverage(repo, site)))


def _has_pages(top: Path) -> bool:
    return top.is_dir() and next(top.rglob("*.md"), None) is not None
