# expect: proved
# A generic kernel with no declaration whose body type-checks only with vector positions (`wp.dot(p, p)` of an array of Any, as Warp projects compute per-atom norms): no scalar typing builds, so its instances are the vec3 typing the enumeration found and its float64 twin (squared_norms[vec3, float32], squared_norms[vec3d, float64]), both in bounds, and the type-oblivious proof covers every other instantiation (vec2, vec4, ...).
# kernel: squared_norms[vec3d, float64]
from typing import Any

import warp as wp


@wp.kernel
def squared_norms(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0] and i < out.shape[0]:
        p = positions[i]
        out[i] = wp.dot(p, p)
