"""`kb intake mailbox`: record bugfix drop records posted as issue comments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.infra.outward import line
from kbkit.intake import options
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import record_events
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.sources.mailbox import (
    comments_endpoint,
    edited_comments,
    parse_comments,
    parse_issue_ref,
    remember_refused,
    unconfigured,
)
from kbkit.vcs import github


def main(argv: list[str] | None = None) -> int:
    """Record marked collaborator comments for the watched repo; exit 1 on a new refusal."""
    parser = argparse.ArgumentParser(
        prog="kb intake mailbox",
        description="Record the bugfix drop records in issue comments by an OWNER, MEMBER "
        "or COLLABORATOR that carry <!-- kbkit:bugfix-record:v1 --> (or "
        "<!-- infermatrix-copilot:bugfix-record:v1 -->) and exactly one fenced JSON block, "
        "for the watched repository. --issue OWNER/NAME#N pages through the issue's comments "
        "with gh; --from reads the comments JSON (`gh api repos/O/R/issues/N/comments`). A "
        "collaborator's comment that cannot be used is refused and exits 1 once; a marked "
        "comment by anyone else is ignored with a warning, exit 0; both are remembered in "
        "intake/mailbox-refused.json and not reported again. A comment edited after its run was "
        "recorded is reported once and not taken (a recorded event never changes: post the "
        "correction with a new run_id). --issue OWNER/NAME# (no "
        "number: no mailbox configured) is a notice, exit 0.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--from", dest="source", metavar="FILE|-", help="the comments JSON file, or - for stdin"
    )
    source.add_argument(
        "--issue", metavar="OWNER/NAME#N", help="the mailbox issue, read through gh api"
    )
    options.add_repo(parser, identity=True)
    args = parser.parse_args(argv)
    folder = options.intake_dir(args.repo)
    identity = options.identity(args.repo, args.slug, args.alias)
    if args.issue is not None and unconfigured(args.issue):
        print(
            f"kb intake mailbox: notice: no mailbox issue is configured (--issue "
            f"{args.issue!r} names no issue number; the daily workflow takes it from "
            "KBKIT_MAILBOX_ISSUE); nothing read"
        )
        return 0
    if args.issue:
        slug, number = parse_issue_ref(args.issue)
        if identity.slug is None:
            identity = RepoIdentity(slug, identity.aliases)
        endpoint = comments_endpoint(slug, number)
        label, data = f"{slug}#{number}", github.api_paginate(endpoint, Path.cwd())
        pages = decode_pages(label, data) if data.strip() else []
    elif args.source:
        label, data = read_source(args.source)
        pages = decode_pages(label, data)
    else:  # pragma: no cover - argparse requires one of them
        raise UsageError("pass --issue OWNER/NAME#N or --from FILE|-")
    scan = parse_comments(label, pages, identity)
    result = record_events(folder, scan.rows)
    options.warn(result.problems)
    new = remember_refused(folder, scan.refused) if scan.refused else []
    edits = edited_comments(folder, scan) if result.already else []
    edited = remember_refused(folder, edits) if edits else []
    old = len(scan.refused) - len(new)
    refused = [r for r in new if not r.stranger]
    strangers = [r for r in new if r.stranger]
    for refusal in refused:  # the author, the reason: outside text, one line each
        print(f"kb: refused {line(f'{label}: {refusal.where}: {refusal.reason}')}", file=sys.stderr)
    for refusal in strangers:
        print(
            f"kb: warning: ignored {line(f'{label}: {refusal.where}: {refusal.reason}')}",
            file=sys.stderr,
        )
    for edit in edited:  # the author's login is outside text too
        print(
            f"kb: warning: not taken {line(f'{label}: {edit.where}: {edit.reason}')}",
            file=sys.stderr,
        )
    print(
        f"{line(label)}: {len(result.added)} bugfix run(s) recorded, {len(result.already)} already "
        f"recorded, {len(refused)} refused, "
        + (f"{len(strangers)} ignored (not by a collaborator), " if strangers else "")
        + (f"{len(edited)} edit(s) not taken, " if edited else "")
        + f"{scan.ignored} ordinary comment(s)"
        + (f", {old} refused or ignored before (intake/mailbox-refused.json)" if old else "")
    )
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
