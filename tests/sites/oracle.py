"""The site generators as oracles: build a site with the real generator and read, from the
HTML it writes, which links of which source page the built site does not serve.

A verdict is `(source page, link as written)`: the source page repo-relative (as kbkit names
it), the link as the author wrote it (the generator copies a plain relative or site-root
href into the page unchanged). A link is broken when the URL it resolves to, from the URL
the page is served at, names no file of the built site (`x/` and `x` also as
`x/index.html`), or when its `#fragment` names no `id` of the page it reaches.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

Verdict = tuple[str, str]

# Hugo: every page kind rendered through one template that also says which file the page
# came from and where it is served (the oracle's own layouts, written into a copy).
HUGO_LAYOUT = (
    "<!doctype html><html><head>"
    '<meta name="kbkit-source" content="{{ with .File }}{{ .Path }}{{ end }}">'
    '<meta name="kbkit-url" content="{{ .RelPermalink }}">'
    "</head><body><main>{{ .Content }}</main></body></html>\n"
)

# Jekyll: the layout every page uses (the fixture's `defaults:` name it), overwritten in a
# copy with one that says which file the page came from and where it is served.
JEKYLL_LAYOUT = (
    "<!doctype html><html><head>"
    '<meta name="kbkit-source" content="{{ page.path }}">'
    '<meta name="kbkit-url" content="{{ page.url }}">'
    "</head><body><main>{{ content }}</main></body></html>\n"
)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "meta" and found.get("name", "").startswith("kbkit-"):
            self.meta[found["name"]] = found.get("content", "")
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "a" and "name" in found:
            self.ids.add(found["name"])
        if tag == "a" and "href" in found:
            self.hrefs.append(found["href"])
        if tag == "img" and "src" in found:
            self.hrefs.append(found["src"])


def _read(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _served(public: Path, path: str, html_suffix: bool = False) -> Path | None:
    """The built file a URL path names, if the site serves one (`html_suffix`: `x` also as
    `x.html`, as GitHub Pages and `jekyll serve` serve it)."""
    rel = unquote(path).lstrip("/")
    candidate = public / rel
    if rel == "" or path.endswith("/"):
        index = candidate / "index.html"
        return index if index.is_file() else None
    if candidate.is_file():
        return candidate
    index = candidate / "index.html"
    if index.is_file():
        return index
    html = candidate.with_name(candidate.name + ".html")
    return html if html_suffix and html.is_file() else None


def built_verdicts(
    public: Path, source_prefix: str, base_url: str = "", html_suffix: bool = False
) -> dict[Verdict, bool]:
    """Every internal link of every page of a built site: True when the site serves it. With
    `base_url` (`/proj`) the site is served under that path: a page's URL is below it, and a
    link outside it leaves the site (broken)."""
    pages = {path: _read(path) for path in sorted(public.rglob("*.html"))}
    verdicts: dict[Verdict, bool] = {}
    for page in pages.values():
        source = page.meta.get("kbkit-source", "")
        url = page.meta.get("kbkit-url", "")
        if not source:
            continue  # a page the generator made without a file (a taxonomy list)
        for href in page.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not (parts.path or parts.fragment):
                continue  # another site, or an empty link
            target = urlsplit(urljoin(base_url + url, href)).path
            inside = not base_url or target == base_url or target.startswith(base_url + "/")
            target = target[len(base_url) :]
            found = _served(public, target, html_suffix) if parts.path and inside else None
            ok = found is not None or not parts.path
            if ok and parts.fragment:
                reached = pages.get(found) if found is not None else page
                if reached is None and found is not None and found.suffix == ".html":
                    reached = _read(found)
                ok = reached is None or unquote(parts.fragment) in reached.ids
            verdicts[(f"{source_prefix}{source}", href)] = ok
    return verdicts


def hugo_verdicts(site: Path, work: Path) -> dict[Verdict, bool]:
    """Build `site` with Debian's hugo (the oracle's layouts in a copy) and read it."""
    copy = work / "hugo-site"
    shutil.copytree(site, copy)
    layouts = copy / "layouts" / "_default"
    layouts.mkdir(parents=True, exist_ok=True)
    for name in ("single.html", "list.html"):
        (layouts / name).write_text(HUGO_LAYOUT, encoding="utf-8")
    (copy / "layouts" / "index.html").write_text(HUGO_LAYOUT, encoding="utf-8")
    public = work / "hugo-public"
    subprocess.run(
        ["hugo", "--quiet", "--source", str(copy), "--destination", str(public)],
        check=True,
        capture_output=True,
        text=True,
    )
    return built_verdicts(public, "content/")


MKDOCS_VALIDATION = """
validation:
  links:
    not_found: warn
    anchors: warn
    absolute_links: info
    unrecognized_links: info
