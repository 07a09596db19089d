# expect: proved
# Odd-even transposition sort of each 64-key block in shared memory: in phase p only threads with t % 2 == p % 2 compare-swap (buf[t], buf[t + 1]), so active pairs are disjoint; a barrier ends every phase.
import verikern as vk


@vk.kernel(block_dim=64)
def odd_even_sort_block(keys: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 2147483647
    if i < keys.shape[0]:
        v = keys[i]
    buf[t] = v
    vk.sync_threads()
    for phase in range(64):
        if t % 2 == phase % 2 and t + 1 < 64:
            a = buf[t]
            b = buf[t + 1]
            if a > b:
                buf[t] = b
                buf[t + 1] = a
        vk.sync_threads()
    if i < keys.shape[0]:
        keys[i] = buf[t]
