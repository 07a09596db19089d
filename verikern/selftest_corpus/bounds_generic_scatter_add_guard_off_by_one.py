# expect: failed bounds
# A generic scatter-add (values of dtype Any, accumulated atomically into out at a target index, as Warp projects accumulate per-atom forces) whose guard on the target lets j == out.shape[0] through. The type-oblivious proof does not prove it, so it gives no verdict of its own (`scatter_add[...]` stays unknown, never failed: the opaque kernel is no real instantiation), and each scalar instance fails on its own with a counterexample the simulator replays. Witness: target [1] into a one-element out.
# kernel: scatter_add[float32, float32]
# bug: 18:9 bounds
# witness bounds: dim=1, block_dim=1, values=zeros(float32, 1), target=array(int32, [1]), out=zeros(float32, 1)
from typing import Any

import warp as wp


@wp.kernel
def scatter_add(values: wp.array(dtype=Any), target: wp.array(dtype=wp.int32), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i >= values.shape[0] or i >= target.shape[0]:
        return
    j = target[i]
    if j >= 0 and j <= out.shape[0]:
        wp.atomic_add(out, j, values[i])
