# expect: proved
# A generic kernel in the style of nvalchemi's NPH cell-velocity update (dynamics/integrators/npt.py): the pressure tensors are a vec9 that the module names itself (`vec9f = wp.types.vector(length=9, dtype=wp.float32)`, no Warp name), read as P[0], P[4], P[8]. Warp would build the kernel for a vec3 array too and read past the vector, so it is proved only under a typing premise, which names the module's own vec9f and vec9d (the very type objects the module's arrays are made with).
# kernel: pressure_trace[vec9f, float32]
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
    if i < tensors.shape[0]:
        P = tensors[i]
        out[i] = P[0] + P[4] + P[8]
