# expect: proved
# Adds the previous element through a uint32 index i - 1; for thread 0 it underflows to 4294967295, which the unsigned guard j < len(x) rejects.
import verikern as vk


@vk.kernel
def add_previous(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        j = vk.uint32(i) - vk.uint32(1)
        v = x[i]
        if j < vk.uint32(x.shape[0]):
            v = v + x[j]
        out[i] = v
