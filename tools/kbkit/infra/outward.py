"""Text from outside, made inert on every surface kbkit writes to: one function per surface.

kbkit prints and posts text it did not write: file and folder names, page titles and page
text quoted in messages, link targets, PR titles, comment authors. Raw, such text can act:
- a line break in a page name (`a⏎kbkit check passed.md`) prints a line that reads as
  kbkit's own, in a terminal or a CI log;
- ESC and the C1 controls drive the terminal; bidi overrides and zero-width characters
  reorder or hide what is shown;
- in markdown (the job summary), `![passed](https://img.shields.io/...)` paints a fake
  badge, `[click](https://evil.example)`, `<https://...>` and a bare `https://...` or
  `www.` address are live links, `<img>` and `<a>` are live HTML, `@team` notifies.
Every printer calls the function of its surface on each piece of outside text (not on its
own words: kbkit's colour codes and markup stay). Each function keeps the text readable:
what was there is still shown, as a visible token where it would have acted.

The decision for each format:
- `line`: a terminal or log line (`kb check` text, messages on standard error, `kb fix`,
  the intake commands). Every line break (LF as `\\n`; CR, VT, FF, NEL, U+2028, U+2029
  as `<U+XXXX>`), every control, bidi and zero-width character (`kbkit.infra.charset`)
  becomes a visible token; a lone surrogate (a file-name byte that is not UTF-8) is shown
  as `\\xNN`, as Python's backslashreplace shows it. Tab stays.
- `annotation` / `annotation_property`: a GitHub workflow command (`::error file=..::..`).
  `%`, CR and LF are percent-encoded as GitHub decodes them (the message keeps its words
  and cannot end the command), then `line`; a property also encodes `:` and `,`. GitHub
  shows annotation text as plain text: no markdown step.
- `markdown`: a markdown table cell or line (`kb check --format markdown`, the job
  summary). `line` first; then every address GitHub would link by itself (a scheme `://`,
  `www.`, an e-mail address) goes in a code span, where it is shown and never linked; the
  punctuation that opens links, images, emphasis, math, code and raw HTML is backslash-escaped
  or written as an entity (`&`, `<`, `>`, a backtick); `|` is escaped so a table keeps
  its cells; mentions and references are broken (`kbkit.infra.inert.markdown`).
- `sarif`: a SARIF `message.text`. It is plain text, but SARIF viewers render an embedded
  `[text](target)` as a link (SARIF 2.1.0, 3.11.6): `line`, then `\\`, `[` and `]`
  backslash-escaped as that section says.
- JSON (`--format json`, and every other SARIF field): data, kept exact. `json_text` only
  writes the characters a terminal would act on (C1 controls, bidi, zero-width, U+2028,
  lone surrogates) as `\\uXXXX` escapes: the same values after parsing; `json.dumps` has
  escaped the C0 controls and the newline already.
"""

from __future__ import annotations

import re

from kbkit.infra import inert
from kbkit.infra.charset import INVISIBLE, json_escape
from kbkit.infra.lazy_pattern import lazy

# Characters no line may carry raw: the invisible ones (controls including CR, VT, FF and
# NEL, bidi, zero-width, U+2028/2029), the newline and lone surrogates.
_UNSAFE = lazy(INVISIBLE.pattern[:-1] + "\n\ud800-\udfff]")
_JSON_UNSAFE = lazy(INVISIBLE.pattern[:-1] + "\ud800-\udfff]")

# What GitHub links without any markup (its autolink extension), the bracketed autolinks
# included: a scheme address, a `www.` address, an e-mail address, wherever it starts (GitHub
# links `_https://...` too). Backticks, `|` and brackets end one (escaped outside it).
_ADDRESS = lazy(
    r"(?:[a-z][a-z0-9+.\-]*://|www\.|(?:mailto|xmpp):)[^\s<>()\[\]`|]+"
    r"|[a-z0-9._%+\-]+@[a-z0-9_\-]+(?:\.[a-z0-9_\-]+)+",
    re.I,
)
# Markdown punctuation that can open a link, an image, emphasis, math (GitHub renders
# `$...$`: a green "passed" painted in LaTeX), a code span or a table cell; `&`, `<`, `>`
# and the backtick become entities instead (raw HTML, code).
_MARKDOWN_PUNCTUATION = lazy(r"([\\*_{}\[\]()!|~$])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "&#96;"}
_ENTITY_CHARS = lazy("[&<>`]")


def line(text: str) -> str:
    """`text` as part of one terminal or log line: nothing in it breaks the line or acts."""
    return _UNSAFE.sub(_token, text)


def _token(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n":
        return "\\n"
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a file name's byte that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"  # as backslashreplace shows it
    return f"<U+{code:04X}>"


def annotation(text: str) -> str:
    """`text` as a GitHub workflow command's message: it cannot forge another command."""
    return line(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def annotation_property(text: str) -> str:
    """`text` as a workflow command property (`file=`, `title=`): `:` and `,` too."""
    return annotation(text).replace(":", "%3A").replace(",", "%2C")


def markdown(text: str) -> str:
    """`text` as markdown inside one line or table cell: shown as it reads, with no link,
    image, HTML, mention or reference that acts, and no line or cell it could end."""
    flat = line(text)
    parts: list[str] = []
    at = 0
    for address in _ADDRESS.finditer(flat):
        parts.append(_escaped(flat[at : address.start()]))
        parts.append(f"`{address.group()}`")
        at = address.end()
    parts.append(_escaped(flat[at:]))
    return inert.markdown("".join(parts))


def _escaped(text: str) -> str:
    text = _ENTITY_CHARS.sub(lambda m: _ENTITIES[m.group()], text)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def sarif(text: str) -> str:
    """`text` as a SARIF `message.text`: one line, no embedded link."""
    return re.sub(r"([\\\[\]])", r"\\\1", line(text))


def json_text(document: str) -> str:
    """Serialized JSON with what a terminal would act on written as `\\uXXXX` escapes:
    valid because such characters only occur inside strings, and the values are the same."""
    return _JSON_UNSAFE.sub(lambda m: json_escape(m.group()), document)
