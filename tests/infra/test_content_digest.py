"""kbkit.infra.content_digest: the key of the page cache, body fingerprints and the memos of
repeats; caches written before must keep their keys, so its bytes are pinned."""

from __future__ import annotations

import hashlib

from kbkit.infra.content_digest import digest


def test_the_digest_is_sha256_cut_to_128_bits() -> None:
    data = "# Page\n\nÄ body\n".encode()
    assert digest(data) == hashlib.sha256(data).digest()[:16]
    assert len(digest(b"")) == 16 and digest(b"a") != digest(b"b")
