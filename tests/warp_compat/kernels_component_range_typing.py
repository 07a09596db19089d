"""A generic kernel whose struct `Any` parameter fixes the dimension and whose
value array is an array of `Any` of the positions' type (`x + (values[j] -
values[i])`), with a 2-d curl formula in a func: `g[0] * c[1] - g[1] * c[0]`
-- the shape of warpSPHCore's `computeSPHCurlJVP_Kernel`, written anew. No
typing by rank builds it (vec1 and vec2 are no usual candidate), so the struct
typing search finds them: beside `Cloud2` the values are vec2 and it computes
the curl; beside `Cloud1` they are vec1, and `g[1]` reads past the vector. Warp 1.19
builds and runs that typing (its release build does not check a vector index),
so verikern makes it an instance whose read is an obligation, which fails:
the kernel reads past its vec1 as soon as one particle has a neighbour
(itself). Valid Warp and valid verikern."""
from typing import Any

import warp as wp

import verikern as vk

vec1 = wp.types.vector(length=1, dtype=wp.float32)


@wp.struct
class Cloud1:
    positions: wp.array(dtype=vec1)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Cloud2:
    positions: wp.array(dtype=wp.vec2)
    masses: wp.array(dtype=wp.float32)


@wp.func
def curl2(g: Any, c: Any):
    return g[0] * c[1] - g[1] * c[0]


@vk.requires(lambda q, values, out: q.masses.shape[0] == q.positions.shape[0]
             and values.shape[0] >= q.positions.shape[0] and out.shape[0] >= q.positions.shape[0])
@wp.kernel
def curl(q: Any, values: wp.array(dtype=Any), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    n = q.positions.shape[0]
    if i >= n:
        return
    acc = float(0.0)
    for j in range(n):
        x = q.positions[j] - q.positions[i]
        c = x + (values[j] - values[i])
        acc += curl2(x, c) * q.masses[j]
    out[i] = acc
