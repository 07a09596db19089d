"""A func re-exported through a package `__init__` (warpSPHCore's `math/__init__.py`:
`from .wp_distance import (computeCartesianDistance, ...)`) whose body names a
struct of its own module's imports (`d: domainData`) and reads a plain Enum's
member value: the struct and the Enum are brought along with the func, through
every re-export, so the importing kernel compiles; a near-miss (an unguarded
read through the struct) still fails."""
from __future__ import annotations

from verikern.app.prove import prove_file
from verikern.frontend import compile_file

TYPES = '''import warp as wp


@wp.struct
class Box:
    lo: wp.array(dtype=float)
    n: wp.int32
'''
MODES = '''from enum import Enum


class Mode(Enum):
    LOW = 11
    HIGH = 12
'''
HELPERS = '''import warp as wp

from ..types import Box
from ..modes import Mode


@wp.func
def low_or_zero(b: Box, k: wp.int32, mode: wp.int32) -> float:
    if mode == wp.static(Mode.LOW.value):
        return b.lo[k]
    return 0.0
'''
KERNEL = '''import warp as wp

from .ops import *
from .types import Box


@wp.kernel
def lows(b: Box, mode: wp.int32, out: wp.array(dtype=float)):
    wp.requires(out.shape[0] == b.lo.shape[0])
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = low_or_zero(b, i, mode)
'''


def _package(tmp_path, kernel: str):
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "types.py").write_text(TYPES)
    (pkg / "modes.py").write_text(MODES)
    (pkg / "ops" / "helpers.py").write_text(HELPERS)
    (pkg / "ops" / "__init__.py").write_text(
        "__all__ = []\nfrom .helpers import (\n    low_or_zero,\n)\n__all__.extend(['low_or_zero'])\n")
    (pkg / "kern.py").write_text(kernel)
    return pkg / "kern.py"


def test_a_reexported_func_brings_its_struct_and_enum_along(tmp_path):
    r = compile_file(_package(tmp_path, KERNEL))
    assert not r.all_errors, [e.render() for e in r.all_errors]
    assert [k.name for k in r.kernels if k.mir is not None] == ["lows"]
    assert [x.status.value for x in prove_file(tmp_path / "pkg" / "kern.py")] == ["proved"]


def test_its_near_miss_still_fails(tmp_path):
    path = _package(tmp_path, KERNEL.replace("out.shape[0] == b.lo.shape[0]", "out.shape[0] > 0"))
    (r,) = prove_file(path)
    assert r.status.value == "failed"
    assert any(o.kind == "bounds" and "lo" in o.message for o in r.obligations if o.status.value == "failed")
