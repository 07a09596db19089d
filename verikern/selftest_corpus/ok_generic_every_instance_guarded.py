# expect: proved
# A generic kernel (keys of dtype Any) that guards the index it computes, `k + k` in the key's own type, after the arithmetic: every instance Warp can build (int8 ... uint64, float16 ... float64) is in bounds, wrap-around included.
# kernel: gather_doubled[int8]
from typing import Any

import warp as wp


@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        j = int(k + k)
        if j >= 0 and j < table.shape[0]:
            out[i] = table[j]


wp.overload(gather_doubled, [wp.array(dtype=wp.int32), wp.array(dtype=float), wp.array(dtype=float)])
