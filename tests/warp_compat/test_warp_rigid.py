"""Warp's transforms, quats of every precision, spatial vectors and
matrices, `wp.types.vector/matrix` aliases and the matrix-algebra builtins
(tests/warp_compat/kernels_rigid.py) under real Warp on its CPU device and
under verikern's simulator and `cpu:native` on the same inputs: equal
results, and numpy as an independent reference for the formulas."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.backends.ptx import find_ptxas

from warp_compat.compat_util import load_kernels, ptxas_entries

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_rigid")


def same_everywhere(kernel, n, values, dtypes, tol=1e-5):
    """Warp's results for every argument, after checking that verikern's
    devices give the same ones."""
    arrays = [wp.array(v.copy(), dtype=t, device="cpu") for v, t in zip(values, dtypes)]
    wp.launch(kernel, dim=n, inputs=arrays, device="cpu")
    wp.synchronize_device("cpu")
    theirs = [a.numpy() for a in arrays]
    for dev in DEVICES:
        ours = [v.copy() for v in values]
        vk.launch(kernel, n, ours, device=dev)
        for k, (o, w) in enumerate(zip(ours, theirs)):
            np.testing.assert_allclose(o, w.reshape(o.shape), rtol=tol, atol=tol,
                                       err_msg=f"{kernel.key} argument {k} on {dev}")
    return theirs


def unit_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def rotation(q):
    """The rotation matrix of the unit quat (x, y, z, w), in float64."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_transforms(kernels):
    rng = np.random.default_rng(11)
    n = 24
    xs = np.concatenate([rng.normal(size=(n, 3)), unit_quats(rng, n)], axis=1).astype(np.float32)
    pts = rng.normal(size=(n, 3)).astype(np.float32)
    out = same_everywhere(kernels.transforms, n,
                          [xs, pts, np.zeros((n, 3), np.float32), np.zeros((n, 7), np.float32)],
                          [wp.transform, wp.vec3, wp.vec3, wp.transform])
    # numpy: R p + t (point) + R p (vector) + 0 (t * t^-1 has no translation) + t
    for i in range(n):
        R = rotation(xs[i, 3:].astype(np.float64))
        want = 2 * (R @ pts[i]) + 2 * xs[i, :3]
        np.testing.assert_allclose(out[2][i], want, rtol=1e-4, atol=1e-4)
    assert not np.allclose(out[3], 0)


def test_transform_parts_and_atomics_in_float64(kernels):
    rng = np.random.default_rng(12)
    n = 16
    xs = np.concatenate([rng.normal(size=(n, 3)), unit_quats(rng, n)], axis=1)
    pts = rng.normal(size=(n, 3))
    out = same_everywhere(kernels.transform_parts, n, [xs, pts, np.zeros((1, 7))],
                          [wp.transformd, wp.vec3d, wp.transformd], tol=1e-12)
    for i in range(n):
        np.testing.assert_allclose(out[0][i, :3], rotation(xs[i, 3:]) @ pts[i] + xs[i, :3],
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[2][0], np.r_[pts.sum(axis=0), 0, 0, 0, n], rtol=1e-12)


