"""Warp structs (tests/warp_compat/kernels_structs.py) under real Warp on
its CPU device and under verikern's simulator and `cpu:native`, the struct
passed as Warp's own struct instance (its array fields CPU Warp arrays) or
as a dict of numpy arrays, and arrays of structs as Warp struct arrays or
numpy structured arrays in Warp's memory layout: equal results, numpy as an
independent reference, and the kernels proved under their contracts."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.backends.ptx import find_ptxas
from verikern.errors import LaunchError

from warp_compat.compat_util import load_kernels, ptxas_entries

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_structs")


def cloud(m, pts, w, n, wrap):
    """Warp's own instance of the struct."""
    c = m.Cloud()
    c.n = n
    c.frame.scale = 2.0
    c.frame.offset = wp.vec3(1.0, -2.0, 0.5)
    c.frame.turn = wp.quat(0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5))   # a quarter turn about z
    c.points = wrap(pts, wp.vec3)
    c.weights = wrap(w, float)
    return c


def test_struct_parameters_locals_and_funcs(kernels):
    m = kernels
    rng = np.random.default_rng(21)
    size, n = 16, 13
    pts = rng.normal(size=(size, 3)).astype(np.float32)
    w = rng.normal(size=size).astype(np.float32)

    def on_cpu(a, dtype):
        return wp.array(a, dtype=dtype, device="cpu")

    out, total = wp.zeros(size, dtype=wp.vec3, device="cpu"), wp.zeros(1, dtype=float, device="cpu")
    wp.launch(m.clouds, dim=size, inputs=[cloud(m, pts, w, n, on_cpu), out, total], device="cpu")
    want_out, want_total = out.numpy(), total.numpy()
    for dev in DEVICES:
        as_dict = {"n": n, "frame": {"scale": 2.0, "offset": (1.0, -2.0, 0.5),
                                     "turn": (0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5))},
                   "points": pts.copy(), "weights": w.copy()}   # numpy arrays in its fields
        for c in (cloud(m, pts, w, n, on_cpu), as_dict):
            o, t = np.zeros((size, 3), np.float32), np.zeros(1, np.float32)
            vk.launch(m.clouds, size, [c, o, t], device=dev)
            np.testing.assert_allclose(o, want_out, rtol=1e-5, atol=1e-5, err_msg=dev)
            np.testing.assert_allclose(t, want_total, rtol=1e-5, atol=1e-5, err_msg=dev)
    # numpy: p = R (2 x) + offset with R (x, y, z) = (-y, x, z); out = p + e_x + p * i where w > 0
    p = np.stack([-2 * pts[:, 1], 2 * pts[:, 0], 2 * pts[:, 2]], axis=1) + [1.0, -2.0, 0.5]
    i = np.arange(size)[:, None]
    want = np.where(w[:, None] > 0, p + [1.0, 0, 0] + p * i, [1.0, -2.0, 0.5])
    want[n:] = 0.0
    np.testing.assert_allclose(want_out, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want_total, w[:n][w[:n] > 0].sum(), rtol=1e-5)


def test_a_struct_missing_a_field_is_a_launch_error(kernels):
    c = {"n": 1, "frame": {"scale": 1.0, "offset": (0, 0, 0), "turn": (0, 0, 0, 1)},
         "points": np.zeros((1, 3), np.float32)}
    with pytest.raises(LaunchError, match="no field weights"):
        vk.launch(kernels.clouds, 1, [c, np.zeros((1, 3), np.float32), np.zeros(1, np.float32)])