"""
_MKDOCS_BROKEN = re.compile(
    r"^WARNING +- +Doc file '(?P<page>[^']+)' contains a link '(?P<link>[^']+)', but "
    r"(?:the target(?: '[^']*')? is not found among documentation files|the doc '[^']+' does not "
    r"contain an anchor '#[^']*')\.$"
)


def mkdocs_broken(site: Path, work: Path, docs: str = "docs") -> set[Verdict]:
    """(page, link) of every link `mkdocs build --strict` reports: a target not among the
    documentation files, or an anchor the target page lacks (MkDocs 1.6 validation, set to
    warn in a copy of the configuration when the site leaves it unset)."""
    copy = work / "mkdocs-site"
    shutil.copytree(site, copy)
    config = copy / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    if "\nvalidation:" not in "\n" + text:
        config.write_text(text + MKDOCS_VALIDATION, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(work / "mkdocs-out")],
        cwd=copy,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"},
    )
    found = set()
    for line in done.stderr.splitlines():
        match = _MKDOCS_BROKEN.match(line.strip())
        if match:
            found.add((f"{docs}/{match['page']}", match["link"]))
    assert found or done.returncode == 0, done.stderr  # a failure the oracle cannot read
    return found


def jekyll_verdicts(site: Path, work: Path, config: str = "") -> dict[Verdict, bool]:
    """Build `site` with Debian's jekyll (the oracle's layout in a copy, `config` appended
    to its `_config.yml`; no bundler, offline) and read it."""
    copy = work / "jekyll-site"
    shutil.copytree(site, copy)
    (copy / "_layouts" / "default.html").write_text(JEKYLL_LAYOUT, encoding="utf-8")
    settings = copy / "_config.yml"
    settings.write_text(settings.read_text(encoding="utf-8") + config, encoding="utf-8")
    public = work / "jekyll-public"
    subprocess.run(
        ["jekyll", "build", "--source", str(copy), "--destination", str(public), "--quiet"],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "JEKYLL_NO_BUNDLER_REQUIRE": "true", "JEKYLL_ENV": "production"},
    )
    import yaml

    base = str(yaml.safe_load(settings.read_text(encoding="utf-8")).get("baseurl") or "")
    return built_verdicts(public, "", "/" + base.strip("/") if base.strip("/") else "", True)


def init_copy(site: Path, work: Path, says: str = "") -> Path:
    """A git repository holding a copy of `site`, set up by `kb init` alone (no hand edits);
    `says`: words `kb init` must print (what it chose and how much that covers)."""
    repo = work / "repo"
    shutil.copytree(site, repo)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init"], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert says in done.stdout, done.stdout
    return repo


def kbkit_flagged(repo: Path) -> set[Verdict]:
    """(page, link as written) of every link finding `kb check` reports after `kb init`."""
    from kbkit.checks.rules.tree.links import link_parts
    from kbkit.rulebook.findings import Finding

    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    flagged = set()
    for row in json.loads(done.stdout)["findings"]:
        if row["rule"] in ("tree/link-broken", "tree/link-anchor"):
            finding = Finding(
                row["path"], row["line"], row["rule"], row["severity"], row["message"]
            )
            parts = link_parts(finding)
            assert parts is not None and parts.written is not None, row
            flagged.add((row["path"], parts.written))
    return flagged


def disagreements(verdicts: dict[Verdict, bool], flagged: set[Verdict]) -> list[str]:
    """Both verdicts of every link the generator and kbkit judge differently."""
    out = []
    for key, served in sorted(verdicts.items()):
        if served == (key in flagged):
            out.append(
                f"{key[0]}: {key[1]!r}: the generator says "
                f"{'served' if served else 'broken'}, kbkit says "
                f"{'broken' if key in flagged else 'fine'}"
            )
    for key in sorted(flagged - set(verdicts)):
        out.append(
            f"{key[0]}: {key[1]!r}: kbkit says broken, the generator's pages have no such link"
        )
    return out


# Sphinx: every warning that a link of a MyST page names nothing, as `path:line: WARNING:`
_SPHINX_WARNING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): WARNING: (?P<message>.*(?:not found|not readable|"
    r"Could not find|Unknown source document).*)$"
)


def sphinx_verdicts(site: Path, work: Path, source_prefix: str) -> dict[Verdict, bool]:
    """Build the Sphinx source folder `site` (conf.py with myst_parser) with the real Sphinx
    and read its warnings: every markdown link of every page (the link as written, read with
    markdown-it as MyST reads it) is broken when Sphinx warns, at the link's line, that its
    target, document, label or fragment is not found (one link a paragraph in the fixture:
    MyST gives a link its paragraph's line)."""
    from markdown_it import MarkdownIt

    out, warnings = work / "sphinx-html", work / "sphinx-warnings.txt"
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", str(site), str(out)]
        + ["-d", str(work / "sphinx-doctrees"), "-w", str(warnings)],
        check=True,
        capture_output=True,
        text=True,
    )
    warned = set()
    for warning in warnings.read_text(encoding="utf-8").splitlines():
        found = _SPHINX_WARNING.match(warning)
        if found:
            path = Path(found["path"]).resolve().relative_to(site.resolve()).as_posix()
            warned.add((path, int(found["line"])))
    assert warned, "Sphinx warned about no link: the fixture's broken links were not read"
    markdown = MarkdownIt("commonmark")
    verdicts: dict[Verdict, bool] = {}
    for page in sorted(site.rglob("*.md")):
        rel = page.relative_to(site).as_posix()
        for block in markdown.parse(page.read_text(encoding="utf-8")):
            for token in block.children or ():
                href = token.attrGet("href") or token.attrGet("src")
                if token.type not in ("link_open", "image") or not isinstance(href, str):
                    continue
                written = markdown.normalizeLinkText(href)
                if urlsplit(written).scheme in URL_SCHEMES:
                    continue  # another site (MyST reads any other `name:` as a label)
                line = block.map[0] + 1 if block.map else 0
                verdicts[(f"{source_prefix}{rel}", written)] = (rel, line) not in warned
    return verdicts


