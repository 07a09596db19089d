"""Ray-triangle intersection (Moller-Trumbore), one ray and one triangle per
thread, on vec3 arrays: t_hit[i] is the distance along directions[i] from
origins[i] to triangle (v0[i], v1[i], v2[i]), or -1.0 when the ray misses
(or is parallel to the triangle, or the hit is behind the origin).
"""
import numpy as np

import verikern as vk

EPS_DET = 1.0e-8
EPS_T = 1.0e-6


@vk.func
def ray_triangle_t(o: vk.vec3, d: vk.vec3, v0: vk.vec3, v1: vk.vec3, v2: vk.vec3) -> vk.float32:
    e1 = v1 - v0
    e2 = v2 - v0
    p = vk.cross(d, e2)
    det = vk.dot(e1, p)
    result = -1.0
    if vk.abs(det) > EPS_DET:
        inv = 1.0 / det
        s = o - v0
        u = vk.dot(s, p) * inv
        if u >= 0.0 and u <= 1.0:
            q = vk.cross(s, e1)
            v = vk.dot(d, q) * inv
            if v >= 0.0 and u + v <= 1.0:
                t = vk.dot(e2, q) * inv
                if t > EPS_T:
                    result = t
    return result


@vk.kernel
def intersect(origins: vk.array(dtype=vk.vec3), directions: vk.array(dtype=vk.vec3),
              v0: vk.array(dtype=vk.vec3), v1: vk.array(dtype=vk.vec3),
              v2: vk.array(dtype=vk.vec3), t_hit: vk.array(dtype=vk.float32)):
    vk.requires(directions.shape[0] == origins.shape[0])
    vk.requires(v0.shape[0] == origins.shape[0] and v1.shape[0] == origins.shape[0])
    vk.requires(v2.shape[0] == origins.shape[0] and t_hit.shape[0] == origins.shape[0])
    i = vk.tid()
    if i < origins.shape[0]:
        t_hit[i] = ray_triangle_t(origins[i], directions[i], v0[i], v1[i], v2[i])


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    """Well-separated cases only, so float32 and float64 agree on hit/miss:
    a third of the rays aim at a point well inside the triangle, a third at
    a point well outside it, and a third point away from an inside point.
    Rays are never nearly parallel to their triangle."""
    v0 = rng.uniform(-1.0, 1.0, (n, 3))
    v1 = v0 + rng.uniform(-1.0, 1.0, (n, 3))
    v2 = v0 + rng.uniform(-1.0, 1.0, (n, 3))
    e1, e2 = v1 - v0, v2 - v0
    normal = np.cross(e1, e2)
    area2 = np.linalg.norm(normal, axis=1)
    # degenerate triangles are replaced by a fixed, well-shaped one
    bad = area2 < 0.2
    v1[bad] = v0[bad] + np.array([1.0, 0.0, 0.0])
    v2[bad] = v0[bad] + np.array([0.0, 1.0, 0.0])
    e1, e2 = v1 - v0, v2 - v0
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    kind = np.arange(n) % 3
    u = rng.uniform(0.15, 0.55, n)
    v = rng.uniform(0.15, 0.3, n)
    outside = kind == 1
    u[outside] = rng.uniform(1.3, 2.0, outside.sum())
    target = v0 + u[:, None] * e1 + v[:, None] * e2
    # come from a side of the plane at a steep angle (|cos| >= 0.5 with the normal)
    tangent = rng.standard_normal((n, 3))
    tangent -= np.sum(tangent * normal, axis=1, keepdims=True) * normal
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-12)
    side = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)[:, None]
    back = side * normal + rng.uniform(-0.5, 0.5, (n, 1)) * tangent
    back /= np.linalg.norm(back, axis=1, keepdims=True)
    dist = rng.uniform(1.0, 5.0, (n, 1))
    origins = target + dist * back
    directions = -back
    away = kind == 2
    directions[away] = back[away]
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
    return {"origins": f32(origins), "directions": f32(directions),
            "v0": f32(v0), "v1": f32(v1), "v2": f32(v2)}


def reference(inputs):
    """Plane intersection in float64, then an inside-the-triangle test by
    barycentric coordinates (a different formulation from the kernel's)."""
    o, d = (inputs[k].astype(np.float64) for k in ("origins", "directions"))
    v0, v1, v2 = (inputs[k].astype(np.float64) for k in ("v0", "v1", "v2"))
    e1, e2 = v1 - v0, v2 - v0
    normal = np.cross(e1, e2)
    denom = np.sum(d * normal, axis=1)
    t = np.sum((v0 - o) * normal, axis=1) / denom
    hit_point = o + t[:, None] * d
    w = hit_point - v0
    g11, g12, g22 = (np.sum(e1 * e1, axis=1), np.sum(e1 * e2, axis=1), np.sum(e2 * e2, axis=1))
    w1, w2 = np.sum(w * e1, axis=1), np.sum(w * e2, axis=1)
    det = g11 * g22 - g12 * g12
    u = (g22 * w1 - g12 * w2) / det
    v = (g11 * w2 - g12 * w1) / det
    inside = (u >= 0) & (v >= 0) & (u + v <= 1) & (t > EPS_T)
    return {"t_hit": np.where(inside, t, -1.0)}


def run(inputs, device="cpu", block_dim=256):
    arrays = [inputs[k].copy() for k in ("origins", "directions", "v0", "v1", "v2")]
    t_hit = np.zeros(len(arrays[0]), dtype=np.float32)
    vk.launch(intersect, max(1, len(t_hit)), inputs=arrays + [t_hit], block_dim=block_dim,
              device=device)
    return {"t_hit": t_hit}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 999)
    got, want = run(data), reference(data)
    hits = int(np.sum(want["t_hit"] >= 0))
    print(f"ray_triangle: {hits} hits of {len(want['t_hit'])}, max abs error:",
          float(np.max(np.abs(got["t_hit"] - want["t_hit"]))))
