"""numpy's and math's float constants in kernel code under real Warp on its
CPU device (tests/warp_compat/kernels_numpy_constants.py): verikern's
simulator and cpu:native give Warp's values, NaN where Warp gives NaN."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.test_fe_numpy_constants import R, X, by_hand, on_verikern
from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")


@pytest.fixture(scope="module")
def on_warp(tmp_path_factory) -> tuple[np.ndarray, np.ndarray]:
    module = load_kernels(wp, tmp_path_factory, "kernels_numpy_constants")
    out = wp.zeros((len(X), 6), dtype=wp.float32, device="cpu")
    out64 = wp.zeros(len(X), dtype=wp.float64, device="cpu")
    wp.launch(module.constants, dim=len(X), device="cpu",
              inputs=[wp.array(X, dtype=wp.float32, device="cpu"), wp.array(R, dtype=wp.float64, device="cpu"),
                      out, out64])
    return out.numpy(), out64.numpy()


def test_warp_reads_the_constants_as_numpy_holds_them(on_warp):
    want, want64 = by_hand()
    np.testing.assert_allclose(on_warp[0], want, rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(on_warp[1], want64, rtol=1e-12)


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_verikern_gives_warps_values(on_warp, device):
    out, out64 = on_verikern(device)
    np.testing.assert_array_equal(out, on_warp[0])     # bit for bit, NaN where Warp has NaN
    np.testing.assert_array_equal(out64, on_warp[1])
