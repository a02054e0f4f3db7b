"""`kb lsp`: the language server (pygls, stdio) that gives an editor kbkit's findings.

On open, change and save of a page the server publishes that page's diagnostics: the same
findings `kb check` reports, cross-page ones included, from a tree loaded once through the
parse cache and kept current in memory (`kbkit.checks.live`). An edit that changes what
other pages read of the page (a link, a tag, a date) gets its own links re-checked at once
and every cross-page check a moment after typing stops; every open page's diagnostics are
then published again. The mechanical fixes (`kbkit.checks.fixes`) are code actions, and
hovering a finding shows what `kb rule ID` says of its rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from kbkit import __version__
from kbkit.checks.columns import with_columns
from kbkit.checks.live import LiveTree
from kbkit.infra.regular_file import read_regular_text
from kbkit.rulebook.findings import ERROR, Finding

REFRESH_AFTER_S = 0.3  # idle time after an edit before every cross-page check runs again


class KbServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("kbkit", __version__)
        self.live: LiveTree | None = None
        self.repo: Path | None = None
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.refresh_timer: asyncio.TimerHandle | None = None

    # --- the tree -----------------------------------------------------------------------
    def start_tree(self, root: str | None) -> None:
        from kbkit.infra import clock
        from kbkit.infra.errors import KbkitError
        from kbkit.infra.paths import find_repo_root
        from kbkit.policy.model import load_policy

        try:
            repo = find_repo_root(Path(root or "."))
            self.repo = repo
            self.live = LiveTree(repo, load_policy(repo, None), clock.today())
            freeze_heap()
        except KbkitError as exc:  # no repository, a bad policy: say so, serve nothing
            self.window_show_message(
                types.ShowMessageParams(types.MessageType.Error, f"kbkit: {exc}")
            )

    def rel_of(self, uri: str) -> str | None:
        """The root-relative page an editor URI names, or None outside the knowledge tree."""
        if self.live is None or self.repo is None:
            return None
        path = to_fs_path(uri)
        if path is None or not path.endswith(self.live.policy.page_suffixes):
            return None
        top = (self.repo / self.live.policy.knowledge_root).resolve()
        try:
            return Path(path).resolve().relative_to(top).as_posix()
        except ValueError:
            return None

    def changed(self, uri: str, version: int | None, saved: bool = False) -> None:
        live, rel = self.live, self.rel_of(uri)
        if live is None or rel is None:
            return
        if not live.knows(rel):
            if not saved:
                return  # a new page: checked once it is saved and part of the tree
            gc.unfreeze()  # the old tree becomes garbage the collector may free
            live.load()
            freeze_heap()
            for other, document in self.workspace.text_documents.items():
                known = self.rel_of(other)  # unsaved buffers stay what the tree reads
                if other != uri and known is not None and live.knows(known):
                    live.update(known, document.source)
        text = self.workspace.get_text_document(uri).source
        update = live.update(rel, text)
        self.publish_all(priority=uri, version=version)
        if not update.exact:
            self.schedule_refresh()

    def schedule_refresh(self) -> None:
        if self.refresh_timer is not None:
            self.refresh_timer.cancel()
        loop = asyncio.get_running_loop()
        self.refresh_timer = loop.call_later(REFRESH_AFTER_S, self.refresh)

    def refresh(self) -> None:
        """Every cross-page check, in a forked child (`kbkit.infra.parallel.Aside`), so an
        edit arriving meanwhile is answered at once; a result computed before the latest
        edit is dropped and the refresh starts again."""
        self.refresh_timer = None
        live = self.live
        if live is None:
            return
        from kbkit.infra.parallel import Aside

        generation, began = live.generation, time.perf_counter()
        aside: Aside[list[tuple[object, ...]]] = Aside(
            lambda: [tuple(f) for f in live.cross_findings()], freeze=False
        )

        def done() -> None:
            if aside.receive is not None:
                asyncio.get_running_loop().remove_reader(aside.receive)
            cross = [Finding(*f) for f in aside.result()]  # type: ignore[arg-type]
            if live.generation != generation:
                self.schedule_refresh()  # the tree changed meanwhile: this result is old
                return
            live.adopt(cross)
            took = (time.perf_counter() - began) * 1000
            self.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Log, f"kbkit: every cross-page check in {took:.1f} ms"
                )
            )
            self.publish_all()

        if aside.receive is None:  # no child to spare: here and now
            done()
        else:
            asyncio.get_running_loop().add_reader(aside.receive, done)

    # --- diagnostics --------------------------------------------------------------------
    def publish_all(self, priority: str | None = None, version: int | None = None) -> None:
        """Publish the diagnostics of every open page whose diagnostics changed (and always
        of `priority`, the page just edited, with its version)."""
        if self.live is None or self.repo is None:
            return
        by_path: dict[str, list[Finding]] = {}
        for finding in self.live.findings:
            by_path.setdefault(finding.path, []).append(finding)
        for uri, document in self.workspace.text_documents.items():
            rel = self.rel_of(uri)
            if rel is None:
                continue
            path = self.live.tree.repo_path(rel)
            lines = document.source.split("\n")
            mine = with_columns(by_path.get(path, []), self.repo, _lines_reader(lines))
            diagnostics = [diagnostic(f, lines) for f in mine]
            if uri != priority and self.published.get(uri) == diagnostics:
                continue
            self.published[uri] = diagnostics
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri, diagnostics, version if uri == priority else document.version
                )
            )

    def findings_of(self, uri: str) -> list[Finding]:
        """The findings of a page, in the order checks gave them."""
        rel = self.rel_of(uri)
        if self.live is None or rel is None:
            return []
        path = self.live.tree.repo_path(rel)
        return [f for f in self.live.findings if f.path == path]

    def findings_at(self, uri: str, line: int) -> list[Finding]:
        """The findings of a page on a 0-based line (whole-page findings on the first)."""
        return [f for f in self.findings_of(uri) if _line_index(f) == line]


def _line_index(finding: Finding) -> int:
    """The 0-based line a finding sits on (a whole-page finding on the first)."""
    return max(finding.line - 1, 0)


def freeze_heap() -> None:
    """Move the loaded tree (millions of objects that live as long as the server) out of the
    cyclic collector's sight: otherwise each full collection scans all of them, a pause of a
    few hundred milliseconds in the middle of an edit; a forked refresh then also leaves
    their memory pages shared."""
    gc.collect()
    gc.freeze()


def _lines_reader(lines: list[str]) -> Callable[[str], list[str] | None]:
    return lambda _: lines


def utf16_column(line: str, column: int) -> int:
    """A 1-based code-point column (0: none) as LSP's 0-based UTF-16 character offset."""
    if column <= 0:
        return 0
    return len(line[: column - 1].encode("utf-16-le")) // 2


