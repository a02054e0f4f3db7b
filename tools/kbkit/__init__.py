"""kbkit: keep a team's engineering knowledge tree honest."""

from kbkit.infra.lazy_pattern import defer_compile

__version__ = "0.1.0"

# PyYAML's reader compiles, when yaml is imported, a pattern of every printable character
# (`yaml.reader.Reader.NON_PRINTABLE`): 7 ms of every kb command's start, for a pattern only
# PyYAML's pure-Python reader runs (kbkit loads YAML with the C loader and reads front matter
# itself). It is compiled when first used instead (tests/infra/test_lazy_pattern.py).
defer_compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
