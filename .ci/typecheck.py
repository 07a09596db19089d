"""Type-check verikern with mypy exactly as it installs (`python3 .ci/typecheck.py`).

setup.py maps encoders/, backends/ and proofs/ onto verikern.encoders,
verikern.backends and verikern.proofs; the editable install does that with an
import hook, which mypy cannot follow (it only reads paths). So this script
builds the installed layout as a tree of symbolic links in a temporary folder,
runs mypy on the package `verikern` there (or on the subpackages named as
arguments, e.g. `verikern.frontend`; other arguments go to mypy) with the
settings of pyproject.toml [tool.mypy], and prints every finding with its path in this repository
(`verikern/encoders/x.py` -> `encoders/x.py`). Exit status: mypy's.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPED = ("encoders", "backends", "proofs")   # folders that install under verikern/


def shadow_tree(where: Path) -> Path:
    """`where/verikern`: links to every entry of verikern/ and to the mapped folders."""
    pkg = where / "verikern"
    pkg.mkdir()
    for entry in sorted((ROOT / "verikern").iterdir()):
        if entry.name != "__pycache__" and entry.name not in MAPPED:
            (pkg / entry.name).symlink_to(entry)
    for folder in MAPPED:
        (pkg / folder).symlink_to(ROOT / folder)
    return pkg


def main(argv: list[str]) -> int:
    back = re.compile(r"^verikern/(%s)/" % "|".join(MAPPED), re.M)
    with tempfile.TemporaryDirectory(prefix="verikern-mypy-") as tmp:
        shadow_tree(Path(tmp))
        packages = [a for a in argv if a.startswith("verikern")] or ["verikern"]
        options = [a for a in argv if not a.startswith("verikern")]
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(ROOT / ".mypy_cache"), *options]
        for package in packages:
            cmd += ["-p", package]
        run = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                             env={**os.environ, "MYPY_FORCE_COLOR": "0"})
    sys.stdout.write(back.sub(r"\1/", run.stdout))
    sys.stderr.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
