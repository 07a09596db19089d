"""A generic kernel whose `Any` parameter is a struct with array fields, passed on
to a generic func and from there to a func overloaded per struct, for verikern's
compatibility suite (the shape of warpSPHCore's operator kernels, written anew:
`queryState: Any` is a `particleDataSoA_N`, `getParticleData(queryState, i)` picks
the overload of its dimension and returns a `WarpParticle_N` it builds without a
result annotation). The two overloads weigh differently, so a wrong overload
choice changes the results. Valid Warp and valid verikern."""
from typing import Any

import warp as wp

import verikern as vk


@wp.struct
class Cloud2:
    positions: wp.array(dtype=wp.vec2)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Cloud3:
    positions: wp.array(dtype=wp.vec3)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Point2:
    position: wp.vec2
    mass: wp.float32


@wp.struct
class Point3:
    position: wp.vec3
    mass: wp.float32


@wp.func
def point(c: Cloud2, i: wp.int32):  # noqa: F811  (a Warp overload per struct)
    return Point2(c.positions[i], c.masses[i])


@wp.func
def point(c: Cloud3, i: wp.int32):  # noqa: F811
    return Point3(c.positions[i], c.masses[i] * wp.float32(2.0))


@wp.func
def weighted(c: Any, i: wp.int32, j: wp.int32):
    p = point(c, i)
    q = point(c, j)
    return p.mass * wp.length(p.position - q.position)


@vk.requires(lambda q, out: q.positions.shape[0] == q.masses.shape[0] and out.shape[0] >= q.masses.shape[0])
@wp.kernel
def spread(q: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    n = q.masses.shape[0]
    if i >= n:
        return
    out[i] = weighted(q, i, (i + 1) % n)
