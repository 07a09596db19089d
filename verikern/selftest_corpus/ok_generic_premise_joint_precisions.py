# expect: proved
# A joint typing premise, as projects register their overloads: positions and weights are both float32 or both float64, never mixed (the per-parameter premise of the same types would also admit vec3f positions with float64 weights, which this body type-checks with through `out.dtype(...)`). Only the two rows are instances, and both are in bounds.
# kernel: weighted_height[vec3d, float64, float64]
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda positions, weights, out: (positions.dtype, weights.dtype, out.dtype) in ((wp.vec3f, wp.float32, wp.float32), (wp.vec3d, wp.float64, wp.float64)) and weights.shape[0] == positions.shape[0])
@wp.kernel
def weighted_height(positions: wp.array(dtype=Any), weights: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0] and i < out.shape[0]:
        p = positions[i]
        out[i] = out.dtype(p[2] * weights[i])
