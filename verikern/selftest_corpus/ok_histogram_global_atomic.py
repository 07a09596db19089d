# expect: proved
# Global histogram: bins are range-checked by contract and counted with vk.atomic_add.
import verikern as vk


@vk.kernel
def histogram_atomic(bins: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(bins, 0, hist.shape[0]))
    i = vk.tid()
    if i < bins.shape[0]:
        vk.atomic_add(hist, bins[i], 1)
