# expect: proved
# Reads its halo width from an IntEnum member (Warp folds `Halo.WIDTH` to the int 1); the guard keeps i + 1 inside x.
from enum import IntEnum

import verikern as vk


class Halo(IntEnum):
    NONE = 0
    WIDTH = 1


@vk.kernel
def shift_by_halo(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i + Halo.WIDTH < x.shape[0] and i < out.shape[0]:
        out[i] = x[i + Halo.WIDTH]
