"""Warp-style kernels written for verikern's compatibility suite: every
array annotation spelling, vector/matrix/quat kernel parameters, module
constants computed with math, keyword options of @wp.kernel, and decorator
contracts above and below @wp.kernel. Valid Warp and valid verikern."""
import math

import warp as wp

import verikern as vk

SCALE = 0.5 / math.sqrt(4.0)          # 0.25, a constant computed with math
OFFSET = wp.constant(3)


@wp.func
def weigh(x: float, w: float) -> float:
    return x * w + SCALE


@vk.requires(lambda a, b, out: a.shape[0] == vk.launch_dim() and b.shape[0] == a.shape[0])
@wp.kernel
@vk.requires(lambda a, out: out.shape[0] == a.shape[0])
def spell_1d(a: wp.array[float], b: wp.array(dtype=wp.float32), out: wp.array1d[wp.float32]):
    i = wp.tid()
    out[i] = weigh(a[i], b[i]) + float(OFFSET)


@vk.requires(lambda m, n, out: m.shape[0] == vk.launch_dim(0) and m.shape[1] == vk.launch_dim(1))
@vk.requires(lambda m, n, out: n.shape[0] == m.shape[0] and n.shape[1] == m.shape[1])
@vk.requires(lambda m, out: out.shape[0] == m.shape[0] and out.shape[1] == m.shape[1])
@wp.kernel(enable_backward=False)
def spell_2d(m: wp.array2d[float], n: wp.array(dtype=float, ndim=2), out: wp.array2d(dtype=wp.vec3)):
    i, j = wp.tid()
    out[i, j] = wp.vec3(m[i, j], n[i, j], float(i * 10 + j))


@vk.requires(lambda pts, out: pts.shape[0] == vk.launch_dim() and out.shape[0] == pts.shape[0])
@wp.kernel
def transform(pts: wp.array[wp.vec3], u: wp.vec3, M: wp.mat33, q: wp.quat, s: float,
              out: wp.array[wp.vec3]):
    i = wp.tid()
    p = M * pts[i] + u * s
    out[i] = wp.quat_rotate(q, p)


@vk.requires(lambda idx, vals, out: idx.shape[0] == vk.launch_dim() and out.shape[0] >= 1)
@vk.requires(lambda idx, vals: vk.all_in_range(idx, 0, vals.shape[0]))
@wp.kernel
def gather_add(idx: wp.array[wp.int32], vals: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    wp.atomic_add(out, 0, vals[idx[i]])
