# expect: proved
# Block-privatised histogram: zero 16 shared bins, barrier, shared atomics, barrier, then 16 threads add the bins into the global histogram atomically.
import verikern as vk

NBINS = 16


@vk.kernel(block_dim=64)
def histogram_shared(bins: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(bins, 0, NBINS))
    vk.requires(hist.shape[0] == NBINS)
    local = vk.shared.array(shape=(NBINS,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t < NBINS:
        local[t] = 0
    vk.sync_threads()
    if i < bins.shape[0]:
        vk.atomic_add(local, bins[i], 1)
    vk.sync_threads()
    if t < NBINS:
        vk.atomic_add(hist, t, local[t])
