"""Vector, matrix and quaternion lowering checked numerically against numpy
(evaluated with the small MIR evaluator)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from frontend import mir_eval
from frontend.fe_util import compile_ok

SRC = """
import verikern as vk

@vk.func
def rot(q: vk.quat, v: vk.vec3) -> vk.vec3:
    return vk.quat_rotate(q, v)

@vk.kernel
def vecs(a: vk.array(dtype=vk.vec3), b: vk.array(dtype=vk.vec3), m: vk.array(dtype=vk.mat33),
         q: vk.array(dtype=vk.quat), r: vk.array(dtype=vk.quat),
         out3: vk.array(dtype=vk.vec3, ndim=2), outs: vk.array(dtype=vk.float32, ndim=2),
         outm: vk.array(dtype=vk.mat33, ndim=2)):
    i = vk.tid()
    u = a[i]
    w = b[i]
    out3[i, 0] = vk.cross(u, w)
    out3[i, 1] = m[i] * u
    out3[i, 2] = rot(q[i], u)
    out3[i, 3] = rot(q[i] * r[i], u)
    out3[i, 4] = rot(q[i], rot(r[i], u))
    out3[i, 5] = vk.normalize(u)
    out3[i, 6] = u * 2.0 - w / 4.0 + vk.vec3(1.0, 2.0, 3.0)
    n = w
    n.y = u.x
    n[2] = -u[1]
    out3[i, 7] = n
    outs[i, 0] = vk.dot(u, w)
    outs[i, 1] = vk.length(u)
    outs[i, 2] = m[i][1, 2] + m[i][0][1]
    outm[i, 0] = vk.transpose(m[i])
    outm[i, 1] = m[i] * vk.transpose(m[i])
"""

F = st.floats(-3, 3, width=32).filter(lambda x: x == 0 or abs(x) > 1e-3)  # no underflow


def _quat_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _unit(q):
    n = np.linalg.norm(q)
    return (q / n if n > 1e-3 else np.array([0, 0, 0, 1.0])).astype(np.float32)


@settings(max_examples=15, deadline=None)
@given(arrays(np.float32, (2, 3), elements=F), arrays(np.float32, (2, 3), elements=F),
       arrays(np.float32, (2, 3, 3), elements=F), arrays(np.float32, (2, 4), elements=F),
       arrays(np.float32, (2, 4), elements=F))
def test_vector_math_matches_numpy(a, b, m, q, r):
    q = np.stack([_unit(x) for x in q])
    r = np.stack([_unit(x) for x in r])
    out3 = np.zeros((2, 8, 3), np.float32)
    outs = np.zeros((2, 3), np.float32)
    outm = np.zeros((2, 2, 3, 3), np.float32)
    mir = compile_ok(SRC, "vecs")
    mir_eval.run(mir, (2,), {"a": a, "b": b, "m": m, "q": q, "r": r, "out3": out3,
                             "outs": outs, "outm": outm}, {})
    a64, b64, m64 = a.astype(np.float64), b.astype(np.float64), m.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4)
    for i in range(2):
        np.testing.assert_allclose(out3[i, 0], np.cross(a64[i], b64[i]), **tol)
        np.testing.assert_allclose(out3[i, 1], m64[i] @ a64[i], **tol)
        np.testing.assert_allclose(out3[i, 2], _quat_matrix(q[i].astype(np.float64)) @ a64[i],
                                   **tol)
        np.testing.assert_allclose(out3[i, 3], out3[i, 4], rtol=1e-3, atol=1e-3)
        n = np.linalg.norm(a64[i])
        np.testing.assert_allclose(out3[i, 5], a64[i] / n if n > 0 else 0 * a64[i], **tol)
        np.testing.assert_allclose(out3[i, 6], a64[i] * 2 - b64[i] / 4 + [1, 2, 3], **tol)
        np.testing.assert_array_equal(out3[i, 7], [b[i, 0], a[i, 0], -a[i, 1]])
        np.testing.assert_allclose(outs[i, 0], a64[i] @ b64[i], **tol)
        np.testing.assert_allclose(outs[i, 1], np.linalg.norm(a64[i]), **tol)
        np.testing.assert_allclose(outs[i, 2], m64[i, 1, 2] + m64[i, 0, 1], **tol)
        np.testing.assert_array_equal(outm[i, 0], m[i].T)
        np.testing.assert_allclose(outm[i, 1], m64[i] @ m64[i].T, **tol)
