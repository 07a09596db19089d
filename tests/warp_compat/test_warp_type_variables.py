"""Funcs whose parameters Warp annotates with its constrained type variables,
`wp.Float`, `wp.Int` and `wp.Scalar` (nvalchemi's Ewald pair helpers): each
call specializes the func to its arguments' types, as for `Any`, and an
argument outside the variable's kinds has no overload (Warp 1.19 raises
"Couldn't find function overload"). Real Warp on its CPU device and
verikern's simulator and cpu:native give the same results."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_source
from warp_compat.compat_util import init_warp, warp_module_from_text

KERNEL = '''
import warp as wp


@wp.func
def pair_energy(qi: wp.Float, qj: wp.Float, r: wp.Float) -> wp.Float:
    return type(r)(0.5) * qi * qj / r


@wp.func
def last_below(i: wp.Int, n: wp.Int) -> wp.Int:
    return wp.min(i, n - type(n)(1))


@wp.func
def twice(x: wp.Scalar):
    return x + x


@wp.kernel
def energies(q: wp.array(dtype=wp.float64), r: wp.array(dtype=wp.float32),
             out64: wp.array(dtype=wp.float64), out32: wp.array(dtype=wp.float32),
             idx: wp.array(dtype=wp.int32), n: wp.int32):
    i = wp.tid()
    j = last_below(i + 1, n)
    idx[i] = twice(j)
    out64[i] = pair_energy(q[i], q[j], wp.float64(r[i]))
    out32[i] = twice(pair_energy(wp.float32(q[i]), wp.float32(q[j]), r[i]))
'''

WRONG_KIND = '''
import warp as wp


@wp.func
def half(x: wp.Float):
    return x * type(x)(0.5)


@wp.kernel
def halves(a: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a[i] = half(a[i])
'''


def _inputs():
    q = np.array([1.0, -2.0, 0.5, 3.0, 4.0], np.float64)
    r = np.array([1.0, 2.0, 4.0, 0.5, 8.0], np.float32)
    return q, r


def _by_hand(q, r, n):
    j = np.minimum(np.arange(5) + 1, n - 1)
    out64 = 0.5 * q * q[j] / r.astype(np.float64)
    e32 = np.float32(0.5) * q.astype(np.float32) * q[j].astype(np.float32) / r
    return 2 * j, out64, (e32 + e32).astype(np.float32)


def test_type_variable_funcs_specialize_per_call_as_in_warp(tmp_path, tmp_path_factory):
    wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")
    q, r = _inputs()
    idx_hand, out64_hand, out32_hand = _by_hand(q, r, 5)
    init_warp(wp, tmp_path_factory)
    mod = warp_module_from_text(tmp_path, KERNEL, "vk_type_variables")
    arrays = [wp.array(q, dtype=wp.float64, device="cpu"), wp.array(r, dtype=wp.float32, device="cpu"),
              wp.zeros(5, dtype=wp.float64, device="cpu"), wp.zeros(5, dtype=wp.float32, device="cpu"),
              wp.zeros(5, dtype=wp.int32, device="cpu")]
    wp.launch(mod.energies, dim=5, inputs=[*arrays, 5], device="cpu")
    theirs = [a.numpy() for a in arrays[2:]]
    assert theirs[2].tolist() == idx_hand.tolist()
    np.testing.assert_allclose(theirs[0], out64_hand, rtol=1e-15)
    np.testing.assert_allclose(theirs[1], out32_hand, rtol=1e-6)
    kernel = compile_source(KERNEL, "vk_type_variables.py").kernel("energies")
    assert kernel.error is None, kernel.error.render()
    for dev in ("cpu", "cpu:native"):
        ours = [np.zeros(5, np.float64), np.zeros(5, np.float32), np.zeros(5, np.int32)]
        vk.launch(kernel.mir, 5, [q, r, *ours, np.int32(5)], device=dev)
        assert ours[2].tolist() == theirs[2].tolist(), dev
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-15, err_msg=dev)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, err_msg=dev)


def test_an_argument_outside_the_variable_has_no_overload_as_in_warp(tmp_path, tmp_path_factory):
    kernel = compile_source(WRONG_KIND, "vk_wrong_kind.py").kernel("halves")
    assert kernel.error is not None and kernel.error.rule == "type-mismatch"
    text = kernel.error.render()
    assert "vk_wrong_kind.py:13:" in text and "wp.Float" in text and "no overload" in text
    wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")
    init_warp(wp, tmp_path_factory)
    mod = warp_module_from_text(tmp_path, WRONG_KIND, "vk_wrong_kind")
    with pytest.raises(Exception, match="overload"):
        wp.launch(mod.halves, dim=2, inputs=[wp.zeros(2, dtype=wp.int32, device="cpu")], device="cpu")
