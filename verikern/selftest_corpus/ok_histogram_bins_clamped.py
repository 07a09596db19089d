# expect: proved
# Histogram of floats with the bin clamped into [0, hist.shape[0] - 1] (any float, even NaN, gives some int32 that the clamp fixes).
import verikern as vk


@vk.kernel
def histogram_clamped(x: vk.array(dtype=vk.float32), hist: vk.array(dtype=vk.int32)):
    vk.requires(hist.shape[0] > 0)
    i = vk.tid()
    if i < x.shape[0]:
        b = int(x[i] * float(hist.shape[0]))
        b = vk.min(vk.max(b, 0), hist.shape[0] - 1)
        vk.atomic_add(hist, b, 1)
