# expect: proved
# Reads x[i % m] with 0 < m <= len(x) required, so the modulo is defined and the index (i >= 0) lies in [0, m).
import verikern as vk


@vk.kernel
def cyclic_read(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), m: vk.int32):
    vk.requires(m > 0 and m <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = x[i % m]
