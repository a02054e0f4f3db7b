"""Hugo's pages as Hugo serves them: a page `a/b.md` at `/a/b/`, its relative links resolved
from there, `static/` served at the site's root. The real hugo is the oracle."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.checks.link_model import LinkModel, served_folder, served_relative
from kbkit.sites import detect_site
from tests.sites.oracle import disagreements, hugo_verdicts, init_copy, kbkit_flagged

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def url_model(**changes: Any) -> LinkModel:
    model = LinkModel(".", (), False, (), from_url=True, folder_pages=("_index.md", "index.md"))
    return model._replace(**changes)


def test_a_page_is_served_at_its_own_folder_and_a_folder_page_at_its_folders() -> None:
    model = url_model()
    assert served_folder("docs/guide/install.md", model) == "/docs/guide/install/"
    assert served_folder("docs/guide/_index.md", model) == "/docs/guide/"
    assert served_folder("blog/post-one/index.md", model) == "/blog/post-one/"
    assert served_folder("_index.md", model) == "/"
    assert served_folder("about.md", model) == "/about/"


def test_which_links_resolve_from_the_pages_url() -> None:
    assert served_relative("../x/", url_model())
    assert served_relative("x.md#a", url_model())
    assert not served_relative("x.md#a", url_model(md_from_file=True))
    assert served_relative("x/#a", url_model(md_from_file=True))
    assert not served_relative("/x/", url_model())  # a site link already
    assert not served_relative("#a", url_model())  # the page itself
    assert not served_relative('{{< ref "x" >}}', url_model())
    assert not served_relative("../x/", url_model(from_url=False))


def test_detection_reads_static_dirs_and_link_render_hooks(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "hugo-pages", tmp_path / "site")
    site = detect_site(tmp_path / "site")
    assert site is not None and site.generator == "Hugo" and site.root == "content"
    assert site.keys["links"] == {"site_files": ["../static"]}
    hook = tmp_path / "site/themes/docsy/layouts/_default/_markup/render-link.html"
    hook.parent.mkdir(parents=True)
    hook.write_text("{{ .Destination }}")
    site = detect_site(tmp_path / "site")
    assert site is not None and site.keys["links"]["md_from_file"] is True
    assert "page_lookup" not in site.keys["links"]  # it writes the destination as it is
    hook.write_text("{{ with .PageInner.GetPage .Destination }}{{ .RelPermalink }}{{ end }}")
    site = detect_site(tmp_path / "site")
    assert site is not None and site.keys["links"]["page_lookup"] is True


def hooked_site(tmp_path: Path, hook: str) -> Path:
    """A Hugo site whose link render hook is `hook`, with plain single and list layouts."""
    site = tmp_path / "site"
    (site / "layouts/_default/_markup").mkdir(parents=True)
    (site / "layouts/_default/_markup/render-link.html").write_text(hook)
    for name in ("single.html", "list.html"):
        (site / "layouts/_default" / name).write_text("<main>{{ .Content }}</main>")
    (site / "hugo.toml").write_text("title = 'x'\n")
    return site


@pytest.mark.slow
def test_a_hook_that_calls_getpage_finds_pages_from_the_content_folder(tmp_path: Path) -> None:
    site = hooked_site(
        tmp_path,
        '{{ $p := (urls.Parse .Destination).Path }}<a href="{{ with or (.Page.GetPage $p) '
        '(.Page.GetPage (strings.TrimRight "/" $p)) }}{{ .RelPermalink }}{{ else }}BROKEN'
        '{{ end }}">{{ .Text }}</a>',
    )
    (site / "content/templates").mkdir(parents=True)
    (site / "content/methods/page").mkdir(parents=True)
    (site / "content/methods/page/date.md").write_text("---\ntitle: Date\n---\n# Date\n")
    (site / "content/templates/sibling.md").write_text("---\ntitle: S\n---\n# S\n")
    (site / "content/templates/intro.md").write_text(
        "---\ntitle: Intro\n---\n# Intro\n\n[date](methods/page/date/), "
        "[sibling](sibling), [gone](methods/page/gone/), [a part](methods/page/date/#date)\n"
    )
    if shutil.which("hugo"):  # the real hugo finds what kbkit finds
        out = tmp_path / "public"
        subprocess.run(["hugo", "--quiet", "-s", str(site), "-d", str(out)], check=True)
        html = (out / "templates/intro/index.html").read_text(encoding="utf-8")
        assert html.count('href="BROKEN"') == 1 and 'href="/methods/page/date/"' in html
    repo = init_copy(site, tmp_path)
    assert kbkit_flagged(repo) == {("content/templates/intro.md", "methods/page/gone/")}


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("hugo") is None, reason="Debian's hugo is not installed (.ci/run installs it)"
)
def test_kbkit_flags_exactly_the_links_hugo_does_not_serve(tmp_path: Path) -> None:
    site = FIXTURES / "hugo-pages"
    verdicts = hugo_verdicts(site, tmp_path)
    broken = {key for key, served in verdicts.items() if not served}
    # the oracle saw the cases the fixture is made of (the test cannot pass on an empty build)
    assert (
        "content/docs/guide/install.md",
        "configure/",
    ) in broken  # /docs/guide/install/configure/
    assert ("content/docs/guide/install.md", "configure.md") in broken
    assert ("content/docs/guide/configure.md", "logo.png") in broken
    assert ("content/docs/guide/install.md", "../configure/") not in broken
    assert ("content/blog/post-one/index.md", "/images/logo.png") not in broken
    # a section's URL is its _index.md page, whose headings the fragment must name
    assert ("content/docs/guide/install.md", "../../ref/#reference") not in broken
    assert ("content/docs/guide/install.md", "../../ref/#no-such-part") in broken
    assert ("content/docs/guide/install.md", "/docs/ref/#gone-part") in broken
    # a page with a paired shortcode has its anchors checked: it wraps the page's own text
    assert ("content/docs/guide/install.md", "../configure/#settings") not in broken
    assert ("content/docs/guide/install.md", "../configure/#note") in broken
    # Goldmark's heading attributes: `{#id}` replaces the slug
    assert ("content/docs/guide/install.md", "../../ref/#history-compaction") not in broken
    assert ("content/docs/guide/install.md", "../../ref/#compaction-of-the-history") in broken
    assert len(verdicts) >= 20 and len(broken) >= 7
    repo = init_copy(site, tmp_path)
    assert disagreements(verdicts, kbkit_flagged(repo)) == []
    # front matter Hugo reads for itself (`type: docs` picks the layouts) is no finding
    assert "content/docs/ref/api.md" not in {row["path"] for row in check_rows(repo)}


def check_rows(repo: Path) -> list[dict[str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    rows: list[dict[str, str]] = json.loads(done.stdout)["findings"]
    return rows


@pytest.mark.slow
def test_a_destination_the_link_hook_handles_itself_is_not_a_path(tmp_path: Path) -> None:
    """A link render hook that compares the destination with a literal (`eq $u.String "g"`)
    gives that destination a meaning of its own (a glossary term): `[term](g)` is the
    hook's, other links are checked as ever."""
    site = hooked_site(
        tmp_path,
        '{{- $u := urls.Parse .Destination -}}{{- if eq $u.String "g" -}}'
        '<a href="/glossary/#{{ urlize .Text }}">{{ .Text }}</a>{{- else -}}'
        '<a href="{{ .Destination }}">{{ .Text }}</a>{{- end -}}',
    )
    (site / "content/docs").mkdir(parents=True)
    (site / "content/glossary.md").write_text("---\ntitle: Glossary\n---\n# Glossary\n")
    (site / "content/docs/page.md").write_text(
        "---\ntitle: Page\n---\n# Page\n\nA [shortcode](g), a [gone](../gone/) page.\n"
    )
    if shutil.which("hugo"):  # the real hugo renders the word as the hook says
        out = tmp_path / "public"
        subprocess.run(["hugo", "--quiet", "-s", str(site), "-d", str(out)], check=True)
        html = (out / "docs/page/index.html").read_text(encoding="utf-8")
        assert 'href="/glossary/#shortcode"' in html
    repo = init_copy(site, tmp_path)
    assert kbkit_flagged(repo) == {("content/docs/page.md", "../gone/")}


