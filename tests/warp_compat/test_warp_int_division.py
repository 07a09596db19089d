"""INT_MIN / -1 under real Warp on its CPU device, the facts verikern's
`div-zero` obligation rests on (docs/SOUNDNESS.md, "Integer division"):
on int32 and int64 Warp's C++ divides in the type's own width, and x86's
idiv traps, so the process dies of SIGFPE (each such launch runs in a child
process); int8 and int16 are divided in `int` and wrap back (INT_MIN and a
remainder of 0). verikern's simulator and `cpu:native` raise
DivisionOverflowError for the first and give Warp's values for the second."""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.errors import DivisionOverflowError
from verikern.frontend import compile_file
import warp_kernel_cache

HERE = Path(__file__).resolve().parent
pytest.importorskip("warp")

#: the child: launch one kernel of kernels_int_division.py on INT_MIN and -1
#: under real Warp and print `out` (argv: kernel name, numpy dtype, cache folder)
CHILD = """
import importlib.util, sys
import numpy as np
import warp as wp
name, dtype, cache = sys.argv[1:4]
wp.config.quiet = True
wp.config.kernel_cache_dir = cache
wp.init()
spec = importlib.util.spec_from_file_location("verikern_warp_int_division", sys.argv[4])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
t = np.dtype(dtype)
a = wp.array(np.array([np.iinfo(t).min], t), device="cpu")
b = wp.array(np.array([-1], t), device="cpu")
out = wp.zeros(3, dtype=a.dtype, device="cpu")
wp.launch(getattr(m, name), dim=1, inputs=[a, b, out], device="cpu")
wp.synchronize_device("cpu")
print("OUT", out.numpy().tolist())
"""


def _under_warp(name: str, dtype: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, name, dtype, str(cache),
                           str(HERE / "kernels_int_division.py")],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def warp_cache() -> Path:
    """The suite's Warp kernel cache for the module's children
    (tests/warp_kernel_cache.py): the first child of the first run builds the
    kernels' module with clang, the others load it (Warp keys it by content)."""
    return warp_kernel_cache.folder()


@pytest.fixture(scope="module")
def kernels():
    module = compile_file(HERE / "kernels_int_division.py")
    assert not module.all_errors, [e.render() for e in module.all_errors]
    return {k.name: k.mir for k in module.kernels}


def _verikern(kernel, dtype: str, device: str) -> list[int]:
    t = np.dtype(dtype)
    out = np.zeros(3, t)
    vk.launch(kernel, 1, inputs=[np.array([np.iinfo(t).min], t), np.array([-1], t), out],
              block_dim=1, device=device)
    return out.tolist()


@pytest.mark.parametrize("name, dtype", [("divide_int8", "int8"), ("divide_int16", "int16")])
def test_int8_and_int16_wrap_under_warp_and_verikern(name, dtype, kernels, warp_cache):
    run = _under_warp(name, dtype, warp_cache)
    assert run.returncode == 0, run.stderr
    lo = np.iinfo(dtype).min
    assert f"OUT {[lo, lo, 0]}" in run.stdout          # / and // wrap to INT_MIN, % is 0
    for device in ("cpu", "cpu:native"):
        assert _verikern(kernels[name], dtype, device) == [lo, lo, 0]


@pytest.mark.parametrize("name, dtype", [("floordiv_int32", "int32"), ("mod_int64", "int64")])
def test_int32_and_int64_kill_warp_with_sigfpe_and_fault_in_verikern(name, dtype, kernels, warp_cache):
    run = _under_warp(name, dtype, warp_cache)
    assert run.returncode == -signal.SIGFPE, (run.returncode, run.stdout, run.stderr)
    assert "OUT" not in run.stdout
    for device in ("cpu", "cpu:native"):
        with pytest.raises(DivisionOverflowError):
            _verikern(kernels[name], dtype, device)
