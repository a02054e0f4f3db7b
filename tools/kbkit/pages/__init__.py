"""The page model and its parsers: one markdown page parsed once, with its links and facts.

pulldown-cmark (pyromark) is the page parser and markdown-it-py its fallback and test
oracle; front matter has a flat-YAML fast path with PyYAML as fallback and oracle.

May import: `kbkit.infra`.
"""
