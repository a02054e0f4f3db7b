"""Help beyond argparse: one example per command and the nearest name for a typo."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# command name -> one example command line (shown after the options by `kb help CMD` and
# `kb CMD --help`); tests/test_help.py keeps one for every registered command.
EXAMPLES: dict[str, str] = {
    "check": "kb check --staged --format github",
    "fix": "kb fix knowledge/general --diff",
    "lsp": "kb lsp --stdio",
    "completion": "kb completion bash > ~/.local/share/bash-completion/completions/kb",
    "check-knowledge-tree": "kb check-knowledge-tree --repo ../team-repo",
    "check-wiki-lint": "kb check-wiki-lint --today 2026-12-01",
    "curate prompt": "kb curate prompt --batch batch.json --text",
    "curate schema": "kb curate schema > reply.schema.json",
    "curate validate": "kb curate validate --batch batch.json --proposals reply.json",
    "curate apply": "kb curate apply --batch batch.json --proposals reply.json --dry-run",
    "curate recover": "kb curate recover --repo state/clone",
    "intake record-prs": "kb intake record-prs --repo acme/app --dry-run",
    "intake record-git": "kb intake record-git --branch main",
    "intake drop": "kb intake drop --run run.json --dir /shared/drops",
    "intake collect": "kb intake collect --drops /shared/drops",
    "intake mailbox": "kb intake mailbox --issue acme/app#7",
    "intake status": "kb intake status --format json",
    "intake check": "kb intake check intake/events.jsonl",
    "intake compact": "kb intake compact --check",
    "intake requeue": "kb intake requeue --all-failed --reason 'model outage fixed'",
    "intake sync": "kb intake sync --push --message 'intake: record 2026-12-01'",
    "distill": "kb distill --model replay:replies.jsonl --dry-run",
    "lessons extract": "kb lessons extract --from tasks.jsonl",
    "lessons show": "kb lessons show task.json",
    "lessons bundle": "kb lessons bundle --task task.json --planner p.md --worker w.md "
    "--out prompts/",
    "lessons outcome": "kb lessons outcome task.json",
    "lessons report": "kb lessons report --format json",
    "lessons lint": "kb lessons lint --tasks tasks.jsonl",
    "lessons forget": "kb lessons forget --source finding:T7/F1 --reason 'wrong'",
    "lessons promote": "kb lessons promote --min-support 3 --dry-run",
    "lessons audit": "kb lessons audit --format json",
    "lessons adopt": "kb lessons adopt --reason 'rule TEAM-1b merged in #42'",
    "lessons retire": "kb lessons retire L17caca8cd97ddada --reason 'the API was removed'",
    "lessons replay": "kb lessons replay --scope company --format json",
    "lessons list": "kb lessons list --format json",
    "lessons why": "kb lessons why L17caca8cd97ddada",
    "report": "kb report --since 2026-11-01 --out report.html",
    "rule": "kb rule tree/link-broken",
    "rules": "kb rules --format json",
    "init": "kb init",
}


def example(name: str) -> str:
    """The example block printed after a command's options (empty when there is none)."""
    line = EXAMPLES.get(name)
    return f"\nexample:\n  {line}\n" if line else ""


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The registered command closest to what was typed, if any is close enough."""
    names = list(names)
    firsts = sorted({name.split()[0] for name in names})
    found = difflib.get_close_matches(word, [*names, *firsts], n=1, cutoff=0.6)
    return found[0] if found else None