def _hugo_site(folder: Path, pages: int) -> None:
    (folder / "content" / "docs").mkdir(parents=True)
    (folder / "config.toml").write_text('title = "Docs"\n')
    (folder / "static").mkdir()
    for i in range(pages):
        (folder / "content" / "docs" / f"p{i}.md").write_text(f"# Page {i}\n")


def test_a_hugo_site_one_folder_down_is_found(tmp_path: Path) -> None:
    """skaffold keeps its Hugo sites in `docs-v1/` and `docs-v2/` beside the code: init
    found none and scaffolded `knowledge/`. The site one folder down is found; of several,
    the one with the most pages; a configuration at the top still comes first."""
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd" / "main.go").write_text("package main\n")
    (tmp_path / "README.md").write_text("# Tool\n")
    _hugo_site(tmp_path / "docs-v1", pages=3)
    _hugo_site(tmp_path / "docs-v2", pages=5)
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "Hugo"
    assert (site.config, site.root) == ("docs-v2/config.toml", "docs-v2/content")
    assert site.keys["links"]["site_files"] == ["../static"]
    (tmp_path / "mkdocs.yml").write_text("site_name: Tool\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Tool\n")
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "MkDocs"


# --- shortcodes that insert text -----------------------------------------------------------

SHORTCODE_PIECES = (
    "{{%",
    "%}}",
    "-%}}",
    "{{%-",
    "/",
    " ",
    "\n",
    "alert",
    "a-",
    "-",
    "x.y",
    "include",
)


def _inserts_text_by_name(text: str) -> tuple[int, ...]:
    """The reference: each opened shortcode's closing looked for in the whole page."""
    import re

    out = []
    for found in re.finditer(r"(?m)^[ \t]*\{\{%", text):
        shortcode = re.match(r"[ \t]*\{\{%-?\s*(/?)\s*([\w./-]+)", text[found.start() :])
        if shortcode is not None:
            closing, name = shortcode.groups()
            pattern = r"\{\{%-?\s*/\s*" + re.escape(name) + r"\s*-?%\}\}"
            if closing or re.search(pattern, text):
                continue
        out.append(found.start())
    return tuple(out)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(SHORTCODE_PIECES), max_size=40))
def test_shortcode_lines_are_those_a_search_per_name_finds(pieces: list[str]) -> None:
    from kbkit.sites.hugo import inserts_text

    text = "".join(pieces)
    assert inserts_text(text) == _inserts_text_by_name(text)


def test_a_page_of_one_shortcode_opened_many_times_is_read_once() -> None:
    from kbkit.sites.hugo import inserts_text

    text = '{{% include "a.md" %}}\n{{% alert %}}\nx\n{{% /alert-%}}\n' * 3
    assert inserts_text(text) == (0, 54, 108)  # the includes; the alerts wrap their own text
