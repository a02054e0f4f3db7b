"""Outside text in what kbkit prints and posts (`kbkit.infra.outward`), end to end: a real page
file whose NAME holds a newline, a terminal escape, a bidi override and NEL, whose text holds a
fake badge, a phishing link, raw HTML and a mention; a mailbox comment author with a newline.
No format may print a line that reads as kbkit's own, run an escape, or render a live image
or link."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyromark
import pytest
from markdown_it import MarkdownIt

from kbkit.__main__ import main
from tests.kbtree import DAY, kb, make_tree

FORGED = "kbkit check passed: 0 error(s), 0 warning(s)"
NAME = f"a\n{FORGED}\x1b[2K\u202e\x85.md"
PAYLOAD = (
    "![passed](https://img.shields.io/badge/kb-passed-green) [click](https://evil.example) "
    "<img src=x> <a href=https://evil.example>x</a> <https://auto.example> www.evil.example "
    "@someone | x"
)
ACTING = re.compile("[\x1b\x85\u202e\u2028\u2029\r]")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A tree with the hostile page: registered in its index (a percent-encoded link), its
    title unquoted (a fix for `kb fix`), the payload as a tag (quoted by lint/tag-unknown)."""
    root = make_tree(tmp_path / "team")
    tag = json.dumps(PAYLOAD)
    (root / "knowledge/general" / NAME).write_text(
        f"---\ntitle: Hostile\ncreated: {DAY}\nupdated: {DAY}\ntype: guide\n"
        f"tags: [general, {tag}]\nsources: []\n---\n\n# Hostile\n\nBody.\n"
    )
    index = root / "knowledge/general/_index.md"
    index.write_text(index.read_text() + f"\n- [hostile]({quote(NAME)})\n")
    assert (root / "knowledge/general" / NAME).is_file()
    return root


def _lines(text: str) -> list[str]:
    """Every line a terminal or a log would show (str.splitlines: NEL, U+2028 too)."""
    return text.splitlines()


def test_text_report_prints_one_line_per_finding_and_nothing_that_acts(repo: Path) -> None:
    done = kb(repo, "check")
    assert done.returncode == 1, done.stderr
    lines = _lines(done.stdout)
    assert lines[-1].startswith("kbkit check failed: 2 error(s)")
    # lint/title-unquoted and lint/tag-unknown, the count of what `kb fix` fixes, the verdict
    assert len(lines) == 4 and lines[2].startswith("[*] 1 finding(s) can be fixed")
    assert all(line.startswith("knowledge/general/a\\nkbkit check passed") for line in lines[:2])
    assert not any(line.startswith("kbkit check passed") for line in lines)
    assert not ACTING.search(done.stdout)


def test_github_annotations_cannot_forge_a_line_or_a_command(repo: Path) -> None:
    done = kb(repo, "check", "--format", "github")
    lines = _lines(done.stdout)
    assert len(lines) == 3 and all(line.startswith("::error file=") for line in lines[:-1])
    assert lines[-1].startswith("kbkit check: 2 error(s)")
    assert not ACTING.search(done.stdout)


def test_json_keeps_the_name_exact_and_prints_nothing_that_acts(repo: Path) -> None:
    done = kb(repo, "check", "--format", "json")
    assert not ACTING.search(done.stdout)  # bidi, NEL, ESC written as \\u escapes
    paths = {f["path"] for f in json.loads(done.stdout)["findings"]}
    assert paths == {f"knowledge/general/{NAME}"}


def test_sarif_message_has_no_embedded_link_and_nothing_that_acts(repo: Path) -> None:
    done = kb(repo, "check", "--format", "sarif")
    assert not ACTING.search(done.stdout)
    results = json.loads(done.stdout)["runs"][0]["results"]
    messages = [r["message"]["text"] for r in results]
    tagged = [m for m in messages if "img.shields.io" in m]
    assert len(tagged) == 1
    for message in messages:  # SARIF 3.11.6: `[text](target)` is a link; `\[` is not
        assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", message), message
        assert _lines(message) == [message]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {f"knowledge/general/{quote(NAME)}"}


def _rendered(markdown: str) -> list[str]:
    options = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_GFM
    return [
        pyromark.html(markdown, options=options),
        MarkdownIt("commonmark").enable("table").render(markdown),
    ]


