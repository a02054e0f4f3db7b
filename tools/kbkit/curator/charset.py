"""Characters that can hide or reorder text: control, zero-width and bidi controls."""

from __future__ import annotations

import re

# C0/C1 controls except tab and newline; zero-width and joiner characters; bidi embeddings,
# overrides and isolates; line/paragraph separators; the BOM used as a zero-width no-break.
INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb]"
)


def visible(text: str) -> str:
    """Replace each invisible character with a visible `<U+XXXX>` token."""
    return INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)
