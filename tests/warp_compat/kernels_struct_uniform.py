"""A generic kernel whose struct `Any` parameter fixes the dimension and whose
four value arrays and output are arrays of `Any` that only build all of one
vector type: `(fr[j] - fi)` needs `fq` and `fr` alike, `(dr[j] - dfi)` needs
`dq` and `dr` alike, and both differences meet in `project`, which takes a
`vector(length=Any)` -- the shape of warpSPHCore's
`computeSPHLaplacianDotJVP_Kernel`, written anew. Changing one or two of the
arrays from float32 types the body less far, so the one-parameter search of
check/generic_struct_search.py stops; its uniform typings (the structs'
field type vec2, or vec3, for every array at once) find the typings Warp
builds. Valid Warp and valid verikern."""
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


@wp.func
def project(q: wp.types.vector(length=Any, dtype=wp.float32), dq: wp.types.vector(length=Any, dtype=wp.float32),
            x: Any):
    return wp.dot(q, x) + wp.dot(dq, x)


@vk.requires(lambda q, fq, fr, dq, dr, out: q.masses.shape[0] == q.positions.shape[0]
             and fq.shape[0] >= q.positions.shape[0] and fr.shape[0] >= q.positions.shape[0]
             and dq.shape[0] >= q.positions.shape[0] and dr.shape[0] >= q.positions.shape[0]
             and out.shape[0] >= q.positions.shape[0])
@wp.kernel
def dot_flux(q: Any, fq: wp.array(dtype=Any), fr: wp.array(dtype=Any), dq: wp.array(dtype=Any),
             dr: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    n = q.positions.shape[0]
    if i >= n:
        return
    fi = fq[i]
    dfi = dq[i]
    acc = fi - fi
    for j in range(n):
        x = q.positions[j] - q.positions[i]
        w = q.masses[j]
        qij = (fr[j] - fi) * w
        dqij = (fr[j] - fi) * w + (dr[j] - dfi) * w
        acc += qij * project(qij, dqij, x)
    out[i] = acc