def test_arrays_of_structs_in_warp_memory_layout(kernels):
    m = kernels
    rng = np.random.default_rng(22)
    n = 11
    start = wp.zeros(n, dtype=m.Particle, device="cpu").numpy()   # Warp's layout, padding included
    assert start.dtype.itemsize == 36 and start.dtype.fields["cell"][1] == 32
    start["pos"] = rng.normal(size=(n, 3)) * 3
    start["vel"] = rng.normal(size=(n, 3))
    start["mass"] = rng.uniform(1, 2, n)
    start["alive"] = np.arange(n) % 3 != 0

    def warp_arrays():
        ps = wp.zeros(n, dtype=m.Particle, device="cpu")
        ps.numpy()[...] = start
        return ps, wp.zeros(n, dtype=m.Particle, device="cpu")

    ps, out = warp_arrays()
    e = wp.zeros(n, dtype=float, device="cpu")
    wp.launch(m.particles, dim=n, inputs=[ps, out, e, 0.25], device="cpu")
    want = (ps.numpy().copy(), out.numpy().copy(), e.numpy().copy())
    for dev in DEVICES:
        ps, out = warp_arrays()                            # Warp struct arrays
        e = np.zeros(n, np.float32)
        vk.launch(m.particles, n, [ps, out, e, 0.25], device=dev)
        got_warp = (ps.numpy(), out.numpy(), e)
        ps_np, out_np = start.copy(), np.zeros_like(start)    # numpy structured arrays
        e_np = np.zeros(n, np.float32)
        vk.launch(m.particles, n, [ps_np, out_np, e_np, 0.25], device=dev)
        for got in (got_warp, (ps_np, out_np, e_np)):
            for g, w in zip(got[:2], want[:2]):
                for f in start.dtype.names:
                    np.testing.assert_allclose(g[f].astype(float), w[f].astype(float),
                                               rtol=1e-5, atol=1e-5, err_msg=f"{dev} {f}")
            np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-5, err_msg=dev)
    # numpy reference for the moved particles and the kick
    alive = start["alive"]
    moved = start["pos"] + start["vel"] * 0.25
    np.testing.assert_allclose(want[1]["pos"][alive], moved[alive], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(want[1]["cell"][alive], np.trunc(moved[alive][:, 0]))
    np.testing.assert_allclose(want[0]["vel"], start["vel"] - [0, 1, 0], rtol=1e-6)
    np.testing.assert_allclose(want[0]["mass"], 2 * start["mass"], rtol=1e-6)


def test_funcs_that_return_structs(kernels):
    rng = np.random.default_rng(23)
    n = 20
    o, d = (rng.normal(size=(n, 3)).astype(np.float32) for _ in range(2))
    d[4, 2] = 0.0                                  # parallel to the plane: no hit
    t = wp.zeros(n, dtype=float, device="cpu")
    wp.launch(kernels.hits, dim=n, inputs=[wp.array(o, dtype=wp.vec3, device="cpu"),
                                           wp.array(d, dtype=wp.vec3, device="cpu"), t],
              device="cpu")
    for dev in DEVICES:
        ours = np.zeros(n, np.float32)
        vk.launch(kernels.hits, n, [o, d, ours], device=dev)
        np.testing.assert_allclose(ours, t.numpy(), rtol=1e-6, err_msg=dev)
    with np.errstate(divide="ignore"):
        hit = -o[:, 2] / d[:, 2]
    want = np.where((d[:, 2] != 0) & (hit > 0), hit + 1.0, 0.0)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-6)


@pytest.mark.slow
def test_struct_kernels_are_proved():
    assert {r.kernel: r.status.value for r in prove_file(HERE / "kernels_structs.py")} == {
        "clouds": "proved", "particles": "proved", "hits": "proved"}


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")
def test_struct_kernels_assemble_with_ptxas():
    assert len(ptxas_entries("kernels_structs")) == 3


# warp-simdata's `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`: Warp takes an array of a
# struct with array fields (each element holds its own arrays); verikern models reads of them
# (test_warp_held_reads.py) and says where a body writes one or uses one otherwise
HELD = '''import warp as wp


@wp.struct
class Block:
    data: wp.array(dtype=wp.int32)
    n: wp.int32


@wp.struct
class Mesh:
    blocks: wp.array(dtype=Block)
    count: wp.int32


@wp.kernel
def {kernel}
'''


@pytest.mark.parametrize("kernel, where, words", [
    ("by_field(m: Mesh, out: wp.array(dtype=wp.int32)):\n    out[0] = m.blocks[0].data[0]\n"
     "    m.blocks[0].data[1] = 2\n", "k.py:19:5", "read-only here"),
    ("by_param(blocks: wp.array(dtype=Block), out: wp.array(dtype=wp.int32)):\n"
     "    out[0] = wp.lower_bound(blocks[0].data, 3)\n", "k.py:18:29", "can be indexed"),
])
def test_a_write_or_other_use_of_a_held_array_is_a_located_error(tmp_path, kernel, where, words):
    wp = pytest.importorskip("warp")
    text = HELD.format(kernel=kernel)
    (tmp_path / "k.py").write_text(text)
    from verikern.frontend import compile_file   # lazy: this test only
    err = compile_file(tmp_path / "k.py").kernels[0].error
    assert err is not None and err.rule == "struct-use", err
    assert where in err.render() and words in err.render(), err.render()
    assert wp is not None      # Warp builds and runs this shape (tests/warp_compat: real Warp installed)
