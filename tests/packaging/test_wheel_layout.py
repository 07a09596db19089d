"""A non-editable build installs ONE namespace: verikern (with encoders,
backends and proofs inside it) and nothing else at the top level.

A build that fails is a test failure. The one exception is a build that
cannot start because pip cannot install the build backend (setuptools,
wheel) into its isolated build environment: no network and no package index.
"""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from shared_helpers import ROOT
FOLDERS = {"verikern": "verikern", "encoders": "verikern/encoders",
           "backends": "verikern/backends", "proofs": "verikern/proofs"}
# pip's words when the isolated build environment cannot get its build requirements
BACKEND_UNAVAILABLE = "to install build dependencies did not run successfully"
NO_BACKEND_REASON = ("pip cannot install the build backend (setuptools>=69, wheel) for an isolated build "
                     "(no network or package index); make them installable, e.g. a local index or wheelhouse")


def pip_wheel(root: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-q", "-w", str(out), str(root)],
        capture_output=True, text=True, timeout=300)


def backend_unavailable(proc: subprocess.CompletedProcess) -> bool:
    """The build failed before running the project's build at all."""
    return proc.returncode != 0 and BACKEND_UNAVAILABLE in proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = pip_wheel(ROOT, out)
    if backend_unavailable(proc):
        pytest.skip(NO_BACKEND_REASON)
    assert proc.returncode == 0, f"pip wheel failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    wheel = next(out.glob("verikern-*.whl"))
    return zipfile.ZipFile(wheel)


def test_a_broken_setup_py_fails_the_build_and_is_not_taken_for_a_missing_backend(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "pyproject.toml", project)
    (project / "README.md").write_text("broken\n")
    (project / "setup.py").write_text((ROOT / "setup.py").read_text() + "\nraise RuntimeError('broken setup.py')\n")
    proc = pip_wheel(project, tmp_path / "out")
    if backend_unavailable(proc):
        pytest.skip(NO_BACKEND_REASON)
    assert proc.returncode != 0 and "broken setup.py" in proc.stdout + proc.stderr, proc.stderr[-2000:]


def test_only_verikern_at_top_level(wheel_names):
    wheel_names = wheel_names.namelist()
    tops = {n.split("/")[0] for n in wheel_names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"verikern"}


def test_every_source_package_is_in_the_wheel(wheel_names):
    wheel_names = wheel_names.namelist()
    for folder, installed in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.relative_to(ROOT / folder).as_posix()
            assert f"{installed}/{rel}" in wheel_names, f"{folder}/{rel} missing from the wheel"


def test_console_script_declared(wheel_names):
    ep = next(n for n in wheel_names.namelist() if n.endswith("entry_points.txt"))
    assert "verikern = verikern.cli:main" in wheel_names.read(ep).decode()


def test_c_replay_header_is_package_data(wheel_names):
    """`verikern replay` compiles against verikern_harness.h from the installed package."""
    assert "verikern/encoders/c/verikern_harness.h" in wheel_names.namelist()
