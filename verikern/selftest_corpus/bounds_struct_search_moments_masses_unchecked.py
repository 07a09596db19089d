# expect: failed bounds
# tests/warp_compat/kernels_struct_search.py (proved per instance there) without `q.masses.shape[0] == q.positions.shape[0]` in the contract: both typings the struct typing search finds read q.masses[j] past its end when it holds fewer masses than positions. Witness (the Cloud3 instance): one position, no masses.
# kernel: moments[Cloud3, float32, vec3, mat33]
# no-type-oblivious-proof: has no attribute 'positions'
# bug: 40:13 bounds
# witness bounds: dim=1, block_dim=1, q__positions=zeros(float32, (1, 3)), q__masses=zeros(float32, 0), out_m0=zeros(float32, 1), out_m1=zeros(float32, (1, 3)), out_m2=zeros(float32, (1, 3, 3))
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


@vk.requires(lambda q, out_m0, out_m1, out_m2: out_m0.shape[0] >= q.positions.shape[0] and out_m1.shape[0] >= q.positions.shape[0]
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
