"""Array views: `m = a[i, j]` of an array with more dimensions than indices,
as nvalchemi's DFT-D3 binds `c6ab_mat = c6_reference[z_i, z_j]` of a 4-d array
and passes it to a func taking a 2-d one (verikern/frontend/check/views.py).
Real Warp on its CPU device is the reference: reads, writes, atomics, shapes,
views of views, a view bound in a loop and passed to a func give Warp's
results on verikern's simulator and cpu:native; every index of an access
through a view, the leading ones included, is a bounds obligation; what
verikern does not take is a located error."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from warp_compat.compat_util import warp_module_from_text

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

VIEWS = '''import warp as wp


@wp.func
def weighted(m: wp.array2d(dtype=wp.float32), w: wp.float32) -> wp.float32:
    s = wp.float32(0.0)
    for p in range(m.shape[0]):
        for q in range(m.shape[1]):
            s += m[p, q] * w * wp.float32(p + 2 * q + 1)
    return s


@wp.kernel
def pair_sums(z: wp.array(dtype=wp.int32), ref: wp.array4d(dtype=wp.float32),
              out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    zi = z[i]
    zj = z[(i + 1) % z.shape[0]]
    mat = ref[zi, zj]
    zi = 0                      # the view keeps the index it was bound with
    row = mat[1]                # a view of a view: ref[z[i], zj, 1]
    out[i] = weighted(mat, 0.5) + row[2] + wp.float32(mat.shape[0] * 10 + mat.shape[1] + zi)


@wp.kernel
def scatter_rows(idx: wp.array(dtype=wp.int32), grid: wp.array3d(dtype=wp.float64),
                 hist: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    plane = grid[i]
    for k in range(plane.shape[0]):
        line = plane[k]
        line[idx[i]] = line[idx[i]] + wp.float64(k + 1)
        counts = hist[k]
        wp.atomic_add(counts, idx[i], 1)
'''


def test_views_read_write_and_atomics_as_warp_does(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, VIEWS, "verikern_array_views")
    ours = compile_source(VIEWS, "views.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    rng = np.random.default_rng(11)
    z = np.array([0, 2, 1, 2, 0, 1], np.int32)
    ref = rng.uniform(-1, 1, (3, 3, 4, 5)).astype(np.float32)
    theirs = wp.zeros(6, dtype=wp.float32, device="cpu")
    wp.launch(module.pair_sums, dim=6, device="cpu", inputs=[
        wp.array(z, dtype=wp.int32, device="cpu"), wp.array(ref, dtype=wp.float32, device="cpu"), theirs])
    idx = np.array([3, 0, 3, 1], np.int32)
    grid = rng.uniform(-1, 1, (4, 3, 5))
    w_grid = wp.array(grid, dtype=wp.float64, device="cpu")
    w_hist = wp.zeros((3, 5), dtype=wp.int32, device="cpu")
    wp.launch(module.scatter_rows, dim=4, device="cpu",
              inputs=[wp.array(idx, dtype=wp.int32, device="cpu"), w_grid, w_hist])
    expected = grid.copy()
    expected[np.arange(4)[:, None], np.arange(3)[None, :], idx[:, None]] += np.arange(1, 4)
    np.testing.assert_array_equal(w_grid.numpy(), expected)      # the reference itself, by numpy
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(6, np.float32)
        vk.launch(ours.kernel("pair_sums").mir, 6, [z, ref, out], device=dev)
        np.testing.assert_allclose(out, theirs.numpy(), rtol=1e-6, err_msg=dev)
        g, hist = grid.copy(), np.zeros((3, 5), np.int32)
        vk.launch(ours.kernel("scatter_rows").mir, 4, [idx, g, hist], device=dev)
        np.testing.assert_array_equal(g, w_grid.numpy(), err_msg=dev)
        np.testing.assert_array_equal(hist, w_hist.numpy(), err_msg=dev)


CHAINED = '''import warp as wp


@wp.kernel
def chained(virial: wp.array2d(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    wp.atomic_add(virial, i, 0, type(virial[0][0])(1.5))    # nvalchemi's LJ virial
    out[i][1] = virial[i][0] * 2.0
    out[i][0] += virial[i][1]
'''


def test_a_chained_index_of_a_view_accesses_the_element_as_warp_does(warp_cpu, tmp_path):
    """`a[i][j]` of a 2-d array is a view indexed at once: the element a[i, j]."""
    module = warp_module_from_text(tmp_path, CHAINED, "verikern_array_views_chained")
    ours = compile_source(CHAINED, "chained.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    virial = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = np.ones((4, 2), np.float32)
    w_virial, w_out = wp.array(virial, dtype=wp.float32, device="cpu"), wp.array(out, dtype=wp.float32, device="cpu")
    wp.launch(module.chained, dim=4, device="cpu", inputs=[w_virial, w_out])
    for dev in ("cpu", "cpu:native"):
        v, o = virial.copy(), out.copy()
        vk.launch(ours.kernel("chained").mir, 4, [v, o], device=dev)
        np.testing.assert_array_equal(v, w_virial.numpy(), err_msg=dev)
        np.testing.assert_array_equal(o, w_out.numpy(), err_msg=dev)


READ = '''import warp as wp


@wp.kernel
def first(z: wp.array(dtype=wp.int32), ref: wp.array3d(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < z.shape[0] and i < out.shape[0]:
        m = ref[z[i]]
        if m.shape[0] > 0 and m.shape[1] > 1:
            out[i] = m[0, 1]
'''


def _failed(text: str) -> list:
    (r,) = prove_source(text, "k.py", suggest=False)
    return sorted((o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed")


def test_every_index_of_an_access_through_a_view_is_a_bounds_obligation():
    """`m = ref[z[i]]` with z's values unchecked: the access m[0, 1] is ref[z[i], 0, 1],
    out of bounds when z[i] is; guarded, every access is in bounds. A view's shape is
    its array's trailing shape (the guard on m.shape proves the trailing indices)."""
    assert _failed(READ) == [("bounds", 10, 22)]
    guarded = READ.replace("if m.shape[0] > 0", "if z[i] >= 0 and z[i] < ref.shape[0] and m.shape[0] > 0")
    assert _failed(guarded) == []
    assert _failed(guarded.replace("m.shape[1] > 1", "m.shape[1] > 0")) == [("bounds", 10, 22)]


@pytest.mark.parametrize("body, rule, where", [
    ("    m = ref[i]\n    m = ref[i + 1]\n    out[i] = m[0, 0]\n", "array-view", "k.py:8:5"),
    ("    if i > 0:\n        m = ref[i]\n    out[i] = m[0, 0]\n", "undefined-variable", "k.py:9:14"),
    ("    out[i] = ref[i][0]\n", "index-count", "k.py:7:14"),      # still a view: unnamed
    ("    s = wp.shared.array(shape=(4, 4), dtype=wp.float32)\n    r = s[0]\n    out[i] = r[0]\n",
     "array-view", "k.py:8:9"),
])
def test_what_verikern_does_not_take_of_views_is_a_located_error(body, rule, where):
    text = ("import warp as wp\n\n\n@wp.kernel\ndef k(ref: wp.array3d(dtype=wp.float32), "
            "out: wp.array(dtype=wp.float32)):\n    i = wp.tid()\n" + body)
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.rule == rule, (err.render() if err else None)
    assert where in err.render(), err.render()
