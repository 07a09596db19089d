"""A non-editable build installs ONE namespace: verikern (with encoders,
backends and proofs inside it) and nothing else at the top level."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"verikern": "verikern", "encoders": "verikern/encoders",
           "backends": "verikern/backends", "proofs": "verikern/proofs"}


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here (pip wheel failed): {proc.stderr[-400:]}")
    wheel = next(out.glob("verikern-*.whl"))
    return zipfile.ZipFile(wheel)


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
