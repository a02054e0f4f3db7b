"""The command line: one module per `kb` command, each `main(argv) -> int`.

A command parses its options, calls the library and prints; the work lives in the layers
below. `registry.py` declares every command once (`COMMANDS`: name, group, summary,
example); `kbkit.__main__` dispatches through it and handles errors.

May import: every layer below (`kbkit.distill` down to `kbkit.infra`).
"""
