# expect: failed bounds
# ok_generic_vector_only_squared_norms with `i <= positions.shape[0]`: the vec3 instance the enumeration found (and its float64 twin) reads one vector past the end, each with a counterexample the simulator replays; the type-oblivious proof does not prove it, so `squared_norms[...]` stays unknown (never proved). Witness: one thread, no positions.
# kernel: squared_norms[vec3, float32]
# bug: 15:13 bounds
# witness bounds: dim=1, block_dim=1, positions=zeros(float32, (0, 3)), out=zeros(float32, 1)
from typing import Any

import warp as wp


@wp.kernel
def squared_norms(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i <= positions.shape[0] and i < out.shape[0]:
        p = positions[i]
        out[i] = wp.dot(p, p)
