"""A local struct that holds arrays, for verikern's compatibility suite (the shape
of warpSPHCore's radius search, written anew): built by `Domain()` and set field by
field from the kernel's array parameters, then passed to a func together with row
views of 2-d arrays (`x[i]`, `y[j]` straight as arguments), a `wp.vec3i(...,
dtype=wp.int32)` constructor and a plain `Enum`'s `.value` in `wp.static`. Valid
Warp and valid verikern."""
from enum import Enum

import warp as wp

import verikern as vk


class Mode(Enum):
    NEAREST = 3
    FAR = 4


@wp.struct
class Domain:
    lo: wp.array(dtype=wp.float32)
    hi: wp.array(dtype=wp.float32)
    periodic: wp.array(dtype=wp.int32)
    dim: wp.int32


@wp.func
def wrapped_distance(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), d: Domain):
    total = wp.float32(0.0)
    for k in range(d.dim):
        dx = x[k] - y[k]
        if d.periodic[k] != 0:
            size = d.hi[k] - d.lo[k]
            if dx > 0.5 * size:
                dx = dx - size
            elif dx < -0.5 * size:
                dx = dx + size
        total += dx * dx
    return wp.sqrt(total)


@vk.requires(lambda x, y, lo, hi, periodic, mode, out: x.shape[1] == y.shape[1]
             and lo.shape[0] == x.shape[1] and hi.shape[0] == x.shape[1]
             and periodic.shape[0] == x.shape[1] and out.shape[0] == x.shape[0]
             and out.shape[1] == 3)
@wp.kernel
def nearest(x: wp.array2d(dtype=wp.float32), y: wp.array2d(dtype=wp.float32),
            lo: wp.array(dtype=wp.float32), hi: wp.array(dtype=wp.float32),
            periodic: wp.array(dtype=wp.int32), mode: wp.int32, out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    d = Domain()
    d.lo = lo
    d.hi = hi
    d.periodic = periodic
    d.dim = x.shape[1]
    if i < x.shape[0]:
        best = wp.vec3i(-1, 0, 0, dtype=wp.int32)
        best_d = wp.float32(1.0e30)
        for j in range(y.shape[0]):
            dist = wrapped_distance(x[i], y[j], d)
            if mode == wp.static(Mode.FAR.value):
                dist = -dist
            if dist < best_d:
                best_d = dist
                best = wp.vec3i(j, best[1] + 1, d.dim, dtype=wp.int32)
        out[i, 0] = wp.float32(best[0])
        out[i, 1] = wp.float32(best[1])
        out[i, 2] = best_d
