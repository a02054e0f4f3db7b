"""`kbkit.report.html`: bar tables put limits on their scale and never cut a label; links
only ever point at https addresses; figures name where they come from."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kbkit.report.html import Mark, bars, esc, fig, link, number, table


def widths(markup: str) -> list[float]:
    return [float(w) for w in re.findall(r'class="fill" style="width:([0-9.]+)%"', markup)]


def test_a_page_at_a_quarter_of_the_split_limit_draws_a_quarter_bar() -> None:
    """Largest pages: the scale runs to the split limit, so 4,000 bytes is not a full bar."""
    marks = [Mark("near", 16384, "near"), Mark("split", 32768)]
    markup = bars(("page", "bytes"), [("a", 8192, "8192"), ("b", 4096, "4096")], marks=marks)
    assert widths(markup) == [25.0, 12.5]
    assert re.findall(r'class="limit (near|split)" style="left:([0-9.]+)%"', markup)[:2] == [
        ("near", "50.00"), ("split", "100.00")]  # fmt: skip
    over = bars(("page", "bytes"), [("big", 65536, "65536")], marks=marks)
    assert widths(over) == [100.0] and "left:25.00%" in over  # a page past the limit


def test_labels_are_never_cut() -> None:
    long = "knowledge/repos/kbkit/components/validators/" + "very-long-folder/" * 8 + "rules.md"
    markup = bars(("page", "bytes"), [(esc(long), 1, "1"), (esc(long + "x"), 1, "1")])
    assert esc(long) in markup and esc(long + "x") in markup and "…" not in markup


def test_tables_stack_with_labels_on_a_narrow_screen() -> None:
    markup = table(("rule", "findings"), [("lint/stale", 3)])
    assert 'class="stack ' in markup
    assert (
        '<td data-label="rule">lint/stale</td><td class="n" data-label="findings">3</td>' in markup
    )


def test_links_are_https_addresses_only() -> None:
    assert link("https://github.com/o/r/pull/1", "PR") == (
        '<a href="https://github.com/o/r/pull/1" rel="noreferrer">PR</a>')  # fmt: skip
    for bad in ("javascript:alert(1)", "http://x/y", "data:text/html,x", None, ""):
        assert link(bad, "<b>t</b>") == "&lt;b&gt;t&lt;/b&gt;"


def test_a_figure_names_its_command_and_json_path() -> None:
    markup = fig(3, "check", "rule", 'lint/"odd"')
    where = re.search(r'data-from="([^"]*)"', markup)
    assert where is not None
    assert json.loads(where.group(1).replace("&quot;", '"')) == ["check", "rule", 'lint/"odd"']
    assert fig(3) == "<b>3</b>"


def test_numbers_print_as_the_lessons_report_reads() -> None:
    assert number(None) == "n/a" and number(3) == "3" and number(120000.0) == "120000.00"
    assert (
        number(0.2600091) == "0.26"
        and number(46.21) == "46.21"
        and number(1.0, signed=True) == "+1.00"
    )
    assert (
        number(0.1666, rate=True) == "16.7%" and number(-0.32, rate=True, signed=True) == "-32.0%"
    )


def test_file_links_are_relative_and_can_never_name_a_scheme(tmp_path: Path) -> None:
    from kbkit.report.html import FileLinks, file_link

    folder = tmp_path / "state" / "javascript:alert(1)"
    folder.mkdir(parents=True)
    (folder / "pr-body.md").write_text("body")
    links = FileLinks(tmp_path, tmp_path / "out")
    href = links.href("state/javascript:alert(1)", "pr-body.md")
    assert href == "../state/javascript%3Aalert%281%29/pr-body.md"
    assert links.href("state/missing", "pr-body.md") is None  # only files that exist
    assert file_link(None, "state/x") == "<code>state/x</code>"
