# expect: proved
# 3-point average stencil into a separate output, interior points only (1 <= i and i + 1 < n; i + 1 cannot wrap since tid <= 2**31 - 2).
import verikern as vk


@vk.kernel
def stencil3_halo(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i >= 1 and i + 1 < x.shape[0]:
        out[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0
