"""Standard output and error as every `kb` command writes them: never a crash on a character
the stream cannot encode, never a raw control character in a message.

- Both streams: a character the stream's encoding cannot represent (a Japanese file name
  under `PYTHONIOENCODING=ascii` or a Latin-1 locale, a lone surrogate from a file name that
  is not UTF-8) is written as a JSON-style escape, `\\u65e5` (`\\ud83d\\ude00` beyond the
  BMP), so text stays readable and `--format json` output stays valid JSON.
- Standard error carries messages (errors, progress, warnings, argparse): every control,
  bidi and zero-width character in it (`kbkit.infra.charset`), such as an ESC that a
  configuration value or an input file smuggled into a message, is shown as `<U+XXXX>`.
  Tabs and newlines stay. Standard output is left as it is: reports escape their own
  untrusted text (`kbkit.rulebook.findings`), and colour codes are theirs to write.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from kbkit.infra.charset import json_escape, visible

ERRORS = "kbkit-escape"


def _escape(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(json_escape, error.object[error.start : error.end])), error.end


codecs.register_error(ERRORS, _escape)


class ShownMessages:
    """A text stream whose writes have their control and invisible characters shown."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer...
        return getattr(self.stream, name)


def _errors_set(stream: Any, errors: str) -> str | None:
    """Set the stream's encoding error handler; its previous one (None: not settable)."""
    reconfigure = getattr(stream, "reconfigure", None)
    before = getattr(stream, "errors", None)
    if reconfigure is None or not isinstance(before, str):
        return None
    try:
        reconfigure(errors=errors)
    except (ValueError, OSError):  # a closed stream
        return None
    return before


@contextmanager
def safe_streams() -> Iterator[None]:
    """For the duration of a command: escapes instead of encoding errors on both streams,
    and standard error's messages shown safely. Restores both streams afterwards."""
    out, err = sys.stdout, sys.stderr
    old_out, old_err = _errors_set(out, ERRORS), _errors_set(err, ERRORS)
    sys.stderr = ShownMessages(err)
    try:
        yield
    finally:
        sys.stderr = err
        if old_out is not None:
            _errors_set(out, old_out)
        if old_err is not None:
            _errors_set(err, old_err)
