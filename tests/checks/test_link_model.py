"""Link options: a changed redirects file is seen by warm runs; a bad one is a usage error."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy

TODAY = date(2026, 11, 30)
CASE = Path(__file__).resolve().parents[1] / "cases/knowledge-tree/ok/link-model-options/repo"


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo)
    return repo


def broken(repo: Path) -> list[tuple[str, int]]:
    findings, _ = run_validators(repo, load_policy(repo), ("tree",), TODAY)
    return [(f.path, f.line) for f in findings if f.rule_id == "tree/link-broken"]


def test_a_warm_run_sees_a_changed_redirects_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    assert broken(repo) == []
    assert broken(repo) == []  # warm: answered from the snapshot
    redirects = repo / "config/redirects.yml"
    redirects.write_text(redirects.read_text().replace("/general/setup.html", "/general/nope.html"))
    assert broken(repo) == [("knowledge/general/setup.html.md", 3)]


def test_without_a_site_root_site_links_are_absolute(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy = repo / "knowledge/policy.yaml"
    policy.write_text(policy.read_text().replace("site_root: .", "site_root: null"))
    findings, _ = run_validators(repo, load_policy(repo), ("tree",), TODAY)
    assert {f.rule_id for f in findings} == {"tree/link-absolute"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("- a list\n", "must map old paths to new paths"),
        ("a: [unclosed\n", "redirects.yml:2: invalid redirects file YAML"),
    ],
)
def test_a_bad_redirects_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    repo = make_repo(tmp_path)
    (repo / "config/redirects.yml").write_text(text)
    code = main(["check-knowledge-tree", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 2 and "config/redirects.yml" in err and needle in err
    assert "Traceback" not in err


def test_a_site_root_may_not_leave_the_knowledge_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path)
    (repo / "knowledge/policy.yaml").write_text("links:\n  site_root: ../other\n")
    assert main(["check-knowledge-tree", "--repo", str(repo)]) == 2
    assert "links.site_root" in capsys.readouterr().err


def test_redirects_may_live_under_a_key_of_a_site_configuration(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    redirects = repo / "config/redirects.yml"
    nested = "title: the site\nredirects:\n" + "".join(
        f"  {line}\n" for line in redirects.read_text().splitlines()
    )
    (repo / "config/tech-docs.yml").write_text(nested)
    policy = repo / "knowledge/policy.yaml"
    policy.write_text(
        policy.read_text().replace(
            "redirects: config/redirects.yml",
            "redirects: config/tech-docs.yml\n  redirects_key: redirects",
        )
    )
    assert broken(repo) == []
    redirects.unlink()  # the old file is not what is read
    assert broken(repo) == []


@pytest.mark.parametrize(
    "site_root", ["", "site_root: .\n", "site_root: docs\n", "site_root: null\n"]
)
def test_has_site_root_answers_as_the_whole_link_model(tmp_path: Path, site_root: str) -> None:
    from kbkit.checks.link_model import has_site_root, link_model

    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge/policy.yaml").write_text(f"links:\n  {site_root}" if site_root else "")
    policy = load_policy(tmp_path)
    assert has_site_root(policy) == (link_model(policy).site_root is not None)
    assert has_site_root(policy) == (site_root not in ("", "site_root: null\n"))


def test_an_mdx_import_starts_a_word_and_each_page_is_answered_for_itself(tmp_path: Path) -> None:
    # `import` is searched as a literal (fast) and its word start checked on each match,
    # as `\bimport` did; the answer remembered for the last page never leaks to the next
    from kbkit.checks.link_model import anchors_known, imports_fact
    from kbkit.pages.page import parse_page

    (tmp_path / "kbkit.yaml").write_text("links: {inserted_text: true}\n")
    policy = load_policy(tmp_path)
    text = "import A from './_a.md'\nreimport B from './_b.md'\n_import C from '@site/c.md'\n"
    page = parse_page("docs/p.mdx", text.encode())
    assert imports_fact("docs/p.mdx", page, policy) == ("docs/_a.md",)
    other = parse_page("docs/q.mdx", b"# Q\n\nimport D from '@site/d.md'\n")
    assert imports_fact("docs/q.mdx", other, policy) == ("?",)
    assert imports_fact("docs/p.mdx", page, policy) == ("docs/_a.md",)
    hooked = parse_page("docs/r.md", b"#### <!-- md:setting x -->\n")
    assert anchors_known(page, policy) and not anchors_known(hooked, policy)
    assert anchors_known(page, policy)


def test_a_redirects_file_that_leads_outside_the_repository_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path)
    outside = tmp_path / "outside.yml"
    outside.write_text("/general/private-name.html: /general/setup.html\n")
    redirects = repo / "config/redirects.yml"
    redirects.unlink()
    redirects.symlink_to(outside)
    code = main(["check-knowledge-tree", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 2 and "the redirects file config/redirects.yml leads outside" in err
    assert "private-name" not in err and "Traceback" not in err
