# expect: proved
# Global minimum and maximum of an int array with atomic_min / atomic_max into lo[0] and hi[0].
import verikern as vk


@vk.kernel
def min_max(x: vk.array(dtype=vk.int32), lo: vk.array(dtype=vk.int32), hi: vk.array(dtype=vk.int32)):
    vk.requires(lo.shape[0] == 1 and hi.shape[0] == 1)
    i = vk.tid()
    if i < x.shape[0]:
        vk.atomic_min(lo, 0, x[i])
        vk.atomic_max(hi, 0, x[i])
