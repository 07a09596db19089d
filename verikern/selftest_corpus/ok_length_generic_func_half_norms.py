# expect: proved
# A func generic over a vector's length (`x: vector(length=Any, dtype=wp.float32)`, warpSPHCore's minimumImageDistance) that builds `wp.vector(..., length=x.length)` and loops to `x.length`, beside a float32 overload: Warp builds it for the vec3 argument (x.length a constant 3), and the kernel reads each position in bounds under its guard.
from typing import Any

import warp as wp
from warp.types import vector


@wp.func
def half(x: vector(length=Any, dtype=wp.float32)):
    d = wp.vector(wp.float32(0.0), length=x.length, dtype=wp.float32)
    for k in range(x.length):
        d[k] = 0.5 * x[k]
    return d


@wp.func
def half(x: wp.float32):  # noqa: F811  (a Warp overload)
    return 0.5 * x


@wp.kernel
def norms(p: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < p.shape[0] and i < w.shape[0] and i < out.shape[0]:
        h = half(p[i])
        out[i] = wp.dot(h, h) + half(w[i])
