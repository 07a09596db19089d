"""`wp.atan2` under real Warp on its CPU device, verikern's simulator and
`cpu:native`, on the same inputs (quadrant edge cases included), against
numpy.arctan2 as the independent reference."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def kernels():
    init_warp_quietly(wp)
    spec = importlib.util.spec_from_file_location("verikern_warp_compat_atan2",
                                                  HERE / "kernels_atan2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs():
    rng = np.random.default_rng(10)
    ey = [0.0, 0.0, -0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, 2.0, 1e-30, -7.0]
    ex = [0.0, -0.0, 0.0, -0.0, 0.0, 0.0, np.inf, 1.0, -np.inf, -3.0, -1e30, -1e-30]
    y = np.concatenate([rng.uniform(-3, 3, 64), ey]).astype(np.float32)
    x = np.concatenate([rng.uniform(-3, 3, 64), ex]).astype(np.float32)
    return y, x


def test_atan2_agrees_with_warp_and_numpy(kernels):
    y, x = inputs()
    n = y.size
    wy, wx = wp.array(y, device="cpu"), wp.array(x, device="cpu")
    w32, w64 = wp.zeros(n, dtype=float, device="cpu"), wp.zeros(n, dtype=wp.float64, device="cpu")
    wp.launch(kernels.angles, dim=n, inputs=[wy, wx, w32, w64], device="cpu")
    wp.synchronize_device("cpu")
    w32, w64 = w32.numpy(), w64.numpy()
    ref32, ref64 = np.arctan2(y, x), np.arctan2(y.astype(np.float64), x.astype(np.float64))
    np.testing.assert_allclose(w64, ref64, rtol=1e-15)      # Warp itself matches numpy
    for dev in ("cpu", "cpu:native"):
        o32, o64 = np.zeros(n, np.float32), np.zeros(n)
        vk.launch(kernels.angles, n, [y, x, o32, o64], block_dim=32, device=dev)
        np.testing.assert_allclose(o32, w32, rtol=1e-6, atol=0, err_msg=dev)
        np.testing.assert_allclose(o64, w64, rtol=1e-15, atol=0, err_msg=dev)
        np.testing.assert_allclose(o32, ref32, rtol=1e-6, atol=0, err_msg=dev)
        assert (np.signbit(o32) == np.signbit(w32)).all(), dev   # signed zeros and pi
