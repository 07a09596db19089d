"""Operators Warp 1.19 builds componentwise on vectors that verikern does not
model yet (`&`, `|`, `^`, `<<`, `>>`, `~` of integer vectors, `%` of vectors):
verikern reports them as `unsupported-vector-op`, outside the rules that mean
"Warp refuses this typing", so a generic kernel's integer-vector typing is
never dropped as one Warp cannot build (tests/frontend/
test_fe_generic_instances.py). This is the evidence that Warp builds them."""
from __future__ import annotations

import numpy as np
import pytest

from warp_compat.compat_util import init_warp, warp_module_from_text

KERNELS = '''
import warp as wp


@wp.kernel
def ops(a: wp.array(dtype=wp.vec3i), m: wp.vec3i, out: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    out[0] = a[i] & m
    out[1] = a[i] | m
    out[2] = a[i] ^ m
    out[3] = a[i] << m
    out[4] = a[i] >> m
    out[5] = ~a[i]
    out[6] = a[i] % m
'''


def test_warp_builds_bitwise_and_modulo_of_integer_vectors(tmp_path, tmp_path_factory):
    wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")
    init_warp(wp, tmp_path_factory)
    mod = warp_module_from_text(tmp_path, KERNELS, "vk_vector_bitwise")
    a = np.array([[12, 7, 5]], np.int32)
    m = np.array([3, 2, 1], np.int32)
    out = wp.zeros(7, dtype=wp.vec3i, device="cpu")
    wp.launch(mod.ops, dim=1, inputs=[wp.array(a, dtype=wp.vec3i, device="cpu"), wp.vec3i(3, 2, 1), out],
              device="cpu")
    got = out.numpy()
    expected = [a[0] & m, a[0] | m, a[0] ^ m, a[0] << m, a[0] >> m, ~a[0], np.fmod(a[0], m)]
    assert got.tolist() == [list(map(int, e)) for e in expected]
