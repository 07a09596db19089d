# expect: proved
# A generic kernel in the style of nvalchemi's (positions of dtype Any, read as p[0], p[1], p[2]): Warp would build it for a vec2 array too and read past the vector, so it can only be proved under a typing premise; the premise admits vec3f and vec3d, and both instances are in bounds (vk.launch refuses a vec2 array).
# kernel: centroid_sum[vec3, float32]
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda positions, out: positions.dtype in (wp.vec3f, wp.vec3d) and out.shape[0] == positions.shape[0])
@wp.kernel
def centroid_sum(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0]:
        p = positions[i]
        out[i] = p[0] + p[1] + p[2]
