# expect: proved
# The kernel of bounds_generic_int8_instance_wraps under a typing premise that admits int32 and int64 keys only: `k + k + 1` cannot wrap there for a key below table.shape[0] // 2, and it is at most table.shape[0] - 1, so both admitted instances are in bounds (the int8 and float instances Warp could build are outside the premise, and vk.launch refuses them).
# kernel: gather_doubled[int32]
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda keys: keys.dtype in (wp.int32, wp.int64))
@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = table[int(k + k) + 1]
