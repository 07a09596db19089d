"""A local struct that holds arrays (tests/warp_compat/kernels_local_structs.py)
under real Warp on its CPU device and under verikern's simulator and `cpu:native`:
equal results, with numpy as an independent reference; the kernel proved under
its contract, and one whose contract leaves `hi` unbounded fails on the read
through the struct's field."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file

from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_local_structs")


def reference(x, y, lo, hi, periodic, far: bool):
    """numpy: per query point, the index of the nearest (or farthest) point of y under
    the wrapped distance, how often the best improved, and the (signed) best distance."""
    out = np.zeros((len(x), 3), np.float32)
    for i in range(len(x)):
        dx = x[i][None, :] - y
        size = hi - lo
        wrap = periodic != 0
        dx = np.where(wrap & (dx > 0.5 * size), dx - size, dx)
        dx = np.where(wrap & (dx < -0.5 * size), dx + size, dx)
        dist = np.sqrt((dx * dx).sum(axis=1, dtype=np.float32)).astype(np.float32)
        best, best_d, better = -1, np.float32(1.0e30), 0
        for j, v in enumerate(-dist if far else dist):
            if v < best_d:
                best, best_d, better = j, v, better + 1
        out[i] = (best, better, best_d)
    return out


@pytest.mark.parametrize("mode", [3, 4])
def test_local_struct_of_arrays_agrees_with_warp_and_numpy(kernels, mode):
    rng = np.random.default_rng(7)
    x = rng.uniform(0.0, 10.0, (6, 3)).astype(np.float32)
    y = rng.uniform(0.0, 10.0, (9, 3)).astype(np.float32)
    lo, hi = np.zeros(3, np.float32), np.full(3, 10.0, np.float32)
    periodic = np.array([1, 0, 1], np.int32)
    out = wp.zeros((6, 3), dtype=wp.float32, device="cpu")
    args = [wp.array(a, dtype=wp.float32, device="cpu") for a in (x, y, lo, hi)]
    wp.launch(kernels.nearest, dim=6, inputs=[*args, wp.array(periodic, dtype=wp.int32, device="cpu"),
                                              mode, out], device="cpu")
    want = out.numpy()
    np.testing.assert_allclose(want, reference(x, y, lo, hi, periodic, far=mode == 4), rtol=1e-5)
    for dev in DEVICES:
        got = np.zeros((6, 3), np.float32)
        vk.launch(kernels.nearest, 6, [x.copy(), y.copy(), lo.copy(), hi.copy(), periodic.copy(),
                                       mode, got], device=dev)
        np.testing.assert_array_equal(got, want, err_msg=dev)


def test_local_struct_kernel_is_proved_and_its_near_miss_fails(tmp_path):
    assert {r.kernel: r.status.value for r in prove_file(HERE / "kernels_local_structs.py")} == {
        "nearest": "proved"}
    text = (HERE / "kernels_local_structs.py").read_text().replace(
        " and hi.shape[0] == x.shape[1]", "")
    (tmp_path / "near_miss.py").write_text(text)
    (r,) = prove_file(tmp_path / "near_miss.py")
    assert r.status.value == "failed"
    bad = [o for o in r.obligations if o.status.value == "failed"]
    assert bad and all(o.kind == "bounds" and "hi" in o.message for o in bad), \
        [(o.kind, o.message) for o in bad]
