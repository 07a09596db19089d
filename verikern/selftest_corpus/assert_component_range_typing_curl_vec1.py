# expect: failed assert
# (run under real Warp by tests/warp_compat/test_warp_component_range_typing.py) the struct typing search finds vec1 values beside Cloud1, a typing Warp 1.19 builds and runs (its release build does not check a vector index), where curl2's `g[1]` reads past the vec1 positions; verikern keeps it as an instance whose read is an obligation ("vector index in range"), which fails as soon as a particle has a neighbour (itself). The vec2 instance beside Cloud2 is proved. Witness: one particle.
# kernel: curl[Cloud1, vec1f]
# no-type-oblivious-proof: has no attribute 'masses'
# bug: 30:19 assert
# witness assert: dim=1, block_dim=1, q__positions=zeros(float32, (1, 1)), q__masses=zeros(float32, 1), values=zeros(float32, (1, 1)), out=zeros(float32, 1)
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
