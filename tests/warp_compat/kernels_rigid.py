"""Warp's rigid-body and matrix types and builtins, written for verikern's
compatibility suite: transforms, quats of every float precision, spatial
vectors and matrices, `wp.types.vector/matrix` aliases (`vec6`, `mat66`,
`mat23`), and inverse / determinant / outer / diag / skew / ddot / identity.
Valid Warp and valid verikern."""
import warp as wp

import verikern as vk

vec6 = wp.types.vector(length=6, dtype=float)
mat66 = wp.types.matrix(shape=(6, 6), dtype=float)
vec5d = wp.types.vector(length=5, dtype=wp.float64)
mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float32)


@vk.requires(lambda xs, pts, out, outt: xs.shape[0] == vk.launch_dim()
             and pts.shape[0] == xs.shape[0] and out.shape[0] == xs.shape[0])
@vk.requires(lambda xs, outt: outt.shape[0] == xs.shape[0])
@wp.kernel
def transforms(xs: wp.array[wp.transform], pts: wp.array[wp.vec3], out: wp.array[wp.vec3],
               outt: wp.array[wp.transform]):
    i = wp.tid()
    t = xs[i]
    p = pts[i]
    a = wp.transform_point(t, p)
    b = wp.transform_vector(t, p)
    c = wp.transform_multiply(t, wp.transform_inverse(t))
    d = t * xs[0]
    out[i] = a + b + wp.transform_get_translation(c) + t.p
    e = wp.transform(t.p + p, wp.transform_get_rotation(d))
    e.q = wp.normalize(e.q)
    e[0] = e[0] * 2.0 + t[6]
    outt[i] = e + wp.transform_identity() * 0.5 - wp.transform(p=p, q=t.q)


@vk.requires(lambda xs, pts, out: xs.shape[0] == vk.launch_dim() and pts.shape[0] == xs.shape[0])
@vk.requires(lambda xs, out: out.shape[0] >= 1)
@wp.kernel
def transform_parts(xs: wp.array[wp.transformd], pts: wp.array[wp.vec3d],
                    out: wp.array[wp.transformd]):
    i = wp.tid()
    xs[i].p = wp.transform_point(xs[i], pts[i])
    wp.atomic_add(out, 0, wp.transformd(pts[i], wp.quat_identity(dtype=wp.float64)))


@vk.requires(lambda a, b, m, o, s: a.shape[0] == vk.launch_dim() and b.shape[0] == a.shape[0]
             and m.shape[0] == a.shape[0] and o.shape[0] == a.shape[0] and s.shape[0] == a.shape[0])
@wp.kernel
def spatial(a: wp.array[wp.spatial_vector], b: wp.array[vec6], m: wp.array[mat66],
            o: wp.array[wp.spatial_vector], s: wp.array[float]):
    i = wp.tid()
    x = a[i]
    y = b[i]
    z = wp.spatial_cross(x, y) + wp.spatial_cross_dual(y, x)
    o[i] = m[i] * z + wp.spatial_vector(wp.spatial_top(x), wp.spatial_bottom(y))
    s[i] = wp.spatial_dot(x, y) + wp.ddot(m[i], m[i])


@vk.requires(lambda r, s, m: r.shape[0] == vk.launch_dim() and s.shape[0] == r.shape[0]
             and m.shape[0] == r.shape[0])
@wp.kernel
def adjoint(r: wp.array[wp.mat33], s: wp.array[wp.mat33], m: wp.array[wp.spatial_matrix]):
    i = wp.tid()
    m[i] = wp.spatial_adjoint(r[i], s[i]) + wp.identity(n=6, dtype=float)


@vk.requires(lambda a, b, v, o, o2, d: a.shape[0] == vk.launch_dim() and b.shape[0] == a.shape[0]
             and v.shape[0] == a.shape[0] and o.shape[0] == a.shape[0])
@vk.requires(lambda a, o2, d: o2.shape[0] == a.shape[0] and d.shape[0] == a.shape[0])
@wp.kernel
def matrices(a: wp.array[wp.mat33d], b: wp.array[wp.mat22], v: wp.array[wp.vec3d],
             o: wp.array[wp.mat33d], o2: wp.array[wp.mat22], d: wp.array[wp.float64]):
    i = wp.tid()
    m = a[i]
    o[i] = wp.inverse(m) + wp.outer(v[i], v[i]) + wp.diag(wp.get_diag(m)) + wp.skew(v[i]) \
        + wp.identity(n=3, dtype=wp.float64)
    o2[i] = wp.inverse(b[i])
    d[i] = wp.determinant(m) + wp.float64(wp.determinant(b[i]))


@vk.requires(lambda q, v, o, m: q.shape[0] == vk.launch_dim() and v.shape[0] == q.shape[0]
             and o.shape[0] == q.shape[0] and m.shape[0] == q.shape[0])
@wp.kernel
def quats(q: wp.array[wp.quatd], v: wp.array[wp.vec3d], o: wp.array[wp.vec3d],
          m: wp.array[wp.mat33d]):
    i = wp.tid()
    r = q[i]
    o[i] = wp.quat_rotate(r, v[i]) + wp.quat_rotate_inv(r, v[i]) \
        + wp.quat_rotate(wp.quat_identity(dtype=wp.float64), v[i])
    m[i] = wp.quat_to_matrix(r * wp.quat_from_axis_angle(v[i], wp.float64(0.5)))


@vk.requires(lambda u, w, o: u.shape[0] == vk.launch_dim() and w.shape[0] == u.shape[0]
             and o.shape[0] == u.shape[0])
@wp.kernel
def sized(u: wp.array[vec5d], w: wp.array[mat23], o: wp.array[wp.vec2]):
    i = wp.tid()
    x = u[i]
    y = vec5d(x[4], x[3], x[2], x[1], x[0])
    z = wp.vec3(float(wp.dot(x, y)), float(x[1]), 1.0)
    o[i] = w[i] * z


@vk.requires(lambda a, b, o, o2, d: a.shape[0] == vk.launch_dim() and b.shape[0] == a.shape[0]
             and o.shape[0] == a.shape[0] and o2.shape[0] == a.shape[0]
             and d.shape[0] == a.shape[0])
@wp.kernel
def matrices4(a: wp.array[wp.mat44], b: wp.array[wp.mat44d], o: wp.array[wp.mat44],
              o2: wp.array[wp.mat44d], d: wp.array[wp.float64]):
    i = wp.tid()
    o[i] = wp.inverse(a[i])
    o2[i] = wp.inverse(b[i])
    d[i] = wp.float64(wp.determinant(a[i])) + wp.determinant(b[i])
