"""Float literals compared with float64 values under real Warp on its CPU
device (tests/warp_compat/kernels_float_literals.py): Warp types the literal
float32 and widens it, and verikern's simulator and cpu:native give the same
results on values on either side of both readings of each literal (the table
by hand is tests/frontend/test_fe_float_literal_compare.py's)."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.test_fe_float_literal_compare import COLUMNS, X, by_hand, on_verikern
from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")


@pytest.fixture(scope="module")
def on_warp(tmp_path_factory) -> np.ndarray:
    module = load_kernels(wp, tmp_path_factory, "kernels_float_literals")
    out = wp.zeros((len(X), COLUMNS), dtype=wp.int32, device="cpu")
    wp.launch(module.compares, dim=len(X), device="cpu",
              inputs=[wp.array(X, dtype=wp.float64, device="cpu"),
                      wp.array(X.astype(np.float32), dtype=wp.float32, device="cpu"), out])
    return out.numpy()


def test_warp_compares_with_the_float32_literal(on_warp):
    assert list(on_warp[:2, 0]) == [1, 0]      # 0.1 < (double)0.1f; 0.1f < 0.1f is false
    np.testing.assert_array_equal(on_warp, by_hand())


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_verikern_compares_float_literals_as_warp_does(on_warp, device):
    np.testing.assert_array_equal(on_verikern(device), on_warp)
