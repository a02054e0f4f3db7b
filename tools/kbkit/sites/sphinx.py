"""Sphinx with MyST-Parser (or MyST-NB), and Jupyter Book: the `sphinx` profile.

A Sphinx site is a `conf.py` (at the top, or in `docs/`, `doc/`, `source/`, `docs/source/`,
`doc/source/`) whose `extensions` name `myst_parser` or `myst_nb`; its folder is the
knowledge root. conf.py is Python: it is read with `ast`, never run, and only plain literal
assignments count (`extensions = [...]`, `extensions += [...]`, `extensions.append(...)`):
`myst_heading_anchors` (how deep headings take slug ids), `root_doc`/`master_doc` (the page
no toctree lists), `exclude_patterns` (pages Sphinx does not build: they need no entry) and
`source_suffix`. A Jupyter Book is `_config.yml` beside `_toc.yml` (at the top or one folder
down): `_toc.yml` is its navigation, and its entries may name notebooks (`.ipynb`, `.Rmd`).

What the checks ask of it: a `_toc.yml`'s entries (`read_navigation`), the entries of a
page's `{toctree}` directives (`page_navigation`) and MyST's labels (`labels`: `[x](label)`
names a `(label)=` or a `:name:` of any page, or a page every build writes), read by
`kbkit.pages.myst`.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from kbkit.infra.bounded_yaml import YamlLimitError
from kbkit.infra.errors import UsageError
from kbkit.sites import myst
from kbkit.sites.config import TocLoader, dig, over_limits, present, read_config
from kbkit.sites.site import Generator, Labels, Navigation, NavSource, Site

if TYPE_CHECKING:
    import ast

CONF_FOLDERS = (".", "docs", "doc", "source", "docs/source", "doc/source")
MYST = ("myst_parser", "myst_nb")


PUBLISHED = (".md", ".rst", ".ipynb", ".myst", ".Rmd")  # documents Sphinx or the book builds
# what a Jupyter Book `_toc.yml` entry written without its extension may name
MYST_URL_SCHEMES = ("http", "https", "mailto", "ftp")  # myst_url_schemes' default
BOOK_SUFFIXES = (".md", ".ipynb", ".Rmd", ".myst", ".rst")


def detect(repo: Path) -> Site | None:
    """A MyST project (`myst.yml`: Jupyter Book 2 and mystmd), a Jupyter Book
    (`_config.yml` and `_toc.yml`), else a `conf.py` that loads MyST."""
    book = _myst_project(repo) or _jupyter_book(repo)
    if book is not None:
        return book
    for folder in CONF_FOLDERS:
        conf = repo / folder / "conf.py"
        if not present(conf):
            continue
        values = read_conf(conf)
        extensions = values.get("extensions")
        if not isinstance(extensions, list) or not set(MYST) & set(map(str, extensions)):
            continue  # reStructuredText only: kbkit reads markdown
        config = posixpath.normpath(f"{folder}/conf.py")
        return Site("Sphinx with MyST", config, "sphinx", folder, _conf_keys(values), PUBLISHED)
    return None


def unread_site(repo: Path) -> tuple[str, str] | None:
    """A `conf.py` that loads no MyST extension: a Sphinx site of reStructuredText pages,
    which kbkit does not read (`kb init` says so rather than set up a tree in silence)."""
    for folder in CONF_FOLDERS:
        conf = repo / folder / "conf.py"
        if not present(conf):
            continue
        pages = sum(1 for _ in (repo / folder).rglob("*.rst"))
        if pages:
            where = "the top folder" if folder == "." else f"{folder}/"
            return posixpath.normpath(f"{folder}/conf.py"), (
                f"Sphinx builds {where} from {pages} reStructuredText page(s), which kbkit "
                "does not read"
            )
    return None


def read_conf(path: Path) -> dict[str, Any]:
    """The literal values conf.py assigns at its top level, read without running it: a
    name bound to a literal, a list grown by `+=`, `.append()` or `.extend()` with literals.
    A file that is not Python is refused, naming its line."""
    import ast  # conf.py is read on Sphinx sites only: no import for every check

    text = read_config(path)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        raise UsageError(
            f"{where}: not read: {exc.msg} (kbkit reads conf.py as Python without running "
            "it); fix the file, or write kbkit.yaml by hand"
        ) from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte, deep nesting
        raise UsageError(f"{path}: not read: {exc or 'nested too deeply'}; fix the file") from exc
    values: dict[str, Any] = {}
    for node in tree.body:
        _assign(node, values)
    return values


def _literal(node: ast.AST) -> Any:
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _assign(node: ast.stmt, values: dict[str, Any]) -> None:
    import ast

    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = _literal(node.value) if node.value is not None else None
        for target in targets:
            if isinstance(target, ast.Name):
                values[target.id] = value
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        added, known = _literal(node.value), values.get(node.target.id)
        if isinstance(known, list) and isinstance(added, (list, tuple)):
            known.extend(added)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and isinstance(values.get(func.value.id), list)
            and func.attr in ("append", "extend")
            and len(call.args) == 1
        ):
            added = _literal(call.args[0])
            if func.attr == "append" and added is not None:
                values[func.value.id].append(added)
            elif func.attr == "extend" and isinstance(added, (list, tuple)):
                values[func.value.id].extend(added)


def _conf_keys(values: dict[str, Any]) -> dict[str, Any]:
    """The policy keys beyond the profile's that conf.py's values imply."""
    keys: dict[str, Any] = {}
    links: dict[str, Any] = {}
    depth = values.get("myst_heading_anchors")
    if isinstance(depth, int) and not isinstance(depth, bool) and depth > 0:
        links["heading_depth"] = depth
    # Sphinx reads `.rst` unless `source_suffix` says otherwise (MyST-Parser adds `.md`)
    given = values.get("source_suffix")
    suffixes = _suffixes(given) if given is not None else [".rst"]
    if "myst_nb" in map(str, values.get("extensions") or ()):
        suffixes.append(".ipynb")
    extra = [s for s in dict.fromkeys(suffixes) if s != ".md"]
    if extra:  # a document linked by its name may be any of them
        links["extensions"] = {"": [".md", *extra]}
    schemes = values.get("myst_url_schemes")  # a list, or a mapping of scheme -> URL pattern
    if isinstance(schemes, (list, tuple, dict)):
        named = sorted({str(s) for s in schemes if isinstance(s, str)} - set(MYST_URL_SCHEMES))
        if named:  # links written with them are URLs, not labels
            links["url_schemes"] = named
    if links:
        keys["links"] = links
    index: dict[str, Any] = {}
    root = str(values.get("root_doc") or values.get("master_doc") or "index").strip("/")
    placed = [f"/{root}.*"]  # the site's home: linked from every page (the profile's /index.*)
    if "ablog" in map(str, values.get("extensions") or ()):
        # ABlog lists the posts its pattern matches on the blog's own pages
        pattern = values.get("blog_post_pattern")
        patterns = [pattern] if isinstance(pattern, str) else list(pattern or ())
        placed.extend(f"/{str(p).strip('/')}" for p in patterns if str(p).strip("/"))
    if placed != ["/index.*"]:  # the profile says as much already
        index["placed"] = placed
    excluded = [str(p) for p in values.get("exclude_patterns") or () if isinstance(p, str)]
    unlisted = [f"/{pattern.strip('/')}" for pattern in excluded if pattern.strip("/")]
    if unlisted:  # pages Sphinx does not build need no entry
        index["unlisted"] = unlisted
    if index:
        keys["index"] = index
    return keys


def _suffixes(value: Any) -> list[str]:
    """The page suffixes `source_suffix` names (a string, a list or a mapping)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple, dict)):
        return [str(s) for s in value if isinstance(s, str) and s.startswith(".")]
    return []


