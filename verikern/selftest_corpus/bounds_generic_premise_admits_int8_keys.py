# expect: failed bounds
# A typing premise that admits a buggy instantiation still fails: the premise admits int32 and int8 keys, and in int8 `k + k` wraps negative (100 + 100 is -56) after the guard. Witness: dim=1, keys=[100] as int8, a table of 256 floats.
# kernel: gather_doubled[int8]
# bug: 19:22 bounds
# witness bounds: dim=1, block_dim=1, keys=array(int8, [100]), table=zeros(float32, 256), out=zeros(float32, 1)
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda keys: keys.dtype in (wp.int32, wp.int8))
@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = table[int(k + k)]