def test_spatial_vectors_and_matrices(kernels):
    rng = np.random.default_rng(13)
    n = 20
    a, b = (rng.normal(size=(n, 6)).astype(np.float32) for _ in range(2))
    m = rng.normal(size=(n, 6, 6)).astype(np.float32)
    out = same_everywhere(kernels.spatial, n, [a, b, m, np.zeros((n, 6), np.float32),
                                               np.zeros(n, np.float32)],
                          [wp.spatial_vector, kernels.vec6, kernels.mat66, wp.spatial_vector,
                           float], tol=1e-4)
    np.testing.assert_allclose(out[4], (a * b).sum(1) + (m * m).sum((1, 2)), rtol=1e-4)
    # spatial_cross(x, y) for row 0 by hand: (wx x wy, vx x wy + wx x vy)
    x, y = a[0].astype(np.float64), b[0].astype(np.float64)
    cross = np.r_[np.cross(x[:3], y[:3]), np.cross(x[3:], y[:3]) + np.cross(x[:3], y[3:])]
    dual = np.r_[np.cross(y[:3], x[:3]) + np.cross(y[3:], x[3:]), np.cross(y[:3], x[3:])]
    want = m[0].astype(np.float64) @ (cross + dual) + np.r_[x[:3], y[3:]]
    np.testing.assert_allclose(out[3][0], want, rtol=1e-4, atol=1e-4)

    r, s = (rng.normal(size=(n, 3, 3)).astype(np.float32) for _ in range(2))
    adj = same_everywhere(kernels.adjoint, n, [r, s, np.zeros((n, 6, 6), np.float32)],
                          [wp.mat33, wp.mat33, wp.spatial_matrix])[2]
    np.testing.assert_array_equal(adj[3][:3, :3], r[3] + np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(adj[3][3:, :3], s[3])
    np.testing.assert_array_equal(adj[3][:3, 3:], 0)


def test_matrix_algebra_with_singular_matrices(kernels):
    rng = np.random.default_rng(14)
    n = 12
    a = rng.normal(size=(n, 3, 3))
    a[0] = 0.0                      # singular: Warp's inverse is the zero matrix
    a[1, 2] = a[1, 0] + a[1, 1]     # singular, but rounding may leave det != 0
    b = rng.normal(size=(n, 2, 2)).astype(np.float32)
    b[2] = 0.0
    v = rng.normal(size=(n, 3))
    out = same_everywhere(kernels.matrices, n, [a, b, v, np.zeros((n, 3, 3)),
                                                np.zeros((n, 2, 2), np.float32), np.zeros(n)],
                          [wp.mat33d, wp.mat22, wp.vec3d, wp.mat33d, wp.mat22, wp.float64],
                          tol=1e-6)
    for i in range(3, n):
        skew = np.array([[0, -v[i, 2], v[i, 1]], [v[i, 2], 0, -v[i, 0]], [-v[i, 1], v[i, 0], 0]])
        want = np.linalg.inv(a[i]) + np.outer(v[i], v[i]) + np.diag(np.diag(a[i])) + skew \
            + np.eye(3)
        np.testing.assert_allclose(out[3][i], want, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(out[4][i], np.linalg.inv(b[i]), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out[5][i], np.linalg.det(a[i]) + np.linalg.det(b[i]),
                                   rtol=1e-5)
    np.testing.assert_array_equal(out[4][2], 0.0)


def test_4x4_inverse_and_determinant_in_warps_mixed_precision(kernels):
    rng = np.random.default_rng(17)
    n = 12
    a = rng.normal(size=(n, 4, 4)).astype(np.float32)
    a[0] = 0.0                                   # singular: the zero matrix
    a[1, 3] = a[1, 0] + a[1, 1]                  # singular up to rounding
    b = rng.normal(size=(n, 4, 4))
    b[2] = 0.0
    out = same_everywhere(kernels.matrices4, n, [a, b, np.zeros_like(a), np.zeros_like(b),
                                                 np.zeros(n)],
                          [wp.mat44, wp.mat44d, wp.mat44, wp.mat44d, wp.float64], tol=1e-6)
    np.testing.assert_array_equal(out[2][0], 0.0)
    np.testing.assert_array_equal(out[3][2], 0.0)
    for i in range(3, n):
        np.testing.assert_allclose(out[2][i], np.linalg.inv(a[i]), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(out[3][i], np.linalg.inv(b[i]), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(out[4][i], np.linalg.det(a[i]) + np.linalg.det(b[i]),
                                   rtol=1e-4, atol=1e-4)


def test_quats_in_float64(kernels):
    rng = np.random.default_rng(15)
    n = 16
    q, v = unit_quats(rng, n), rng.normal(size=(n, 3))
    out = same_everywhere(kernels.quats, n, [q, v, np.zeros((n, 3)), np.zeros((n, 3, 3))],
                          [wp.quatd, wp.vec3d, wp.vec3d, wp.mat33d], tol=1e-12)
    for i in range(n):
        R = rotation(q[i])
        np.testing.assert_allclose(out[2][i], R @ v[i] + R.T @ v[i] + v[i], rtol=1e-10,
                                   atol=1e-10)


def test_vectors_and_matrices_of_any_size(kernels):
    rng = np.random.default_rng(16)
    n = 10
    u = rng.normal(size=(n, 5))
    w = rng.normal(size=(n, 2, 3)).astype(np.float32)
    out = same_everywhere(kernels.sized, n, [u, w, np.zeros((n, 2), np.float32)],
                          [kernels.vec5d, kernels.mat23, wp.vec2])
    z = np.stack([(u * u[:, ::-1]).sum(1), u[:, 1], np.ones(n)], axis=1)
    np.testing.assert_allclose(out[2], np.einsum("nij,nj->ni", w, z), rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_rigid_kernels_are_proved():
    reports = prove_file(HERE / "kernels_rigid.py")
    assert {r.kernel: r.status.value for r in reports} == {
        k: "proved" for k in ("transforms", "transform_parts", "spatial", "adjoint", "matrices",
                              "quats", "sized", "matrices4")}


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")
def test_rigid_kernels_assemble_with_ptxas():
    assert len(ptxas_entries("kernels_rigid")) == 8