# mystmd's link schemes: another project (`xref:`), a DOI, Wikipedia, a research resource,
# an organisation, a GitHub file: URLs, not labels
MYST_MD_SCHEMES = ["doi", "github", "ror", "rrid", "wiki", "xref"]


def _myst_project(repo: Path) -> Site | None:
    """`myst.yml` with a `project:` (the configuration of mystmd and Jupyter Book 2), at the
    top or one folder down: its folder is the knowledge root, `project.toc` the navigation
    (without one, mystmd builds every page and lists them all). A `#label` link names a
    label of any page, and every heading has an id."""
    for config in [repo / "myst.yml", *sorted(repo.glob("*/myst.yml"))]:
        if not present(config):
            continue
        try:
            data = yaml.load(read_config(config), Loader=TocLoader)  # noqa: S506 - a safe loader
        except YamlLimitError as exc:
            raise over_limits(config, exc) from exc
        except yaml.YAMLError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("project"), dict):
            continue  # a site-only or a broken configuration: not a project of pages
        path = config.relative_to(repo).as_posix()
        links: dict[str, Any] = {
            "extensions": {"": [".md", ".ipynb"]},
            "heading_depth": 6,
            "url_schemes": MYST_MD_SCHEMES,
        }
        ignored = _ignored_links(dig(data, "project", "error_rules"))
        if ignored:  # the project tells mystmd these resolve (pages built elsewhere)
            links["generated"] = ignored
        toc = dig(data, "project", "toc")
        index = {"toc": path, "toctree": False} if toc else {"model": "none"}
        folder = config.parent.relative_to(repo).as_posix()
        return Site(
            "MyST (mystmd, Jupyter Book 2)",
            path,
            "sphinx",
            folder,
            {"index": index, "links": links},
            PUBLISHED,
        )
    return None


