# expect: proved
# Bitonic sort of each 64-key block in shared memory (keys past the end padded with INT32_MAX); in each step thread t compares buf[t] with buf[t ^ j] only when t ^ j > t, with a barrier after every step.
import verikern as vk


@vk.kernel(block_dim=64)
def bitonic_sort_block(keys: vk.array(dtype=vk.int32)):
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
            vk.sync_threads()
            j //= 2
        k *= 2
    if i < keys.shape[0]:
        keys[i] = buf[t]
