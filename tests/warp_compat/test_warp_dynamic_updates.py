"""Updates of a local vector or matrix at a run-time index under real Warp on
its CPU device (tests/warp_compat/kernels_dynamic_updates.py: `res[i] += x`,
`m[i] *= s`, `m[i, j] -= x`, `m[i][j] = x`): verikern's simulator and
cpu:native give Warp's values."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.test_fe_dynamic_updates import K, M, N, V, by_hand, on_verikern
from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")


@pytest.fixture(scope="module")
def on_warp(tmp_path_factory):
    module = load_kernels(wp, tmp_path_factory, "kernels_dynamic_updates")
    out = wp.zeros(N, dtype=wp.vec3, device="cpu")
    eye = wp.zeros(N, dtype=wp.mat33, device="cpu")
    rows = wp.zeros(N, dtype=wp.mat33, device="cpu")
    wp.launch(module.updates, dim=N, device="cpu",
              inputs=[wp.array(M, dtype=wp.mat33, device="cpu"), wp.array(V, dtype=wp.vec3, device="cpu"),
                      wp.array(K, dtype=wp.int32, device="cpu"), out, eye, rows])
    return out.numpy(), eye.numpy(), rows.numpy()


def test_warp_updates_the_component_the_index_names(on_warp):
    for got, want in zip(on_warp, by_hand()):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_verikern_gives_warps_values(on_warp, device):
    for got, want in zip(on_verikern(device), on_warp):
        np.testing.assert_array_equal(got, want)
