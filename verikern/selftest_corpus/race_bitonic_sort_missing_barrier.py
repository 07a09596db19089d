# expect: failed race
# Bitonic sort of a 64-key block with the per-step barrier moved after the whole network. Witness: dim=64 (block_dim 64): in step k=2, j=1 thread 0 writes buf[1]; in step k=4, j=2 thread 1 reads buf[1] (and thread 3 writes buf[1]) with no barrier between; every compare-exchange writes both elements, so any keys show it.
# bug: 24:21 race 30:21
# witness race: dim=64, block_dim=64, keys=zeros(int32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def bitonic_sort_block_racy(keys: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 2147483647
    if i < keys.shape[0]:
        v = keys[i]
    buf[t] = v
    vk.sync_threads()
    k = 2
    while k <= 64:
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                a = buf[t]
                b = buf[p]
                lo = vk.min(a, b)
                hi = vk.max(a, b)
                if (t & k) == 0:
                    buf[t] = lo
                    buf[p] = hi
                else:
                    buf[t] = hi
                    buf[p] = lo
            j //= 2
        k *= 2
    vk.sync_threads()
    if i < keys.shape[0]:
        keys[i] = buf[t]
