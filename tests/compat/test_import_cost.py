"""The facade costs `kb check` nothing: the checker never imports kbkit.compat."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str) -> set[str]:
    code = f"{statement}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(done.stdout.split())


def test_importing_the_check_command_does_not_import_the_facade():
    loaded = _loaded_after("import kbkit.__main__, kbkit.commands.check")

    assert "kbkit.commands.check" in loaded
    assert not {name for name in loaded if name.startswith("kbkit.compat")}


def test_the_facade_needs_nothing_beyond_the_curator():
    curator = _loaded_after("import kbkit.curator")
    facade = _loaded_after("import kbkit.compat.infermatrix_v1")

    added = {name.split(".")[0] for name in facade - curator} - set(sys.stdlib_module_names)
    assert added <= {"kbkit"}, sorted(added)  # no third-party package beyond the curator's
