"""Module-level literal constants bound by unpacking a tuple, as nvalchemi's
Fourier DFT-D3 writes its series coefficients (`_R6_C0, _R6_C2 = (1.0, -1.0 /
3.0)`): each name is a literal constant (docs/LANGUAGE.md section 1), unless
the module can bind it again. Real Warp on its CPU device, which reads the
names when it builds the kernel, gives the same results."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_source
from shared_helpers import import_file
from warp_compat.compat_util import init_warp

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

SERIES = '''import warp as wp

C0, C2, C3 = (
    1.0,
    -1.0 / 3.0,
    0.125,
)
[LO, HI] = [2, 7]


@wp.kernel
def series(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64), n: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0] and i < n.shape[0]:
        t = x[i]
        out[i] = wp.float64(C0) + t * t * (wp.float64(C2) + t * wp.float64(C3))
        n[i] = wp.clamp(i, LO, HI)
'''


def test_unpacked_literal_constants_are_read_as_warp_reads_them(tmp_path_factory):
    init_warp(wp, tmp_path_factory)
    path = tmp_path_factory.mktemp("unpacked") / "verikern_unpacked_series.py"
    path.write_text(SERIES)
    module = import_file(path, "verikern_unpacked_series")
    x = np.linspace(-1.5, 1.5, 12)
    theirs, their_n = wp.zeros(12, dtype=wp.float64, device="cpu"), wp.zeros(12, dtype=wp.int32, device="cpu")
    wp.launch(module.series, dim=12, device="cpu",
              inputs=[wp.array(x, dtype=wp.float64, device="cpu"), theirs, their_n])
    result = compile_source(SERIES, "series.py")
    assert not result.all_errors, [e.render() for e in result.all_errors]
    for dev in ("cpu", "cpu:native"):
        out, n = np.zeros(12), np.zeros(12, np.int32)
        vk.launch(result.kernel("series").mir, 12, [x, out, n], device=dev)
        np.testing.assert_allclose(out, theirs.numpy(), rtol=1e-15, err_msg=dev)
        assert n.tolist() == their_n.numpy().tolist() == [2, 2, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7]
    np.testing.assert_allclose(theirs.numpy(), 1.0 + x * x * (-1.0 / 3.0 + x * 0.125), rtol=1e-15)


@pytest.mark.parametrize("change", [
    "C0, C2, C3 = (\n    1.0,\n    -1.0 / 3.0,\n    0.125,\n)\nC2 = 0.5\n",      # bound again
    "C0, C2, C3 = (\n    1.0,\n    -1.0 / 3.0,\n    coefficient(3),\n)\n",   # a call: not a literal
    "C0, C2, C3 = (\n    1.0,\n    -1.0 / 3.0,\n    0.125,\n)\nC0, C2 = C2, C0\n",   # swapped later
])
def test_an_unpacked_name_the_module_binds_again_or_a_call_is_no_constant(change):
    text = SERIES.replace("C0, C2, C3 = (\n    1.0,\n    -1.0 / 3.0,\n    0.125,\n)\n", change)
    err = compile_source(text, "series.py").kernel("series").error
    assert err is not None and "series.py:" in err.render() and "constant" in err.render(), err
