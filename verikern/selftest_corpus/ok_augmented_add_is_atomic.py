# expect: proved
# Sums x into total[0] with `total[0] += x[i]`, which (as in Warp) is an atomic add, so no race.
import verikern as vk


@vk.kernel
def sum_augmented(x: vk.array(dtype=vk.float32), total: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and total.shape[0] > 0:
        total[0] += x[i]
