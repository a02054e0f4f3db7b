"""Infrastructure every layer uses: errors, clock, paths, ledgers, locks, processes, text safety.

The one error family and its exit codes, the one clock, where things live, append-only
JSONL ledgers and atomic writes, JSON and config files from others, file locks, outside
processes with deadlines, hidden characters and credential patterns, self-ignoring state
folders, work forked beside this process, and the named steps of crash-safe operations.

May import: the standard library and third-party packages only, nothing else of kbkit.
"""
