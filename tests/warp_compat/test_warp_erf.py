"""`wp.erf` / `wp.erfc` under real Warp on its CPU device, verikern's simulator
and `cpu:native`, on the same inputs (tails, zero, infinities, NaN included),
against math.erf / math.erfc as the independent reference; proved and
assembled by ptxas."""
from __future__ import annotations

import math

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.backends.ptx import find_ptxas
from warp_compat.compat_util import HERE, load_kernels, ptxas_entries

wp = pytest.importorskip("warp")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_erf")


def inputs(dtype):
    rng = np.random.default_rng(12)
    edge = [0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 3.0, -3.0, 9.0, 27.0, -27.0, np.inf, -np.inf]
    return np.concatenate([rng.uniform(-6, 6, 100), edge]).astype(dtype)


def test_erf_erfc_agree_with_warp_and_math(kernels):
    r = inputs(np.float32)
    w = wp.zeros(len(r), dtype=wp.float32, device="cpu")
    wp.launch(kernels.erf_f32, dim=len(r), inputs=[wp.array(r, device="cpu"), w], device="cpu")
    ref = np.array([math.erf(float(x)) + 2.0 * math.erfc(float(x)) for x in r])
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-6, atol=1e-6)
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(len(r), np.float32)
        vk.launch(kernels.erf_f32, len(r), [r, out], device=dev)
        np.testing.assert_allclose(out, w.numpy(), rtol=1e-6, atol=1e-6, err_msg=dev)


def test_ewald_term_in_double_precision(kernels):
    r = np.abs(inputs(np.float64)[:100]) + 0.1
    w = wp.zeros(len(r), dtype=wp.float64, device="cpu")
    wp.launch(kernels.ewald_f64, dim=len(r), device="cpu",
              inputs=[0.7, wp.array(r, dtype=wp.float64, device="cpu"), w])
    ar = 0.7 * r
    ref = np.array([math.erfc(a) for a in ar]) / r ** 3 + 2 / math.sqrt(math.pi) * 0.7 \
        * np.exp(-ar * ar) / r ** 2 + np.array([math.erf(a) for a in ar])
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-13)
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(len(r))
        vk.launch(kernels.ewald_f64, len(r), [0.7, r, out], device=dev)
        np.testing.assert_allclose(out, w.numpy(), rtol=1e-14, err_msg=dev)


def test_erf_kernels_are_proved():
    assert {r.kernel: r.status.value for r in prove_file(HERE / "kernels_erf.py")} == {
        "erf_f32": "proved", "ewald_f64": "proved"}


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")
def test_erf_kernels_assemble_with_ptxas():
    assert len(ptxas_entries("kernels_erf")) == 2