URL_SCHEMES = ("http", "https", "mailto", "ftp")  # myst_url_schemes' default


# Docusaurus: the npm packages are installed once into a cache folder (.ci/run), never into
# the fixture; the build's broken link and anchor report is the verdict.
DOCUSAURUS_CACHE = Path(__file__).resolve().parents[2] / ".venv" / "node" / "docusaurus"
DOCUSAURUS_BIN = (
    DOCUSAURUS_CACHE / "node_modules" / "@docusaurus" / "core" / "bin" / "docusaurus.mjs"
)
_DZ_PAGE = re.compile(r"^- Broken (?:link|anchor) on source page path = (?P<page>.+):$")
_DZ_LINK = re.compile(r"^-> linking to (?P<link>.+?)(?: \(resolved as: .*\))?$")
_DZ_MARKDOWN = re.compile(
    r"^\[WARNING\] Markdown link with URL `(?P<link>[^`]+)` in source file \"(?P<file>[^\"]+)\""
)


def docusaurus_report(output: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """From a build's output: (permalink, link) of every broken link and anchor of the
    exhaustive lists, and (source file, link) of every markdown link it could not resolve."""
    by_url: set[tuple[str, str]] = set()
    by_file: set[tuple[str, str]] = set()
    page = None
    for raw in output.splitlines():
        line = raw.strip()
        found = _DZ_PAGE.match(line)
        if found:
            page = found["page"]
            continue
        link = _DZ_LINK.match(line)
        if link and page is not None:
            by_url.add((page, link["link"]))
            continue
        if not line.startswith("->"):
            page = None
        markdown = _DZ_MARKDOWN.match(line)
        if markdown:
            by_file.add((markdown["file"], markdown["link"]))
    return by_url, by_file


def docusaurus_verdicts(site: Path, work: Path, source_prefix: str) -> dict[Verdict, bool]:
    """Build the Docusaurus site folder `site` (its docs in `docs/`) with the real
    Docusaurus and read its report: every markdown link of every page of the current docs
    (the link as written, read with markdown-it) is broken when the report lists it for the
    URL the page is served at (the build's own page metadata: source -> permalink), or as a
    markdown link of its file it could not resolve. A partial's links are reported for the
    pages that import it: they are broken when some page's report lists them."""
    from markdown_it import MarkdownIt

    copy = work / "docusaurus-site"
    shutil.copytree(site, copy)
    (copy / "node_modules").symlink_to(DOCUSAURUS_CACHE / "node_modules")
    done = subprocess.run(
        ["node", str(DOCUSAURUS_BIN), "build", "--out-dir", str(work / "docusaurus-out")],
        cwd=copy,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "DOCUSAURUS_TELEMETRY": "0"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    by_url, by_file = docusaurus_report(done.stdout + "\n" + done.stderr)
    assert by_url, "Docusaurus reported no broken link: the fixture's broken links were not read"
    permalinks = {}
    for meta in (copy / ".docusaurus" / "docusaurus-plugin-content-docs").rglob("site-*.json"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        if isinstance(data, dict) and str(data.get("source", "")).startswith("@site/docs/"):
            permalinks[data["source"][len("@site/") :]] = data["permalink"]
    reported = {link for _, link in by_url}
    markdown = MarkdownIt("commonmark")
    verdicts: dict[Verdict, bool] = {}
    for page in sorted((copy / "docs").rglob("*.md*")):
        rel = page.relative_to(copy).as_posix()
        url = permalinks.get(rel)
        for token in markdown.parse(page.read_text(encoding="utf-8")):
            for child in token.children or ():
                href = child.attrGet("href") or child.attrGet("src")
                if child.type not in ("link_open", "image") or not isinstance(href, str):
                    continue
                written = markdown.normalizeLinkText(href)
                if urlsplit(written).scheme:
                    continue  # another site
                if url is None:  # a partial
                    broken = written in reported
                else:
                    broken = (url, written) in by_url or (rel, written) in by_file
                verdicts[(f"{source_prefix}{rel}", written)] = not broken
    return verdicts
