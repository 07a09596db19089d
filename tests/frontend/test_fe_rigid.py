"""Transforms, quats of every precision, spatial types and the matrix-algebra
builtins (frontend/builtins/rules_rigid.py, lower/rigid_calls.py): values
on verikern's simulator against hand-computed ones, and the located errors
of calls Warp does not accept (real Warp is compared in
tests/warp_compat/test_warp_rigid.py)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_source
from verikern.hir.types import F64, is_transform, named_parts, transform_type

from frontend.fe_util import first_error, marker_loc

SRC = '''import warp as wp

vec6 = wp.types.vector(length=6, dtype=float)


@wp.kernel
def rigid(xs: wp.array(dtype=wp.transform), v: wp.array(dtype=wp.vec3),
          m: wp.array(dtype=wp.mat22), out: wp.array(dtype=float, ndim=2)):
    i = wp.tid()
    t = xs[i]
    p = wp.transform_point(t, v[i])
    d = wp.transform_vector(t, v[i])
    u = wp.transform_inverse(t) * t
    s = vec6(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    c = wp.spatial_cross(s, wp.spatial_vector(wp.spatial_bottom(s), wp.spatial_top(s)))
    mi = wp.inverse(m[i])
    out[i, 0] = p[0]
    out[i, 1] = p[1]
    out[i, 2] = d[0]
    out[i, 3] = u.p[0]
    out[i, 4] = u.q[3]
    out[i, 5] = c[0]
    out[i, 6] = c[3]
    out[i, 7] = mi[0, 1]
    out[i, 8] = wp.determinant(m[i])
    out[i, 9] = t[6]
'''


def write(tmp_path, src):
    path = tmp_path / "rigid_kernels.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("rigid_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_values_by_hand(tmp_path):
    pytest.importorskip("warp")
    k = write(tmp_path, SRC)
    s = np.sqrt(0.5)
    # a quarter turn about z, translated by (1, 2, 3): (x, y, z) -> (1 - y, 2 + x, 3 + z)
    xs = np.array([[1, 2, 3, 0, 0, s, s], [0, 0, 0, 0, 0, 0, 1]], np.float32)
    v = np.array([[1, 0, 0], [4, 5, 6]], np.float32)
    m = np.array([[[2, 1], [1, 1]], [[0, 0], [0, 0]]], np.float32)
    out = np.zeros((2, 10), np.float32)
    vk.launch(k.rigid, 2, [xs, v, m, out], device="cpu")
    np.testing.assert_allclose(out[0, :3], [1, 3, 0], atol=1e-6)
    np.testing.assert_allclose(out[1, :3], [4, 5, 4], atol=1e-6)
    np.testing.assert_allclose(out[:, 3:5], [[0, 1], [0, 1]], atol=1e-6)   # t^-1 t = identity
    # spatial_cross((w, v), (v, w)) with w = (1, 2, 3), v = (4, 5, 6): top w x v = (-3, 6, -3),
    # bottom v x v + w x w = 0
    np.testing.assert_allclose(out[:, 5:7], [[-3, 0], [-3, 0]], atol=1e-6)
    assert out[0, 7] == -1.0 and out[0, 8] == 1.0     # inverse of [[2, 1], [1, 1]] is [[1, -1], [-1, 2]]
    assert out[1, 7] == 0.0 and out[1, 8] == 0.0      # singular: Warp's inverse is zero
    np.testing.assert_allclose(out[:, 9], [s, 1])


def test_transform_type_and_parts():
    t = transform_type(F64)
    assert is_transform(t) and t.length == 7 and str(t) == "transformd"
    parts = named_parts(t)
    assert (parts["p"][:2], parts["q"][:2]) == ((0, 3), (3, 4))
    assert str(parts["q"][2]) == "quatd"


BAD = [
    ("v[i] = wp.transform_point(v[i], v[i])", "wp.transform_point(", "a transform"),
    ("v[i] = wp.quat_rotate(wp.quatd(), v[i])", "wp.quat_rotate(", "same precision"),
    ("f = wp.determinant(v[i])", "wp.determinant(", "4x4 float matrix"),
    ("t = wp.transform(v[i], v[i])", "v[i])", "takes a vec3 and a quat"),
    ("t = wp.transform_identity() / 2.0", "wp.transform_identity() / 2.0", "not defined"),
    ("f = wp.spatial_dot(wp.vec3(), wp.vec3())", "wp.spatial_dot(", "spatial_vector"),
]


@pytest.mark.parametrize("stmt,marker,words", BAD, ids=[b[2] for b in BAD])
def test_calls_warp_refuses_are_located_errors(stmt, marker, words):
    src = ("import warp as wp\n\n\n@wp.kernel\ndef k(v: wp.array(dtype=wp.vec3)):\n"
           f"    i = wp.tid()\n    {stmt}\n")
    err = first_error(src)
    assert words in err.message
    line, col = marker_loc(src, marker)
    assert (err.loc.line, err.loc.col) == (line, col), err.render()


def test_transform_parts_assign_and_keywords():
    r = compile_source('''import warp as wp


@wp.kernel
def k(xs: wp.array(dtype=wp.transformh), v: wp.array(dtype=wp.vec3h)):
    i = wp.tid()
    t = wp.transformh(p=v[i], q=wp.quat_identity(dtype=wp.float16))
    t.p = v[i] + t.p
    xs[i].q = t.q
    xs[i] = t
''', "t.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
