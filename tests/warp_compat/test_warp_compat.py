"""Warp-style kernels (written for this project) run under real Warp on its
CPU device and under verikern's simulator and `cpu:native` on the same
inputs, with equal results (docs/LANGUAGE.md section 6 tolerance); the decorator
contracts leave Warp's behaviour unchanged, and `vk.check_launch` /
`vk.launch(outputs=...)` accept Warp kernel objects and Warp arrays."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.errors import ContractError, LaunchError
from verikern.app.prove import prove_file
from warp_compat.compat_util import init_warp

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
RTOL = ATOL = 1e-6
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def warp(tmp_path_factory):
    return init_warp(wp, tmp_path_factory)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"verikern_warp_compat_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def warp_value(v, dtype):
    if dtype is None:
        return v
    if isinstance(dtype, str):  # a vector/matrix/quat kernel argument
        return getattr(wp, dtype)(*np.asarray(v, dtype=np.float32).reshape(-1).tolist())
    return wp.array(v, dtype=dtype, device="cpu")


def run_everywhere(kernel, dim, values, dtypes):
    """(warp results, {device: verikern results}) for every argument."""
    theirs = [warp_value(v.copy() if isinstance(v, np.ndarray) else v, t)
              for v, t in zip(values, dtypes)]
    wp.launch(kernel, dim=dim, inputs=theirs, device="cpu")
    wp.synchronize_device("cpu")
    warp_out = [t.numpy() if isinstance(t, wp.array) else None for t in theirs]
    ours = {}
    for dev in DEVICES:
        args = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        vk.launch(kernel, dim, args, block_dim=32, device=dev)
        ours[dev] = args
    return warp_out, ours


def assert_same(warp_out, ours, values):
    for dev, args in ours.items():
        for k, (w, o) in enumerate(zip(warp_out, args)):
            if w is not None:
                np.testing.assert_allclose(o, w.reshape(o.shape), rtol=RTOL, atol=ATOL,
                                           err_msg=f"argument {k} on {dev}")


def f32(rng, *shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def test_array_spellings_and_module_constants(warp):
    m = load("kernels_spellings")
    rng = np.random.default_rng(1)
    a, b = f32(rng, 40), f32(rng, 40)
    warp_out, ours = run_everywhere(m.spell_1d, 40, [a, b, np.zeros(40, np.float32)],
                                    [float, float, float])
    assert_same(warp_out, ours, None)
    np.testing.assert_allclose(warp_out[2], a * b + 0.25 + 3.0, rtol=1e-6)   # independent reference

    mm, nn = f32(rng, 5, 7), f32(rng, 5, 7)
    warp_out, ours = run_everywhere(m.spell_2d, (5, 7), [mm, nn, np.zeros((5, 7, 3), np.float32)],
                                    [float, float, wp.vec3])
    assert_same(warp_out, ours, None)
    assert warp_out[2][3, 4].tolist() == [mm[3, 4], nn[3, 4], 34.0]


def test_vector_matrix_quat_parameters(warp):
    m = load("kernels_spellings")
    rng = np.random.default_rng(2)
    pts = f32(rng, 33, 3)
    u, M = f32(rng, 3), f32(rng, 3, 3)
    q = f32(rng, 4)
    q /= np.linalg.norm(q)
    values = [pts, u, M, q, 1.5, np.zeros((33, 3), np.float32)]
    warp_out, ours = run_everywhere(m.transform, 33, values,
                                    [wp.vec3, "vec3", "mat33", "quat", None, wp.vec3])
    assert_same(warp_out, ours, values)
    # independent reference: rotate M p + 1.5 u by q (x, y, z, w) with numpy
    x, y, z, w = q.astype(np.float64)
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    want = (R @ (pts.astype(np.float64) @ M.T.astype(np.float64) + 1.5 * u).T).T
    np.testing.assert_allclose(warp_out[5], want, rtol=1e-4, atol=1e-4)


def test_warp_builtins_and_keywords(warp):
    m = load("kernels_builtins")
    rng = np.random.default_rng(3)
    x = f32(rng, 50, lo=-1.0, hi=3.0)
    warp_out, ours = run_everywhere(m.scalar_builtins, 50, [x, np.zeros(50, np.float32)],
                                    [float, float])
    assert_same(warp_out, ours, None)
    xd = x.astype(np.float64)
    t = np.clip(xd, 0, 1)
    want = (xd * 0.75 + 2.0 * 0.25) + np.fmod(xd, 0.75) + t * t * (3 - 2 * t) \
        + np.where(xd - 1 < 0, -1.0, 1.0) + np.clip(xd, 0.5, 2.5) + np.arange(50) % 3 \
        + np.radians(xd) + np.degrees(xd) + np.where(xd < np.arange(50), 100.0, 0.0)
    np.testing.assert_allclose(warp_out[1], want, rtol=1e-5, atol=1e-5)

    ang = f32(rng, 20)
    values = [ang, np.zeros((20, 4), np.float32), np.zeros((20, 3, 3), np.float32),
              np.zeros((20, 3), np.float32)]
    warp_out, ours = run_everywhere(m.vector_builtins, 20, values,
                                    [float, wp.quat, wp.mat33, wp.vec3])
    assert_same(warp_out, ours, values)
    np.testing.assert_allclose(warp_out[2][7], np.eye(3) * ang[7], rtol=1e-6)


def test_atomics_and_contents_contracts(warp):
    m = load("kernels_spellings")
    rng = np.random.default_rng(4)
    vals = np.arange(10, dtype=np.float32)   # small integers: the atomic sum is exact
    idx = rng.integers(0, 10, 64).astype(np.int32)
    warp_out, ours = run_everywhere(m.gather_add, 64, [idx, vals, np.zeros(1, np.float32)],
                                    [wp.int32, float, float])
    assert_same(warp_out, ours, None)
    assert warp_out[2][0] == float(vals[idx].sum())
    bad = idx.copy()
    bad[5] = 10
    with pytest.raises(ContractError, match="all_in_range"):
        vk.check_launch(m.gather_add, 64, [bad, vals], outputs=[np.zeros(1, np.float32)])


def test_decorators_leave_warp_unchanged(warp):
    m = load("kernels_spellings")
    assert isinstance(m.spell_1d, wp.Kernel) and isinstance(m.transform, wp.Kernel)
    assert m.spell_1d.key.endswith("spell_1d")
    marker = object()
    assert vk.requires(lambda a: True)(marker) is marker
    with pytest.raises(Exception, match="inside a @vk.kernel body"):
        vk.requires(True)
    # Warp launches a launch the contract refuses (Warp does not check contracts) ...
    a, b = np.ones(8, np.float32), np.ones(8, np.float32)
    out = wp.zeros(8, dtype=float, device="cpu")
    wp.launch(m.spell_1d, dim=4, inputs=[wp.array(a, device="cpu"), wp.array(b, device="cpu")],
              outputs=[out], device="cpu")
    assert out.numpy().tolist() == [4.25] * 4 + [0.0] * 4
    # ... and verikern checks it without running it, on Warp arrays too
    vk.check_launch(m.spell_1d, 8, [wp.array(a, device="cpu"), wp.array(b, device="cpu")],
                    outputs=[out])
    with pytest.raises(ContractError, match="launch_dim"):
        vk.check_launch(m.spell_1d, 4, [a, b, np.zeros(8, np.float32)])
    with pytest.raises(ContractError, match="out.shape"):
        vk.launch(m.spell_1d, 8, [a, b], outputs=[np.zeros(7, np.float32)])
    with pytest.raises(LaunchError, match="3 components"):
        vk.check_launch(m.transform, 2, [np.zeros((2, 3), np.float32), (1.0, 2.0),
                                         np.eye(3), (0, 0, 0, 1), 1.0,
                                         np.zeros((2, 3), np.float32)])


@pytest.mark.slow
def test_compat_kernels_are_proved():
    reports = prove_file(HERE / "kernels_spellings.py") + prove_file(HERE / "kernels_builtins.py")
    assert {r.kernel: r.status.value for r in reports} == {
        "spell_1d": "proved", "spell_2d": "proved", "transform": "proved",
        "gather_add": "proved", "scalar_builtins": "proved", "vector_builtins": "proved",
        "random_numbers": "proved"}


def test_kernel_factories_read_their_captures_as_warp_does(warp):
    m = load("kernels_factories")
    rng = np.random.default_rng(5)
    a = f32(rng, 30)
    for kernel, factor, n in ((m.scale_2_1, 2.0, 1), (m.scale_3_5, 3.0, 5)):
        warp_out, ours = run_everywhere(kernel, 30, [a], [float])
        assert_same(warp_out, ours, None)
        want = a.astype(np.float64)
        for _ in range(3):
            want = want * factor + n + 0.5 * 4.0
        np.testing.assert_allclose(warp_out[0], want, rtol=1e-5)
    src = f32(rng, 160)
    warp_out, ours = run_everywhere(m.gather_3, 10, [src, np.zeros(10, np.float32)],
                                    [float, float])
    assert_same(warp_out, ours, None)
    assert warp_out[1].tolist() == src[::3][:10].tolist()
    with pytest.raises(ContractError):   # 11 > 160 // 16: the contract is checked
        vk.check_launch(m.gather_3, 11, [src, np.zeros(11, np.float32)])
    # width = 2*radius + 1, span = wp.int32(width - 1), last: int = span - radius
    src = f32(rng, 14)
    warp_out, ours = run_everywhere(m.window_2, 10, [src, np.zeros(10, np.float32)], [float, float])
    assert_same(warp_out, ours, None)
    np.testing.assert_allclose(warp_out[1], src[2:12] + src[2:12], rtol=1e-6)


def test_factory_kernels_are_proved_for_every_captured_value():
    reports = prove_file(HERE / "kernels_factories.py")
    assert [(r.kernel, r.status.value) for r in reports] == [("scale", "proved"),
                                                             ("gather", "proved"),
                                                             ("window", "proved")]


def test_random_numbers_are_warps_exact_sequence(warp):
    m = load("kernels_builtins")
    values = [1234, np.zeros(70, np.float32), np.zeros(70, np.int32), np.zeros(70, np.uint32)]
    warp_out, ours = run_everywhere(m.random_numbers, 70, values, [None, float, wp.int32, wp.uint32])
    for dev, args in ours.items():
        for k in (1, 2, 3):
            assert np.array_equal(args[k], warp_out[k]), (dev, k)   # bit for bit
    assert len(set(warp_out[3].tolist())) > 60        # a real sequence, not a constant
    # independent reference for one value: rand_pcg as written in Warp's rand.h
    def pcg(x):
        b = (x * 747796405 + 2891336453) & 0xFFFFFFFF
        c = (((b >> ((b >> 28) + 4)) ^ b) * 277803737) & 0xFFFFFFFF
        return (c >> 22) ^ c
    f32 = np.float32
    state = pcg((1234 + pcg(5)) & 0xFFFFFFFF)
    state = pcg(state)
    v1 = f32(state >> 8) * f32(2.0 ** -24)
    state = pcg(state)
    v2 = f32(2.0) * (f32(state >> 8) * f32(2.0 ** -24)) + f32(-1.0)
    assert warp_out[1][5] == v1 + f32(10.0) * v2


def test_overloads_and_generics(warp):
    m = load("kernels_generic")
    rng = np.random.default_rng(6)
    a, b = f32(rng, 25), rng.integers(-50, 50, 25).astype(np.int32)
    values = [a, b, np.zeros(25, np.float32)]
    warp_out, ours = run_everywhere(m.overloaded, 25, values, [float, wp.int32, float])
    assert_same(warp_out, ours, values)
    np.testing.assert_allclose(warp_out[2], a * 2 + b * 3 + 0.75 + 5, rtol=1e-6)
    assert warp_out[1].tolist() == [50] * 25
    ints = rng.integers(-9, 9, 12).astype(np.int32)
    warp_out, ours = run_everywhere(m.generic_shift, 12, [ints, 7, np.zeros(12, np.int32)],
                                    [wp.int32, None, wp.int32])
    assert_same(warp_out, ours, None)
    assert warp_out[2].tolist() == (ints + 7).tolist()
    vecs = f32(rng, 12, 3)
    warp_out, ours = run_everywhere(m.generic_shift, 12, [vecs, (1.0, 2.0, 3.0),
                                                          np.zeros((12, 3), np.float32)],
                                    [wp.vec3, "vec3", wp.vec3])
    assert_same(warp_out, ours, None)
    np.testing.assert_allclose(warp_out[2], vecs + [1, 2, 3], rtol=1e-6)
    reports = prove_file(HERE / "kernels_generic.py")
    # Warp instantiates generic_shift for any types at launch, too many to enumerate for
    # three generic parameters; its body only moves values of the generic types, so the
    # type-oblivious proof of generic_shift[...] covers every instantiation, the declared
    # overloads included (docs/PROVER.md, "Generic kernels: the type-oblivious proof")
    assert [(r.kernel, r.status.value) for r in reports] == [
        ("overloaded", "proved"), ("generic_shift[int32, int32, int32]", "proved"),
        ("generic_shift[vec3, vec3, vec3]", "proved"), ("generic_shift[...]", "proved")]
    assert all(r.covered_by == "generic_shift[...]" for r in reports[1:3])