def _ignored_links(rules: Any) -> list[str]:
    """The site paths a `myst.yml`'s `error_rules` tells mystmd not to check
    (`rule: link-resolves`, `severity: ignore`, `keys: [/robots.txt, ...]`), as globs."""
    out: list[str] = []
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict) or rule.get("rule") != "link-resolves":
            continue
        if rule.get("severity") not in ("ignore", "off"):
            continue
        given = rule.get("keys")
        keys: list[Any] = given if isinstance(given, list) else [rule.get("key")]
        out.extend(f"/{str(key).strip('/')}" for key in keys if isinstance(key, str) and key)
    return out


def _jupyter_book(repo: Path) -> Site | None:
    """`_toc.yml` beside `_config.yml`, at the top or one folder down."""
    tocs = [repo / "_toc.yml", *sorted(repo.glob("*/_toc.yml"))]
    for toc in tocs:
        if present(toc) and present(toc.parent / "_config.yml"):
            folder = toc.parent.relative_to(repo).as_posix()
            config = toc.parent / "_config.yml"
            keys: dict[str, Any] = {
                "index": {"toc": toc.relative_to(repo).as_posix(), "toctree": False},
                "links": {"extensions": {"": [".md", ".ipynb", ".Rmd"]}},
            }
            depth, toc_only = _book_settings(config)
            if depth:
                keys["links"]["heading_depth"] = depth
            if toc_only:  # pages the TOC does not list are not built
                keys["index"]["toc_only"] = True
            return Site(
                "Jupyter Book",
                config.relative_to(repo).as_posix(),
                "sphinx",
                folder,
                keys,
                PUBLISHED,
            )
    return None


def _book_settings(config: Path) -> tuple[int, bool]:
    """`myst_heading_anchors` of a Jupyter Book's `_config.yml` (`parse:` or
    `sphinx: config:`, 0 when unset), and its `only_build_toc_files`."""
    try:
        data = yaml.load(read_config(config), Loader=TocLoader)  # noqa: S506 - a safe loader
    except YamlLimitError as exc:
        raise over_limits(config, exc) from exc
    except yaml.YAMLError:
        data = None
    depth = 0
    for value in (
        dig(data, "parse", "myst_heading_anchors"),
        dig(data, "sphinx", "config", "myst_heading_anchors"),
    ):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            depth = value
            break
    return depth, dig(data, "only_build_toc_files") is True


def read_navigation(source: NavSource) -> Navigation | None:
    """`index.toc` naming a Jupyter Book `_toc.yml`: its `file:` and `root:` entries
    (knowledge-root paths, the extension implied); `glob:` entries place the pages they
    match. Asked after MkDocs': any other YAML `index.toc` names is read so."""
    if source.key != "toc":
        return None
    written = _book_values(source.data, ("root", "file"), [])
    globs = _book_values(source.data, ("glob", "pattern"), [])
    return Navigation(
        entries=tuple((entry, getattr(entry, "line", 0)) for entry in written),
        placed=tuple(f"/{glob.strip('/')}" for glob in globs),
        suffixes=BOOK_SUFFIXES,
    )


def _book_values(node: Any, keys: tuple[str, ...], out: list[str]) -> list[str]:
    """The string values under `keys` anywhere in a Jupyter Book `_toc.yml` or a `myst.yml`
    toc (`file:`/`root:` entries; `glob:`/`pattern:` globs), in document order."""
    if isinstance(node, dict):
        out.extend(node[key] for key in keys if isinstance(node.get(key), str))
        for value in node.values():
            if isinstance(value, (list, dict)):
                _book_values(value, keys, out)
    elif isinstance(node, list):
        for item in node:
            _book_values(item, keys, out)
    return out


LABELS = Labels(
    defined=myst.labels,
    normalized=myst.normalized,
    element_id=myst.docutils_id,
    built_in=myst.BUILT_IN,
    # `myst_url_schemes`' default, and MyST's own `project:` and `path:` (files) and `inv:`
    # (another project's object)
    url_schemes=frozenset((*MYST_URL_SCHEMES, "project", "path", "inv")),
)

GENERATOR = Generator(
    "sphinx",
    detect=detect,
    read_navigation=read_navigation,
    page_navigation=myst.toctree_entries,
    labels=LABELS,
    unread_site=unread_site,
)
