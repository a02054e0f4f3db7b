"""Intake: record merged pull requests and bugfix runs into append-only JSONL ledgers.

The library API for the next stage (distill) lives in `kbkit.intake.ledger`:
`pending_events`, `append_status`, `fold_status`, `fold_events`, `load_events`, `load_status`.

May import: `kbkit.rulebook`, `kbkit.vcs`, `kbkit.infra` (never the knowledge tree: a contract).
"""
