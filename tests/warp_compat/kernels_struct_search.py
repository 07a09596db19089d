"""A generic kernel whose struct `Any` parameter fixes the dimension, and whose
outputs are arrays of `Any` that only the matching types build: a float32 `m0`,
a vec2 `m1` and a mat22 `m2` beside `Cloud2` (vec3 and mat33 beside `Cloud3`)
-- the shape of warpSPHCore's `computeCRKMoments_Kernel`, written anew. verikern
finds those typings by its struct typing search (check/generic_struct_search.py):
vec2 and mat22 are none of the usual candidates, and the vec3 typing is beyond
the first 64 by rank. Valid Warp and valid verikern."""
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


@vk.requires(lambda q, out_m0, out_m1, out_m2: q.masses.shape[0] == q.positions.shape[0]
             and out_m0.shape[0] >= q.positions.shape[0] and out_m1.shape[0] >= q.positions.shape[0]
             and out_m2.shape[0] >= q.positions.shape[0])
@wp.kernel
def moments(q: Any, out_m0: wp.array(dtype=Any), out_m1: wp.array(dtype=Any),
            out_m2: wp.array(dtype=Any)):
    i = wp.tid()
    n = q.positions.shape[0]
    if i >= n:
        return
    m0 = type(out_m0[i])(0.0)
    m1 = type(out_m1[i])()
    m2 = type(out_m2[i])()
    for j in range(n):
        x = q.positions[j] - q.positions[i]
        w = q.masses[j]
        m0 += w
        m1 += x * w
        m2 += wp.outer(x, x) * w
    out_m0[i] = m0
    out_m1[i] = m1
    out_m2[i] = m2
