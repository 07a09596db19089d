# expect: failed bounds
# Reads its halo width from an IntEnum member (Halo.WIDTH is 1) but guards i alone. Witness: dim=1, x.shape=(1,): thread 0 reads x[1].
# bug: 19:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1)
from enum import IntEnum

import verikern as vk


class Halo(IntEnum):
    NONE = 0
    WIDTH = 1


@vk.kernel
def shift_by_halo_unguarded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = x[i + Halo.WIDTH]
