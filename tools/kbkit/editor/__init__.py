"""Editors: the language server `kb lsp` runs (diagnostics, fixes as code actions, rule docs).

May import: `kbkit.checks` and every layer below it, the pygls and lsprotocol packages.
"""
