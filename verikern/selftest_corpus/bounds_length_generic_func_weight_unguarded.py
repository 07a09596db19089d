# expect: failed bounds
# ok_length_generic_func_half_norms with the guard on w dropped: the vec3 instance of the length-generic func is in bounds, but the float32 overload's argument w[i] is read past the end of w, with a counterexample the simulator replays. Witness: one thread, one position, no weights.
# bug: 29:38 bounds
# witness bounds: dim=1, block_dim=1, p=zeros(float32, (1, 3)), w=zeros(float32, 0), out=zeros(float32, 1)
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
    if i < p.shape[0] and i < out.shape[0]:
        h = half(p[i])
        out[i] = wp.dot(h, h) + half(w[i])
