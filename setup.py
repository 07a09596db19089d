"""Maps the top-level folders onto ONE import namespace.

encoders/ -> verikern.encoders, backends/ -> verikern.backends,
proofs/ -> verikern.proofs; nothing but `verikern` lands in site-packages.
"""
import os

from setuptools import setup

ROOTS = {"verikern": "verikern", "verikern.encoders": "encoders",
         "verikern.backends": "backends", "verikern.proofs": "proofs"}


def _packages():
    package_dir, packages = {}, []
    for pkg, folder in ROOTS.items():
        package_dir[pkg] = folder
        for here, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            if "__init__.py" not in files:
                continue
            rel = os.path.relpath(here, folder)
            name = pkg if rel == "." else pkg + "." + rel.replace(os.sep, ".")
            if (name.startswith("verikern.") and name.split(".")[1] in ("encoders", "backends", "proofs")
                    and folder == "verikern"):
                continue
            packages.append(name)
    return package_dir, sorted(set(packages))


_dirs, _pkgs = _packages()
setup(package_dir=_dirs, packages=_pkgs,
      package_data={"verikern": ["py.typed", "selftest_corpus/*.py"],   # `verikern selftest`
                    "verikern.encoders.c": ["verikern_harness.h"]})   # C replay header
