# expect: failed bounds
# A generic kernel with overloads declared in a module-level loop (zip of two type lists): each instance reads x[i + 1] under a guard on i alone, one past the end for the last thread (a vector does not compare with `>`, so the scalar typings are all Warp can build). Witness: dim=2, int32 arrays of 2 elements: thread 1 reads x[2].
# kernel: next_diff[int32, int32]
# bug: 15:13 bounds
# witness bounds: dim=2, block_dim=1, x=zeros(int32, 2), out=zeros(int32, 2)
from typing import Any

import warp as wp


@wp.kernel
def next_diff(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        v = x[i + 1]
        if v > x[i]:
            out[i] = v


for _t, _u in zip([wp.int32, wp.float32], [wp.int32, wp.float32]):
    wp.overload(next_diff, [wp.array(dtype=_t), wp.array(dtype=_u)])
