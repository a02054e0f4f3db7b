"""The flat front matter fast path reads DocFX / platyPS front matter (keys with spaces,
URLs as values) exactly as PyYAML does, or leaves it to PyYAML (issue #28's speed work)."""

from __future__ import annotations

import random
import string

import pytest
import yaml

from kbkit.pages.flat_yaml import load_flat

PLATYPS = (
    "external help file: Microsoft.ActiveDirectory.Management.dll-Help.xml\n"
    "Module Name: ActiveDirectory\n"
    "ms.date: 12/27/2016\n"
    "online version: https://learn.microsoft.com/powershell/module/activedirectory/"
    "get-aduser?view=windowsserver2022-ps&wt.mc_id=ps-gethelp\n"
    "schema: 2.0.0\n"
    "title: Get-ADUser\n"
)


def test_platyps_front_matter_takes_the_fast_path() -> None:
    assert load_flat(PLATYPS) == yaml.safe_load(PLATYPS)


@pytest.mark.slow
def test_wide_values_and_spaced_keys_agree_with_pyyaml() -> None:
    rng = random.Random(28)
    chars = string.ascii_letters + string.digits + " :/?&=#,[]{}.-_%@!*'\"|>~^`$\t"
    read = 0
    for _ in range(20_000):
        key = rng.choice(["title", "online version", "Module Name", "a b", "x"])
        value = "".join(rng.choice(chars) for _ in range(rng.randint(1, 24)))
        raw = f"{key}: {value}\n"
        got = load_flat(raw)
        if got is None:
            continue  # left to PyYAML
        read += 1
        assert got == yaml.safe_load(raw), raw
    assert read > 1000  # the fast path really answers for such values