def diagnostic(finding: Finding, lines: list[str]) -> types.Diagnostic:
    """One finding as a diagnostic: from its column (or the line start) to the line's end;
    a finding on the whole page sits on the first line."""
    index = max(finding.line - 1, 0)
    text = lines[index] if index < len(lines) else ""
    start = utf16_column(text, finding.column) if finding.line else 0
    end = len(text.rstrip("\r").encode("utf-16-le")) // 2 if finding.line else 0
    return types.Diagnostic(
        range=types.Range(types.Position(index, start), types.Position(index, max(end, start))),
        message=finding.message,
        severity=types.DiagnosticSeverity.Error
        if finding.severity == ERROR
        else types.DiagnosticSeverity.Warning,
        code=finding.rule_id,
        source="kbkit",
    )


def build_server() -> KbServer:
    """The server with its features registered."""
    server = KbServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: KbServer, params: types.InitializedParams) -> None:
        folders = ls.workspace.folders
        root = next(iter(folders.values())).uri if folders else ls.workspace.root_uri
        ls.start_tree(to_fs_path(root) if root else None)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KbServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KbServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KbServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, None, saved=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KbServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        rel = ls.rel_of(uri)
        if ls.live is not None and rel is not None and ls.live.knows(rel):
            path = to_fs_path(uri)
            # Back to the disk's text: a regular file only (reading a FIFO would wait forever).
            with contextlib.suppress(OSError, UnicodeDecodeError):
                ls.live.update(rel, read_regular_text(path or ""))
        ls.published.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        ls.publish_all()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KbServer, params: types.HoverParams) -> types.Hover | None:
        found = ls.findings_at(params.text_document.uri, params.position.line)
        if not found:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, rule_docs(found)))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: KbServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return fix_actions(ls, params)

    return server


