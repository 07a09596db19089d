# expect: failed bounds
# ok_generic_premise_own_vec9_tensors.py with the guard off by one (`i <= tensors.shape[0]`): under the same typing premise that names the module's own vec9f and vec9d, both instances read tensors[i] one past the end. Witness (the vec9f instance): two threads, one tensor.
# kernel: pressure_trace[vec9f, float32]
# bug: 21:13 bounds
# witness bounds: dim=2, block_dim=2, tensors=zeros(float32, (1, 9)), out=zeros(float32, 1)
from typing import Any

import warp as wp
import verikern as vk

vec9f = wp.types.vector(length=9, dtype=wp.float32)
vec9d = wp.types.vector(length=9, dtype=wp.float64)


@vk.requires(lambda tensors, out: tensors.dtype in (vec9f, vec9d) and out.dtype in (wp.float32, wp.float64)
             and out.shape[0] == tensors.shape[0])
@wp.kernel
def pressure_trace(tensors: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i <= tensors.shape[0]:
        P = tensors[i]
        out[i] = P[0] + P[4] + P[8]
