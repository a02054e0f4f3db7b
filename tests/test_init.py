"""`kb init`: a green starting tree, idempotent, never replacing what the user wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kbkit import __version__
from kbkit.policy.scaffold import HOOK_REPO
from tests.gitrepo import commit_files, git, init_repo

PROJECT = Path(__file__).resolve().parents[1]


def kb(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], cwd=repo, capture_output=True, text=True
    )


def new_repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def snapshot(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


@pytest.mark.slow
def test_init_writes_a_tree_that_passes_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    done = kb(repo, "init")
    assert done.returncode == 0, done.stderr
    for rel in (
        "knowledge/policy.yaml",
        "knowledge/_index.md",
        "knowledge/general/_index.md",
        "knowledge/repos/_index.md",
        ".gitattributes",
        ".gitignore",
        ".pre-commit-config.yaml",
    ):
        assert f"created {rel}" in done.stdout
    assert "intake/*.jsonl merge=union" in (repo / ".gitattributes").read_text()
    assert ".kbkit-cache/" in (repo / ".gitignore").read_text()
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    hook_repo = config["repos"][0]
    # no forge here: the tag cannot be resolved, so the hook is the local one, and it says so
    assert hook_repo["repo"] == "local" and hook_repo["hooks"][0]["entry"] == "kb check --staged"
    assert f"v{__version__} does not resolve at {HOOK_REPO}" in done.stderr
    assert kb(repo, "check").returncode == 0
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    assert kb(repo, "check", "--staged").returncode == 0  # the commit's tree is green too
    before = snapshot(repo)
    again = kb(repo, "init")
    assert again.returncode == 0 and "created" not in again.stdout and "added" not in again.stdout
    assert snapshot(repo) == before


def test_init_never_replaces_the_users_files(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    (repo / "knowledge").mkdir()
    (repo / "knowledge" / "policy.yaml").write_text("version: 1\n# mine\n")
    (repo / ".gitignore").write_text("node_modules/")  # no final newline
    own_config = "repos:\n  - repo: local\n    hooks: []\n"
    (repo / ".pre-commit-config.yaml").write_text(own_config)
    done = kb(repo, "init")
    assert done.returncode == 0
    assert "kept    knowledge/policy.yaml" in done.stdout
    assert (repo / "knowledge" / "policy.yaml").read_text() == "version: 1\n# mine\n"
    ignore = (repo / ".gitignore").read_text().splitlines()
    assert ignore[0] == "node_modules/" and "state/" in ignore
    assert (repo / ".pre-commit-config.yaml").read_text() == own_config
    assert "add kbkit's hook under `repos:` yourself" in done.stdout
    assert "- id: kb-check" in done.stdout


def test_init_local_hook_is_one_pre_commit_installs_itself(tmp_path: Path) -> None:
    """The local hook does not rely on `kb` being on PATH (a GUI client's PATH has none):
    pre-commit installs kbkit into the hook's own environment, from where this kbkit came
    from, or from `--hook-source` (a folder becomes a file: URL)."""
    repo = new_repo(tmp_path / "r")
    assert kb(repo, "init", "--local-hook", "--hook-source", str(PROJECT)).returncode == 0
    hook = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())["repos"][0]
    assert hook["repo"] == "local"
    assert hook["hooks"][0]["entry"] == "kb check --staged"
    assert hook["hooks"][0]["language"] == "python"
    assert hook["hooks"][0]["additional_dependencies"] == [f"kbkit-knowledge @ {PROJECT.as_uri()}"]


def test_the_local_hook_installs_kbkit_from_where_it_came(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from kbkit.policy import scaffold

    class Installed:
        def __init__(self, direct_url: str | None) -> None:
            self.direct_url = direct_url

        def read_text(self, name: str) -> str | None:
            return self.direct_url if name == "direct_url.json" else None

    cases = {
        '{"url": "https://github.com/kbkit-dev/kbkit", "vcs_info": {"vcs": "git", '
        '"commit_id": "abc123"}}': "kbkit-knowledge @ git+https://github.com/kbkit-dev/kbkit@abc123",
        '{"url": "file:///home/ann/kbkit", "dir_info": {}}': "kbkit-knowledge @ file:///home/ann/kbkit",
        None: f"kbkit-knowledge=={__version__}",
    }
    for direct_url, spec in cases.items():
        monkeypatch.setattr(metadata, "distribution", lambda name, d=direct_url: Installed(d))
        assert scaffold.install_spec() == spec
        assert f'additional_dependencies: ["{spec}"]' in scaffold.hook_config(local=True)


@pytest.mark.slow
def test_init_from_a_subdirectory_sets_up_the_git_top(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    (repo / "src" / "deep").mkdir(parents=True)
    assert kb(repo / "src" / "deep", "init").returncode == 0
    assert (repo / "knowledge" / "policy.yaml").is_file()
    assert not (repo / "src" / "deep" / "knowledge").exists()


@pytest.mark.slow
def test_init_infers_a_policy_from_existing_pages_and_adds_no_page(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    pages = {
        "knowledge/guides/README.md": "---\ntitle: Guides\ntype: index\ntags: [guides]\n---\n"
        "# Guides\n\n- [Deploy](deploy.md)\n",
        "knowledge/guides/deploy.md": "---\ntitle: Deploy\ntype: guide\ntags: [deploy, ops]\n"
        "owner: me\n---\n# Deploy\n",
        "knowledge/teams/README.md": "---\ntitle: Teams\ntype: index\ntags: [teams]\n---\n# T\n",
        "knowledge/notes.md": "no frontmatter here\n",
    }
    for rel, text in pages.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    done = kb(repo, "init")
    assert done.returncode == 0, done.stderr
    assert "created knowledge/policy.yaml (inferred from 4 existing page(s))" in done.stdout
    policy = yaml.safe_load((repo / "knowledge" / "policy.yaml").read_text())
    assert policy["roots"] == ["guides", "teams"]
    assert policy["index_page"] == "README.md"
    assert policy["frontmatter"]["required"] == ["tags", "title", "type"]  # owner: 1 of 3
    assert policy["frontmatter"]["types"] == ["guide", "index"]
    assert policy["taxonomy"]["tags"] == ["deploy", "guides", "ops", "teams"]
    assert not (repo / "knowledge" / "_index.md").exists()  # the tree is the team's
    assert not (repo / "knowledge" / "general").exists()
    checked = kb(repo, "check", "--format", "json")
    assert checked.returncode in (0, 1), checked.stderr  # the policy loads: no usage error
    rules = {f["rule"] for f in json.loads(checked.stdout)["findings"]}
    assert not {"lint/tag-unknown", "lint/type-invalid", "tree/root-missing"} & rules
    before = snapshot(repo)
    assert "created" not in kb(repo, "init").stdout and snapshot(repo) == before


@pytest.mark.slow
def test_init_root_sets_up_a_docs_tree_the_team_already_has(tmp_path: Path) -> None:
    """`--root docs`: the policy goes beside the tree and names it, so every command finds
    it; the team's pages get an inferred policy and no starting page."""
    repo = new_repo(tmp_path / "r")
    (repo / "docs/guides").mkdir(parents=True)
    (repo / "docs/guides/deploy.md").write_text("---\ntitle: Deploy\ntags: [ops]\n---\n# D\n")
    done = kb(repo, "init", "--root", "docs", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert "created docs/policy.yaml (inferred from 1 existing page(s))" in done.stdout
    policy = yaml.safe_load((repo / "docs/policy.yaml").read_text())
    assert policy["knowledge_root"] == "docs" and policy["roots"] == ["guides"]
    assert not (repo / "knowledge").exists() and not (repo / "docs/_index.md").exists()
    checked = kb(repo, "check", "--format", "json")
    assert checked.returncode in (0, 1), checked.stderr
    assert "no policy file found" not in checked.stderr  # docs/policy.yaml is the policy
    paths = {f["path"] for f in json.loads(checked.stdout)["findings"]}
    assert paths and all(p.startswith("docs/") for p in paths)  # the docs tree is checked


@pytest.mark.slow
def test_init_root_on_a_flat_docs_tree_checks_every_page(tmp_path: Path) -> None:
    """A docs folder whose pages all sit at its top (no subfolder): the knowledge root itself
    is the root, so every page is checked (a leaked token too) and no missing
    general/ or repos/ root is reported; the first check is printed."""
    repo = new_repo(tmp_path / "r")
    (repo / "docs").mkdir()
    (repo / "docs/index.md").write_text("---\ntitle: Home\n---\n# Home\n\n[g](guide.md)\n")
    (repo / "docs/guide.md").write_text(
        "---\ntitle: Guide\n---\n# Guide\n\nghp_R8fK2mQz7LxW4nVb9TcY3hJd6GsP1aEo5uNi\n"
    )
    done = kb(repo, "init", "--root", "docs", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert "created docs/policy.yaml (inferred from 2 existing page(s))" in done.stdout
    assert "kb check on docs/ (2 page(s))" in done.stdout
    assert yaml.safe_load((repo / "docs/policy.yaml").read_text())["roots"] == ["."]
    checked = kb(repo, "check", "--format", "json")
    assert checked.returncode == 1, checked.stderr
    found = {(f["path"], f["rule"]) for f in json.loads(checked.stdout)["findings"]}
    assert found == {("docs/guide.md", "tree/secret-token")}


@pytest.mark.slow
def test_init_root_infers_from_a_tree_with_its_own_root_index_and_no_tags(
    tmp_path: Path,
) -> None:
    """Most docs trees have a root index: that is no earlier `kb init` run. The team's
    folders become the roots and are checked; a tree that uses no tags needs no taxonomy."""
    repo = new_repo(tmp_path / "r")
    (repo / "docs/guide").mkdir(parents=True)
    (repo / "docs/_index.md").write_text(
        '---\ntitle: "Start"\n---\n# Start\n\n[g](guide/_index.md)\n'
    )
    (repo / "docs/guide/_index.md").write_text('---\ntitle: "Guide"\n---\n# Guide\n\n- [a](a.md)\n')
    (repo / "docs/guide/a.md").write_text('---\ntitle: "A"\n---\n# A\n\n[gone](gone.md)\n')
    done = kb(repo, "init", "--root", "docs", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert "created docs/policy.yaml (inferred from 3 existing page(s))" in done.stdout
    assert not (repo / "docs/general").exists() and not (repo / "docs/repos").exists()
    policy = yaml.safe_load((repo / "docs/policy.yaml").read_text())
    assert policy["roots"] == ["guide"]
    checked = kb(repo, "check", "--format", "json")
    findings = json.loads(checked.stdout)["findings"]
    assert [(f["path"], f["rule"]) for f in findings] == [
        ("docs/guide/a.md", "tree/link-broken")
    ]  # the team's pages are checked, and nothing asks for a taxonomy nobody needs


@pytest.mark.slow
def test_init_infers_an_obsidian_vault_linked_by_name_without_index_pages(
    tmp_path: Path,
) -> None:
    """A vault: no folder has an index page, pages link by `[[name]]` in any letter case
    and by alias. The inferred policy says so, and the first check reports no page as
    orphaned or unregistered for linking the way the vault does."""
    repo = new_repo(tmp_path / "r")
    pages = {
        "vault/Start here.md": "# Start\n\nSee [[getting started]] and [[Sync|syncing]].\n",
        "vault/Basics/Getting started.md": "# Getting started\n\nThen [[Settings]].\n",
        "vault/Basics/Settings.md": "---\naliases: [prefs]\n---\n# Settings\n\n[[start here]]\n",
        "vault/Sync/Sync.md": "# Sync\n\nSee [[prefs]] and ![[diagram.png]].\n",
    }
    for rel, text in pages.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "vault/Sync/diagram.png").write_bytes(b"\x89PNG")
    done = kb(repo, "init", "--root", "vault", "--local-hook")
    assert done.returncode == 0, done.stderr
    policy = yaml.safe_load((repo / "vault/policy.yaml").read_text())
    assert policy["index"] == {"model": "none"} and "index_page" not in policy
    assert policy["links"] == {"wikilinks": True, "case_insensitive": True, "aliases": True}
    checked = kb(repo, "check", "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["summary"]["pages"] == 3  # the pages below a root


@pytest.mark.slow
def test_init_infers_site_root_links_to_the_html_a_middleman_page_builds(
    tmp_path: Path,
) -> None:
    """A Middleman site: `x.html.md` pages linked from the site's root as `/x.html` or
    `/x`. The inferred policy resolves both, so none is absolute or broken."""
    repo = new_repo(tmp_path / "r")
    pages = {
        "source/manual/a.html.md": "# A\n\n[b](/manual/b.html) and [b again](/manual/b).\n",
        "source/manual/b.html.md": "# B\n\n[a](/manual/a.html#top) [gone](/manual/gone.html)\n",
    }
    for rel, text in pages.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    assert kb(repo, "init", "--root", "source", "--local-hook").returncode == 0
    text = (repo / "source/policy.yaml").read_text()
    assert "? ''" not in text  # an empty key written as a plain `'':`
    links = yaml.safe_load(text)["links"]
    assert links == {
        "site_root": ".",
        "extensions": {".html": [".html.md", ".md"], "": [".html.md", ".md"]},
    }
    checked = kb(repo, "check", "--format", "json")
    found = {(f["rule"], f["line"]) for f in json.loads(checked.stdout)["findings"]}
    assert ("tree/link-broken", 3) in found  # /manual/gone.html is really missing
    assert not {rule for rule, _ in found} & {"tree/link-absolute"}
    assert len([rule for rule, _ in found if rule == "tree/link-broken"]) == 1


@pytest.mark.slow
def test_init_root_on_an_empty_folder_writes_a_green_starting_tree(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    done = kb(repo, "init", "--root", "handbook", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert (repo / "handbook/general/_index.md").is_file()
    assert "knowledge_root: handbook\n" in (repo / "handbook/policy.yaml").read_text()
    checked = kb(repo, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
@pytest.mark.parametrize("root", ["../x", "a/b", ".hidden", "", "on off"])
def test_init_root_must_name_one_top_level_folder(tmp_path: Path, root: str) -> None:
    repo = new_repo(tmp_path / "r")
    done = kb(repo, "init", "--root", root)
    assert done.returncode == 2 and "name one folder at the top" in done.stderr
    assert "Traceback" not in done.stderr and sorted(p.name for p in repo.iterdir()) == [".git"]


@pytest.mark.slow
def test_init_finds_the_site_generator_and_writes_its_profile(tmp_path: Path) -> None:
    """An mdBook: no --root, no knowledge/ scaffold; kbkit.yaml names the profile and the
    book's src folder, and the first check's leftovers are printed in plain words."""
    repo = new_repo(tmp_path / "r")
    (repo / "book.toml").write_text('[book]\ntitle = "B"\nsrc = "chapters"\n')
    (repo / "chapters").mkdir()
    (repo / "chapters/SUMMARY.md").write_text("# Summary\n\n- [One](one.md)\n")
    (repo / "chapters/one.md").write_text("# One\n\n[two](two.html)\n")
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 0, done.stderr
    assert "created kbkit.yaml (mdBook, book.toml: 2 page(s) under chapters/" in done.stdout
    policy = yaml.safe_load((repo / "kbkit.yaml").read_text())
    assert policy == {"version": 1, "extends": "mdbook", "knowledge_root": "chapters"}
    assert not (repo / "knowledge").exists()
    assert "leaves 1 finding(s)" in done.stdout
    assert "1  a relative link points to nothing (tree/link-broken)" in done.stdout
    assert "synthesized" not in done.stdout
    (repo / "chapters/two.md").write_text("# Two\n")
    (repo / "chapters/SUMMARY.md").write_text("# Summary\n\n- [One](one.md)\n- [Two](two.md)\n")
    assert kb(repo, "check").returncode == 0
    before = snapshot(repo)
    assert "created" not in kb(repo, "init").stdout and snapshot(repo) == before


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "profile", "root"),
    [
        (
            {"mkdocs.yml": "site_name: S\ndocs_dir: site-docs\n", "site-docs/index.md": "# I\n"},
            "mkdocs",
            "site-docs",
        ),
        (
            {
                "reference/docfx.json": '{"build": {"content": [{"files": ["**/*.md"],}]}}',
                "reference/index.md": "# I\n",
                "reference/toc.yml": "items:\n  - href: index.md\n",
            },
            "docfx",
            "reference",
        ),
        (
            {"docusaurus.config.js": "module.exports = {};\n", "docs/intro.md": "# Intro\n"},
            "docusaurus",
            "docs",
        ),
        (
            {"hugo.toml": "baseURL = 'https://x.example/'\n", "content/_index.md": "# Home\n"},
            "hugo",
            "content",
        ),
        ({"docs/index.md": "# Docs\n"}, "public-docs", "docs"),
        (  # a book one folder down (rust-lang/mdBook's own guide/), its redirects beside it
            {
                "guide/book.toml": '[book]\ntitle = "G"\n[output.html.redirect]\n"a.html" = "b.html"\n',
                "guide/src/SUMMARY.md": "# Summary\n\n- [B](b.md)\n",
                "guide/src/b.md": "# B\n\n[old](a.html)\n",
            },
            "mdbook",
            "guide/src",
        ),
    ],
)
def test_init_detects_each_generator(
    tmp_path: Path, files: dict[str, str], profile: str, root: str
) -> None:
    repo = new_repo(tmp_path / "r")
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 0, done.stderr
    policy = yaml.safe_load((repo / "kbkit.yaml").read_text())
    assert (policy["extends"], policy["knowledge_root"]) == (profile, root)
    assert "kb check passes on" in done.stdout or "leaves" in done.stdout
    checked = kb(repo, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
def test_init_names_the_index_page_a_plain_docs_folder_uses(tmp_path: Path) -> None:
    """A docs/ folder built by no known generator, its folders' home pages `index.md`: the
    policy names that index page, so a home page no page links to is no orphan, and the
    policy is block YAML that loads (a scalar key once came out as `{index_page: ...}`)."""
    repo = new_repo(tmp_path / "r")
    (repo / "docs/guide").mkdir(parents=True)
    (repo / "docs/index.md").write_text("# Docs\n\n[guide](guide/index.md)\n")
    (repo / "docs/guide/index.md").write_text("# Guide\n\n[setup](setup.md)\n")
    (repo / "docs/guide/setup.md").write_text("# Setup\n")
    (repo / "docs/guide/lost.md").write_text("# Lost\n")
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 0, done.stderr
    text = (repo / "kbkit.yaml").read_text()
    assert "\nindex_page: index.md\n" in text
    assert yaml.safe_load(text)["index_page"] == "index.md"
    checked = kb(repo, "check", "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    found = {(f["path"], f["rule"]) for f in json.loads(checked.stdout)["findings"]}
    assert found == {("docs/guide/lost.md", "lint/orphan")}  # the page nothing links to


def test_the_index_page_most_folders_hold_wins_ties_to_the_earlier_name(tmp_path: Path) -> None:
    from kbkit.sites.config import most_common_index

    for name, folder in (("index.md", "a"), ("README.md", "b"), ("README.md", "c")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text("# x\n")
    folders = [tmp_path / f for f in "abc"]
    assert most_common_index(folders) == "README.md"
    assert most_common_index(folders[:2]) == most_common_index(folders[1::-1]) == "index.md"
    assert most_common_index([tmp_path]) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "inserted"),
    [
        ("markdown_extensions:\n  - attr_list\n", False),
        ("markdown_extensions:\n  - pymdownx.snippets\n", True),
        ("markdown_extensions:\n  - mkdocs-click\n", True),
        ("plugins:\n  - mkdocstrings:\n      default_handler: python\n", True),
    ],
)
def test_init_reads_which_mkdocs_pages_can_pull_in_text(
    tmp_path: Path, config: str, inserted: bool
) -> None:
    """Pages of a site with snippets or an autodoc extension may take headings from text
    kbkit does not read; without one, every fragment is checked."""
    repo = new_repo(tmp_path / "r")
    (repo / "docs").mkdir()
    (repo / "docs/index.md").write_text("# Home\n")
    (repo / "mkdocs.yml").write_text("site_name: S\n" + config)
    assert kb(repo, "init", "--local-hook").returncode == 0
    policy = yaml.safe_load((repo / "kbkit.yaml").read_text())
    assert policy.get("links", {}).get("inserted_text", True) is inserted


@pytest.mark.slow
def test_init_turns_title_quoting_off_for_a_tree_that_never_quotes(tmp_path: Path) -> None:
    """A newcomer's docs/ with unquoted titles: the inferred policy must not fail them all."""
    repo = new_repo(tmp_path / "r")
    for name in ("a", "b", "c"):
        (repo / f"docs/guides/{name}.md").parent.mkdir(parents=True, exist_ok=True)
        (repo / f"docs/guides/{name}.md").write_text(f"---\ntitle: Page {name}\n---\n# {name}\n")
    (repo / "docs/guides/index.md").write_text(
        "---\ntitle: Guides\n---\n# Guides\n\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n"
    )
    assert kb(repo, "init", "--root", "docs", "--local-hook").returncode == 0
    policy = yaml.safe_load((repo / "docs/policy.yaml").read_text())
    assert policy["rules"]["lint/title-unquoted"] == "off"
    checked = kb(repo, "check", "--format", "json")
    rules = {f["rule"] for f in json.loads(checked.stdout)["findings"]}
    assert "lint/title-unquoted" not in rules


@pytest.mark.slow
def test_init_pins_only_a_rev_that_resolves(tmp_path: Path) -> None:
    hooks = init_repo(tmp_path / "kbkit-hooks")
    commit_files(hooks, {".pre-commit-hooks.yaml": "[]\n"}, "hooks")
    git(hooks, "tag", "v9.9.9")
    pinned = new_repo(tmp_path / "pinned")
    done = kb(pinned, "init", "--hook-repo", str(hooks), "--hook-rev", "v9.9.9")
    assert done.returncode == 0 and "does not resolve" not in done.stderr
    config = yaml.safe_load((pinned / ".pre-commit-config.yaml").read_text())
    assert config["repos"][0] == {
        "repo": str(hooks),
        "rev": "v9.9.9",
        "hooks": [{"id": "kb-check"}],
    }
    missing = new_repo(tmp_path / "missing")
    done = kb(missing, "init", "--hook-repo", str(hooks), "--hook-rev", "v0.0.1")
    assert done.returncode == 0
    assert f"v0.0.1 does not resolve at {hooks}" in done.stderr
    config = yaml.safe_load((missing / ".pre-commit-config.yaml").read_text())
    assert config["repos"][0]["repo"] == "local"
