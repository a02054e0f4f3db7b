"""The cpp-docs-shaped bench proxy is a docset kbkit reads whole: every relative link,
anchor and table of contents entry resolves, so a cold check pays for the whole rule set and
reports only what the real docset reports most (site-root links to other docsets)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from benchmarks.gen_reference_docset import generate_reference_docset

from tests.kbtree import kb


@pytest.mark.slow
def test_the_proxys_site_root_links_are_the_sites_urls_not_findings(tmp_path: Path) -> None:
    # Like the real docset, the proxy links other docsets of the site from its root (/cpp/x);
    # the docfx profile reads them as the site's URLs (#38), so the check passes.
    pages = generate_reference_docset(tmp_path, 600)
    assert pages == len(list((tmp_path / "docs").rglob("*.md")))
    texts = [path.read_text("utf-8") for path in (tmp_path / "docs").rglob("*.md")]
    assert sum(text.count("](/") for text in texts) > pages // 4
    result = kb(tmp_path, "check", "--format", "json", "--today", "2026-11-30")
    assert result.returncode == 0, result.stdout + result.stderr
    rules = Counter(finding["rule"] for finding in json.loads(result.stdout)["findings"])
    assert rules == Counter(), rules


def test_the_proxy_has_the_real_docsets_shape(tmp_path: Path) -> None:
    generate_reference_docset(tmp_path, 2000)
    texts = [path.read_text("utf-8") for path in (tmp_path / "docs").rglob("*.md")]
    sizes = sorted(len(text.encode()) for text in texts)
    median, mean = sizes[len(sizes) // 2], sum(sizes) / len(sizes)
    assert 1200 < median < 3000 and 3000 < mean < 6000  # cpp-docs: 1.8 KB and 4.6 KB
    keyword_lists = sum("helpviewer_keywords: [" in text for text in texts)
    assert keyword_lists > 0.95 * len(texts)
    assert len(list((tmp_path / "docs").rglob("toc.yml"))) > 30