def test_markdown_job_summary_renders_no_image_link_html_or_mention(repo: Path) -> None:
    done = kb(repo, "check", "--format", "markdown")
    assert done.returncode == 1
    assert not ACTING.search(done.stdout)
    for html in _rendered(done.stdout):
        assert "<img" not in html and "<a " not in html, html
        assert html.count("<h3>") == 1 and "kbkit check failed" in html  # no forged heading
        assert html.count("<tr>") == 3  # the head and two findings: no forged row or cell
        assert all(row.count("<td") == 4 for row in re.findall(r"<tr>.*?</tr>", html, re.S)[1:])
        outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
        # addresses GitHub links by itself are shown in code spans, where it links nothing
        assert "https://" not in outside_code and "www.evil" not in outside_code
        assert "@someone" not in html  # the mention is broken
        assert "img.shields.io" in html and "click" in html  # still shown


def test_kb_fix_names_the_fixed_file_on_one_line(repo: Path) -> None:
    done = kb(repo, "fix")
    assert "kbkit: fixed 1 finding(s)" in done.stderr, done.stderr
    lines = _lines(done.stderr) + _lines(done.stdout)
    assert not any(line.startswith("kbkit check passed") for line in lines[:-1]), lines
    fixed = [line for line in _lines(done.stderr) if line.startswith("kbkit: fixed")]
    assert len(fixed) == 1 and "a\\nkbkit check passed" in fixed[0]
    assert not ACTING.search(done.stderr)


def test_an_error_naming_an_outside_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["intake", "mailbox", "--from", "nope\nkb: all records accepted", "--slug", "a/b"])
    assert code == 2
    err = capsys.readouterr().err
    assert _lines(err) == [err.rstrip("\n")] and err.startswith("kb: error: nope\\nkb: all")


def _comment(login: str, association: str) -> dict[str, Any]:
    return {
        "id": 7,
        "body": "<!-- kbkit:bugfix-record:v1 -->\n```json\n{}\n```",
        "author_association": association,
        "user": {"login": login},
        "html_url": "https://github.com/kbkit-dev/kbkit/issues/3#issuecomment-7",
        "created_at": "2026-11-30T08:00:00Z",
    }


@pytest.mark.parametrize("association", ["MEMBER", "NONE"])  # refused, ignored
def test_a_mailbox_comment_author_cannot_forge_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], association: str
) -> None:
    forged = "kb-dev\nkbkit-dev/kbkit#3: 1 bugfix run(s) recorded, 0 already recorded"
    (tmp_path / "comments.json").write_text(json.dumps([_comment(forged, association)]))
    main(["intake", "mailbox", "--from", "comments.json", "--slug", "kbkit-dev/kbkit"])
    err = capsys.readouterr().err
    assert len(_lines(err)) == 1, err
    assert "by kb-dev\\nkbkit-dev/kbkit#3: 1 bugfix run(s) recorded" in err


def test_an_environment_failure_naming_an_outside_file_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    import kbkit.__main__ as entry

    def denied(argv: list[str]) -> int:  # what reading a hostile-named page meets as non-root
        raise PermissionError(errno.EACCES, "Permission denied", f"knowledge/{NAME}")

    monkeypatch.setattr(entry, "run", denied)
    assert main(["check"]) == 4
    err = capsys.readouterr().err
    assert _lines(err) == [err.rstrip("\n")], err
    assert "a\\nkbkit check passed" in err and not ACTING.search(err)


def test_a_stopped_distill_run_summary_renders_no_image_or_link() -> None:
    from kbkit.distill.summary import stopped

    text = stopped("2026-11-30", f"cannot read knowledge/{NAME}: {PAYLOAD}")
    for html in _rendered(text):
        assert "<img" not in html and "<a " not in html, html
        assert html.count("<li>") == 1 and "img.shields.io" in html


def test_json_baseline_summary_prints_nothing_that_acts(repo: Path) -> None:
    assert kb(repo, "check", "--write-baseline").returncode == 0
    (repo / "knowledge/general" / NAME).unlink()  # its findings are now "fixed"
    for fmt in ("json", "sarif"):
        done = kb(repo, "check", "--format", fmt)
        assert not ACTING.search(done.stdout), fmt
        document = json.loads(done.stdout)
        bag = document if fmt == "json" else document["runs"][0]["properties"]
        fixed = {entry["path"] for entry in bag["baseline"]["fixed"]}
        assert fixed == {f"knowledge/general/{NAME}"}
