# expect: proved
# Per-block count of positive elements in a shared counter: thread 0 zeroes it, barrier, shared atomics, barrier, thread 0 stores the block's count.
import verikern as vk


@vk.kernel(block_dim=64)
def count_positive_per_block(x: vk.array(dtype=vk.float32), counts: vk.array(dtype=vk.int32)):
    c = vk.shared.array(shape=(1,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t == 0:
        c[0] = 0
    vk.sync_threads()
    if i < x.shape[0]:
        if x[i] > 0.0:
            vk.atomic_add(c, 0, 1)
    vk.sync_threads()
    b = vk.block_idx()
    if t == 0 and b < counts.shape[0]:
        counts[b] = c[0]
