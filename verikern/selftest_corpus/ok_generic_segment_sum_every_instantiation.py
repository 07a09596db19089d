# expect: proved
# A generic segmented sum (values of dtype Any, as Warp projects write their per-system reductions): each thread sums one segment of `values` between two offsets, guarding every index it reads. Warp instantiates it for any element type (scalars, vec3d, mat33, a vec of any length); the type-oblivious proof (every value of the generic type opaque) proves it for all of them at once, and so covers the twelve scalar instances verikern enumerates.
# kernel: segment_sum[float32, float32]
from typing import Any

import warp as wp


@wp.kernel
def segment_sum(values: wp.array(dtype=Any), offsets: wp.array(dtype=wp.int32), out: wp.array(dtype=Any)):
    s = wp.tid()
    if s >= out.shape[0] or s + 1 >= offsets.shape[0]:
        return
    acc = type(out[s])(0.0)
    for k in range(offsets[s], offsets[s + 1]):
        if k >= 0 and k < values.shape[0]:
            acc = acc + values[k]
    out[s] = acc
