# expect: failed bounds
# A joint typing premise that admits a buggy row still fails: it admits int32 keys with float32 tables and int8 keys with float64 ones, and in int8 `k + k` wraps negative (100 + 100 is -56) after the guard. Witness: dim=1, keys=[100] as int8, a table of 256 doubles.
# kernel: gather_doubled[int8, float64, float64]
# bug: 19:32 bounds
# witness bounds: dim=1, block_dim=1, keys=array(int8, [100]), table=zeros(float64, 256), out=zeros(float64, 1)
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda keys, table, out: (keys.dtype, table.dtype, out.dtype) in ((wp.int32, wp.float32, wp.float32), (wp.int8, wp.float64, wp.float64)))
@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = out.dtype(table[int(k + k)])