def rule_docs(findings: list[Finding]) -> str:
    """Markdown for a hover: each rule's `kb rule` text once."""
    from kbkit.checks.rules import all_rules

    rules = all_rules()
    parts = []
    for rule_id in dict.fromkeys(f.rule_id for f in findings):
        rule = rules.get(rule_id)
        if rule is None:
            parts.append(f"**{rule_id}**")
            continue
        lines = [f"**{rule_id}** ({rule.severity}): {rule.summary}"]
        if rule.why:
            lines += [f"- why: {rule.why}", f"- fix: {rule.fix}"]
        lines.append(f"- suppress: {rule.suppression}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def fix_actions(ls: KbServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The mechanical fixes of the findings in the asked range, as quick fixes."""
    from kbkit.checks.fixes import FIXES

    if ls.live is None or ls.repo is None:
        return []
    uri = params.text_document.uri
    # The range is the client's word: `end.line` may be 2^31-1. Only the page's findings
    # are looked at (never one step per asked line), each kept when its line is in range.
    first, last = params.range.start.line, params.range.end.line
    found = sorted(
        (f for f in ls.findings_of(uri) if first <= _line_index(f) <= last and f.rule_id in FIXES),
        key=_line_index,
    )
    context = _fix_context(ls)
    actions = []
    for finding in found:
        edits = FIXES[finding.rule_id](finding, context)
        if not edits:
            continue
        changes: dict[str, list[types.TextEdit]] = {}
        for edit in edits:
            target = (ls.repo / edit.path).as_uri()
            text = "".join(line + "\n" for line in edit.lines)
            changes.setdefault(target, []).append(
                types.TextEdit(
                    types.Range(types.Position(edit.start, 0), types.Position(edit.end, 0)), text
                )
            )
        actions.append(
            types.CodeAction(
                title=f"kbkit: fix {finding.rule_id}",
                kind=types.CodeActionKind.QuickFix,
                edit=types.WorkspaceEdit(changes=changes),
            )
        )
    return actions


def _fix_context(ls: KbServer) -> Any:
    """What the fixes read: open buffers first, then the disk; git for dates."""
    from kbkit.checks.fixes import Context
    from kbkit.infra import boundary
    from kbkit.vcs import git

    assert ls.live is not None and ls.repo is not None
    repo = ls.repo
    top = repo / ls.live.policy.knowledge_root

    def text(path: str) -> str | None:  # None for a file that leads out of the root
        if not boundary.within(top, repo / path):
            return None
        uri = (repo / path).as_uri()
        document = ls.workspace.text_documents.get(uri)
        if document is not None:
            return document.source
        return boundary.text_within(top, repo / path)

    def guarded(call: Callable[[str], Any]) -> Callable[[str], Any]:
        def run(path: str) -> Any:
            try:
                return call(path)
            except git.GitError:
                return None

        return run

    policy = ls.live.policy
    return Context(
        repo,
        ls.live.today,
        tuple(map(str, policy.data["frontmatter"]["required"])),
        str(policy.data["index_page"]),
        frozenset(),
        guarded(lambda path: git.commit_dates(repo, path)),
        text,
        guarded(lambda path: git.committed_text(repo, path)),
    )


def serve() -> None:
    """Serve over stdin and stdout until the client shuts the server down."""
    build_server().start_io()
