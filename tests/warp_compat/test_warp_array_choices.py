"""A call argument choosing between two arrays under real Warp on its CPU
device (tests/warp_compat/kernels_array_choices.py): verikern's simulator and
cpu:native read the array Warp reads, for either value of the test."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.test_fe_array_choices import NEIGHBORS, ORDER, VALS, WIDTH, by_hand, on_verikern
from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")


@pytest.fixture(scope="module")
def on_warp(tmp_path_factory):
    module = load_kernels(wp, tmp_path_factory, "kernels_array_choices")
    lists = module.Lists()
    lists.neighbors = wp.array(NEIGHBORS, dtype=wp.int32, device="cpu")
    lists.order = wp.array(ORDER, dtype=wp.int32, device="cpu")
    outs = {}
    for use in (True, False):
        out = wp.full(3, 7.0, dtype=wp.float32, device="cpu")
        wp.launch(module.choose, dim=3, device="cpu",
                  inputs=[lists, wp.array(VALS, dtype=wp.float32, device="cpu"), use, WIDTH, out])
        outs[use] = out.numpy()
    return outs


@pytest.mark.parametrize("use_neighbors", [True, False])
def test_warp_reads_the_chosen_array(on_warp, use_neighbors):
    np.testing.assert_array_equal(on_warp[use_neighbors], by_hand(use_neighbors))


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
@pytest.mark.parametrize("use_neighbors", [True, False])
def test_verikern_reads_what_warp_reads(on_warp, device, use_neighbors):
    np.testing.assert_array_equal(on_verikern(device, use_neighbors), on_warp[use_neighbors])
