# expect: failed bounds
# A generic kernel (keys of dtype Any) with one declared wp.overload (int32): that instance is correct, but Warp builds an instance for whatever key type a launch passes: in int8 and int16 `k + k` wraps negative, and a float key of -0.75 passes `int(k) >= 0` while int(k + k) is -1. Witness: dim=1, keys=[100] as int8, a table of 256 floats: 100 < 128 passes the guard, 100 + 100 wraps to -56.
# kernel: gather_doubled[int8]
# bug: 17:22 bounds
# witness bounds: dim=1, block_dim=1, keys=array(int8, [100]), table=zeros(float32, 256), out=zeros(float32, 1)
from typing import Any

import warp as wp


@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = table[int(k + k)]


wp.overload(gather_doubled, [wp.array(dtype=wp.int32), wp.array(dtype=float), wp.array(dtype=float)])
