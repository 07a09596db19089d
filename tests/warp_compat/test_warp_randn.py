"""`wp.randn` under real Warp on its CPU device, verikern's simulator and
`cpu:native` on the same seeds, against an independent Python reference of
rand.h (PCG hash, two randf draws, Box-Muller in float64), and assembled by
ptxas. The uniform draws are bit for bit Warp's; the normal value goes through
float32 log, cos and sqrt, so it is compared within docs/LANGUAGE.md section 6's
tolerance (Warp's CPU libm and a correctly rounded one differ by an ulp)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.backends.ptx import find_ptxas
from warp_compat.compat_util import HERE, load_kernels, ptxas_entries

wp = pytest.importorskip("warp")

N = 2048
SEED = 12345


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_randn")


def pcg(x: int) -> int:
    b = (x * 747796405 + 2891336453) & 0xFFFFFFFF
    c = (((b >> ((b >> 28) + 4)) ^ b) * 277803737) & 0xFFFFFFFF
    return (c >> 22) ^ c


def reference(seed: int, i: int) -> tuple[float, float]:
    """(randn, the randf after it) of thread i, from rand.h's formulas."""
    state = pcg((seed + pcg(i)) & 0xFFFFFFFF)
    draws = []
    for _ in range(3):
        state = pcg(state)
        draws.append(float(np.float32(state >> 8) * np.float32(2.0 ** -24)))
    u1, u2, tail = draws
    x = float(np.float32(u1) + np.float32(5.96e-8))
    return math.sqrt(-2.0 * math.log(x)) * math.cos(2.0 * math.pi * u2), tail


def test_randn_agrees_with_warp_and_rand_h(kernels):
    out, tail = wp.zeros(N, dtype=float, device="cpu"), wp.zeros(N, dtype=float, device="cpu")
    wp.launch(kernels.normals, dim=N, inputs=[SEED, out, tail], device="cpu")
    w_out, w_tail = out.numpy(), tail.numpy()
    ref = np.array([reference(SEED, i) for i in range(N)])
    np.testing.assert_allclose(w_out, ref[:, 0], rtol=1e-5, atol=1e-5)
    assert np.array_equal(w_tail, ref[:, 1].astype(np.float32))
    ours = {}
    for dev in ("cpu", "cpu:native"):
        o, t = np.zeros(N, np.float32), np.zeros(N, np.float32)
        vk.launch(kernels.normals, N, [SEED, o, t], device=dev)
        assert np.array_equal(t, w_tail), dev               # same state advance, bit for bit
        np.testing.assert_allclose(o, w_out, rtol=1e-6, atol=1e-6, err_msg=dev)
        ours[dev] = o
    assert np.array_equal(ours["cpu"], ours["cpu:native"])
    assert abs(w_out.mean()) < 0.1 and abs(w_out.std() - 1.0) < 0.1     # N(0, 1), not uniform
    assert (np.abs(w_out) > 2.0).sum() > 20


def test_randn_in_double_precision_kick(kernels):
    rng = np.random.default_rng(3)
    kt = rng.uniform(0.1, 2.0, 300)
    vel = rng.uniform(-1, 1, (300, 3))
    w_vel = wp.array(vel, dtype=wp.vec3d, device="cpu")
    wp.launch(kernels.thermal_kick, dim=300, inputs=[SEED, wp.array(kt, dtype=wp.float64,
                                                                    device="cpu"), w_vel],
              device="cpu")
    for dev in ("cpu", "cpu:native"):
        v = vel.copy()
        vk.launch(kernels.thermal_kick, 300, [SEED, kt.copy(), v], device=dev)
        np.testing.assert_allclose(v, w_vel.numpy(), rtol=1e-6, atol=1e-6, err_msg=dev)
    assert not np.allclose(w_vel.numpy(), vel)


def test_randn_kernels_are_proved():
    reports = prove_file(HERE / "kernels_randn.py")
    assert {r.kernel: r.status.value for r in reports} == {
        "normals": "proved", "thermal_kick": "proved"}


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")
def test_randn_kernels_assemble_with_ptxas():
    assert len(ptxas_entries("kernels_randn")) == 2
