# expect: failed bounds
# tests/warp_compat/kernels_struct_uniform.py (proved per instance there) without `q.masses.shape[0] == q.positions.shape[0]` in the contract: both typings the struct typing search's uniform typings find (every value array vec2 beside Cloud2, vec3 beside Cloud3) read q.masses[j] past its end when it holds fewer masses than positions. Witness (the Cloud3 instance): one position, no masses.
# kernel: dot_flux[Cloud3, vec3, vec3, vec3, vec3, vec3]
# no-type-oblivious-proof: inspects a type
# bug: 47:13 bounds
# witness bounds: dim=1, block_dim=1, q__positions=zeros(float32, (1, 3)), q__masses=zeros(float32, 0), fq=zeros(float32, (1, 3)), fr=zeros(float32, (1, 3)), dq=zeros(float32, (1, 3)), dr=zeros(float32, (1, 3)), out=zeros(float32, (1, 3))
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


@vk.requires(lambda q, fq, fr, dq, dr, out: fq.shape[0] >= q.positions.shape[0] and fr.shape[0] >= q.positions.shape[0]
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
