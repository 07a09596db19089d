# expect: failed race,uninit
# Block-privatised histogram without the barrier after zeroing the shared bins. Witness: dim=64 (block_dim 64), bins=[0]*64, hist.shape=(16,): thread 0's plain store local[0] = 0 races with thread 1's atomic add to local[0]. The same missing barrier lets an atomic read local[0] before any write of it happens (uninit).
# bug: 20:9 race 22:9
# bug: 22:9 uninit
# witness race: dim=64, block_dim=64, bins=zeros(int32, 64), hist=zeros(int32, 16)
# witness uninit: dim=64, block_dim=64, bins=zeros(int32, 64), hist=zeros(int32, 16)
import verikern as vk

NBINS = 16


@vk.kernel(block_dim=64)
def histogram_shared_no_init_barrier(bins: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(bins, 0, NBINS))
    vk.requires(hist.shape[0] == NBINS)
    local = vk.shared.array(shape=(NBINS,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t < NBINS:
        local[t] = 0
    if i < bins.shape[0]:
        vk.atomic_add(local, bins[i], 1)
    vk.sync_threads()
    if t < NBINS:
        vk.atomic_add(hist, t, local[t])
