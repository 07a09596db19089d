# expect: proved
# Swaps elements 2i and 2i+1; the guard i < n // 2 keeps 2*i + 1 < n with no int32 wrap, and each thread owns its pair.
import verikern as vk


@vk.kernel
def swap_pairs(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] // 2:
        t = x[2 * i]
        x[2 * i] = x[2 * i + 1]
        x[2 * i + 1] = t
