"""The command line: one module per `kb` command, each `main(argv) -> int`.

A command parses its options, calls the library and prints; the work lives in the layers
below. `kbkit.__main__` maps command names to these modules (`COMMANDS`) and handles errors.

May import: every layer below (`kbkit.distill` down to `kbkit.infra`).
"""
