"""Rigid transforms of points: a per-point mat33 rotation (rots[i] * p), a
per-point quaternion rotation (vk.quat_rotate, quaternions stored x, y, z, w
as in Warp), and both composed with a translation:
composed[i] = quat_rotate(quats[i], rots[i] * points[i]) + offsets[i].
"""
import numpy as np

import verikern as vk


@vk.func
def rigid(q: vk.quat, r: vk.mat33, p: vk.vec3, t: vk.vec3) -> vk.vec3:
    return vk.quat_rotate(q, r * p) + t


@vk.kernel
def transform_points(points: vk.array(dtype=vk.vec3), rots: vk.array(dtype=vk.mat33),
                     quats: vk.array(dtype=vk.quat), offsets: vk.array(dtype=vk.vec3),
                     by_matrix: vk.array(dtype=vk.vec3), by_quat: vk.array(dtype=vk.vec3),
                     composed: vk.array(dtype=vk.vec3)):
    vk.requires(rots.shape[0] == points.shape[0] and quats.shape[0] == points.shape[0])
    vk.requires(offsets.shape[0] == points.shape[0] and by_matrix.shape[0] == points.shape[0])
    vk.requires(by_quat.shape[0] == points.shape[0] and composed.shape[0] == points.shape[0])
    i = vk.tid()
    if i < points.shape[0]:
        p = points[i]
        by_matrix[i] = rots[i] * p
        by_quat[i] = vk.quat_rotate(quats[i], p)
        composed[i] = rigid(quats[i], rots[i], p, offsets[i])


# ------------------------------------------------------------------ host code
def random_rotation_matrices(rng, n):
    """Uniform-ish random proper rotations from QR of Gaussian matrices."""
    qm, rm = np.linalg.qr(rng.standard_normal((n, 3, 3)))
    qm = qm * np.sign(np.diagonal(rm, axis1=1, axis2=2))[:, None, :]
    flip = np.linalg.det(qm) < 0
    qm[flip, :, 0] *= -1.0
    return qm


def make_inputs(rng, n):
    quats = rng.standard_normal((n, 4))
    quats /= np.linalg.norm(quats, axis=1, keepdims=True)
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
    return {
        "points": f32(rng.uniform(-10.0, 10.0, (n, 3))),
        "rots": f32(random_rotation_matrices(rng, n)),
        "quats": f32(quats),
        "offsets": f32(rng.uniform(-5.0, 5.0, (n, 3))),
    }


def hamilton(a, b):
    """Quaternion product of (x, y, z, w) arrays."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def quat_rotate_reference(q, v):
    """q v q* with v as a pure quaternion: the rotation by a unit quaternion
    (the inputs are unit up to float32 rounding, which keeps this within the
    test tolerance of Warp's formula v(2w^2 - 1) + 2w(u x v) + 2u(u . v))."""
    pure = np.concatenate([v, np.zeros((len(v), 1))], axis=1)
    conj = q * np.array([-1.0, -1.0, -1.0, 1.0])
    return hamilton(hamilton(q, pure), conj)[:, :3]


def reference(inputs):
    p = inputs["points"].astype(np.float64)
    r = inputs["rots"].astype(np.float64)
    q = inputs["quats"].astype(np.float64)
    t = inputs["offsets"].astype(np.float64)
    by_matrix = np.einsum("nij,nj->ni", r, p)
    return {"by_matrix": by_matrix,
            "by_quat": quat_rotate_reference(q, p),
            "composed": quat_rotate_reference(q, by_matrix) + t}


def run(inputs, device="cpu", block_dim=256):
    ins = [inputs[k].copy() for k in ("points", "rots", "quats", "offsets")]
    n = len(ins[0])
    outs = {k: np.zeros((n, 3), dtype=np.float32) for k in ("by_matrix", "by_quat", "composed")}
    vk.launch(transform_points, max(1, n), inputs=ins + list(outs.values()),
              block_dim=block_dim, device=device)
    return outs


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data), reference(data)
    for k in want:
        print(f"transform {k} max abs error:", float(np.max(np.abs(got[k] - want[k]))))
