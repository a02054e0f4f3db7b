"""Leaves the checkout-only modules out of the wheel (pyproject.toml holds everything else).

setuptools can only leave out whole packages declaratively; these three are modules inside
packages: `make demo` and the shims in `tools/*.py` run them from a checkout, where their
data (knowledge/, intake/samples/) and callers live. An editable install still maps the
whole source folder, so the checkout keeps them (tests/test_release.py checks the wheel).
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

CHECKOUT_ONLY = ("kbkit/demo.py", "kbkit/shims.py", "kbkit/lessons/demo.py")


class BuildWithoutCheckoutModules(build_py):
    def run(self) -> None:
        super().run()  # (the manifest brings them back as package data: remove them after)
        for rel in CHECKOUT_ONLY:
            built = os.path.join(self.build_lib, rel)
            if os.path.exists(built):
                os.remove(built)


setup(cmdclass={"build_py": BuildWithoutCheckoutModules})
